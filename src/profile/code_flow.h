/*
 * code_flow: the control flow of one disassembled function, from its
 * branches alone: basic blocks (straight-line runs that end at a branch,
 * a return or just before a branch target) and loops (a branch back to an
 * address at or before itself: a back edge; the loop is the code from its
 * target to the branch).  Works on plain arrays so it can be tested with
 * made-up instructions; the disassembler (disasm.h) fills them.
 *
 * Not a full CFG: indirect jumps and fall-through into other functions
 * are not followed, and a loop is a contiguous address range, which is
 * what compilers emit for the loops of C code.
 */
#ifndef PQ_CODE_FLOW_H
#define PQ_CODE_FLOW_H

#include <stddef.h>
#include <stdint.h>

enum flow_kind {
	FLOW_NONE = 0,      /* falls through to the next instruction */
	FLOW_JUMP,          /* unconditional jump (target 0 when indirect) */
	FLOW_COND,          /* conditional branch */
	FLOW_CALL,          /* call: returns to the next instruction */
	FLOW_RET,           /* return, or any instruction that never falls through */
};

struct flow_insn {
	uint64_t addr;
	uint32_t size;
	enum flow_kind kind;
	uint64_t target;    /* direct branch target, 0 when none or indirect */
};

/* Instructions [first, first + n) of the array. */
struct flow_block {
	size_t first, n;
};

/* Loop from instruction head (the back edge's target) to tail (the branch
 * that jumps back), both included.  depth: 1 for an outermost loop. */
struct flow_loop {
	size_t head, tail;
	int depth;
};

/*
 * The basic blocks of in[0 .. n), in address order, instructions sorted
 * by address.  *out is malloc'd (free it); 0, or -PQ_ENOMEM.
 */
int flow_blocks(const struct flow_insn *in, size_t n, struct flow_block **out, size_t *nout);

/*
 * The loops of in[0 .. n): one per back-edge target (several back edges
 * to one head make one loop, up to the last of them), sorted by head,
 * outer loops before the loops they contain.  Targets that are not the
 * start of an instruction of the array are ignored.  *out is malloc'd;
 * 0, or -PQ_ENOMEM.
 */
int flow_loops(const struct flow_insn *in, size_t n, struct flow_loop **out, size_t *nout);

/* Index of the instruction that contains addr, or n when none does. */
size_t flow_find(const struct flow_insn *in, size_t n, uint64_t addr);

#endif
