/* ops: operation names, their order and the operations of each kind; see ops.h. */
#include "config.h"
#include "core/ops.h"

#include <string.h>

#include "instance/pqprof_abi.h"

static const char *const op_names[PQ_OP_COUNT] = { "keygen", "sign", "verify", "enc", "dec" };

const char *pq_op_name(enum pq_op op)
{
	return (int)op >= 0 && op < PQ_OP_COUNT ? op_names[op] : "?";
}

int pq_op_parse(const char *name)
{
	for (int i = 0; name && i < PQ_OP_COUNT; i++)
		if (strcmp(name, op_names[i]) == 0)
			return i;
	return -1;
}

int pq_ops_for_kind(int kind, enum pq_op ops[PQ_OP_COUNT])
{
	ops[0] = PQ_OP_KEYGEN;
	if (kind == PQPROF_KIND_KEM) {
		ops[1] = PQ_OP_ENC;
		ops[2] = PQ_OP_DEC;
	} else {
		ops[1] = PQ_OP_SIGN;
		ops[2] = PQ_OP_VERIFY;
	}
	return 3;
}
