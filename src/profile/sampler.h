/*
 * sampler: per-operation sampling with perf_event, split between the
 * runner child and the parent.
 *
 * The child opens a sampling event on itself (user space only, so it also
 * works at perf_event_paranoid=2 without privileges), hands the fd to the
 * parent over the control socket together with a description of the
 * record layout, waits until the parent has mapped the ring buffer, and
 * then enables the event exactly around each scheme call.  The parent
 * maps the ring buffer, seeds the module list from /proc/PID/maps (the
 * instance library was loaded before the event existed, and a disabled
 * event gets no MMAP records), and drains and decodes records from its
 * tick hook and once more after the child has exited.
 *
 * Attribution rule: one child samples one operation kind, so every sample
 * a child produces belongs to that operation.  No timestamps have to be
 * matched against operation boundaries.
 *
 * Event choice: SAMPLER_EVENT_AUTO tries hardware cycles (encoded through
 * libpfm4) and falls back to the cpu-clock software event when the
 * machine has no usable PMU; sampler_child.event_name says which one ran.
 */
#ifndef PQ_SAMPLER_H
#define PQ_SAMPLER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/pq_error.h"

enum sampler_event {
	SAMPLER_EVENT_AUTO = 0,   /* cycles if the PMU has them, else cpu-clock */
	SAMPLER_EVENT_CYCLES,     /* hardware cycles only (fail without a PMU) */
	SAMPLER_EVENT_CPU_CLOCK,  /* software cpu-clock */
	SAMPLER_EVENT_TASK_CLOCK, /* software task-clock */
};

enum sampler_mode {
	SAMPLER_MODE_FP = 0,  /* kernel-walked frame-pointer callchain */
	SAMPLER_MODE_DWARF,   /* user registers + stack copy, unwound later */
};

struct sampler_config {
	enum sampler_event event;
	enum sampler_mode mode;
	unsigned freq;            /* samples per second; 0 = use period */
	unsigned long long period;/* events per sample when freq == 0 */
	unsigned stack_bytes;     /* dwarf: bytes of user stack copied per sample
	                           * (8..SAMPLER_MAX_STACK_BYTES, multiple of 8) */
	unsigned data_pages;      /* ring buffer data pages (power of two) */
};

/* The kernel's limit on one sample's stack copy (the record size is 16 bits). */
#define SAMPLER_MAX_STACK_BYTES 65528u
/* Runner frames above the scheme's entry that a child reports (see below). */
#define SAMPLER_MAX_ENTRY_FRAMES 16

/* Defaults: auto event, fp mode, freq 0 (= 3999 Hz for cycles, 1999 Hz
 * for clocks), 16 KiB stack copies, a 512 KiB ring (2 MiB in dwarf mode). */
void sampler_config_default(struct sampler_config *cfg);
/* "fp"/"dwarf" and "auto"/"cycles"/"cpu-clock"/"task-clock"; -1 if unknown. */
int sampler_mode_parse(const char *s);
int sampler_event_parse(const char *s);
const char *sampler_mode_name(enum sampler_mode m);

/* ------------------------------------------------------------------ */
/* Child side. */

struct sampler_child {
	int fd;                   /* the sampling event, -1 when closed */
	char event_name[32];      /* "cycles" (":p"/":pp" when precise), "cpu-clock", "task-clock" */
	char fallback[160];       /* why cycles were not used, "" if they were */
	enum sampler_mode mode;
	unsigned freq;            /* effective frequency (0 if period mode) */
	unsigned long long period;
	unsigned data_pages;
	/* record layout, sent to the parent with the fd */
	uint64_t sample_type;
	uint64_t regs_mask;
	unsigned stack_bytes;
	/*
	 * Where the scheme is entered, filled in by the runner before
	 * sampler_child_send_fds: entry_sp is the stack pointer at the call
	 * into the scheme (the entry function's CFA; 0 when unknown), and
	 * entry_frames the return addresses of the runner's frames above the
	 * function that makes that call, innermost first.  The parent unwinds
	 * up to entry_sp and stitches entry_frames above it.
	 */
	uint64_t entry_sp;
	uint64_t entry_frames[SAMPLER_MAX_ENTRY_FRAMES];
	unsigned nentry_frames;
};

/*
 * Bytes of stack copy that cover `depth` bytes of scheme stack below the
 * entry, with a margin, clamped to SAMPLER_MAX_STACK_BYTES and to what a
 * ring of data_pages pages holds comfortably (at least 16 samples).
 */
unsigned sampler_stack_bytes_for(uint64_t depth, unsigned data_pages);

/* Ring data pages a child asks for when none are configured. */
unsigned sampler_default_pages(enum sampler_mode mode);

/*
 * Ring data pages the calling process can map for a child of this mode:
 * more than the default in dwarf mode when memory locking is not limited
 * (root), at most what perf_event_mlock_kb allows otherwise.  Called by
 * the parent, which maps the ring, and passed to the child.
 */
unsigned sampler_ring_pages(enum sampler_mode mode);

/* Open the (disabled) sampling event on the calling thread. */
int sampler_child_open(const struct sampler_config *cfg, struct sampler_child *sc, pq_error *err);

/*
 * Pass the event fd and its layout to the parent over ctrl_fd (SCM_RIGHTS)
 * and wait (up to 30 s) until the parent reports that the ring buffer is
 * mapped.  Only then may the event be enabled: samples taken before that
 * would have nowhere to go.
 */
int sampler_child_send_fds(struct sampler_child *sc, int ctrl_fd, pq_error *err);

/* ioctl ENABLE/DISABLE; put these immediately around op_ctx_call(). */
void sampler_child_enable(struct sampler_child *sc);
void sampler_child_disable(struct sampler_child *sc);
void sampler_child_close(struct sampler_child *sc);

/* ------------------------------------------------------------------ */
/* Parent side. */

/* One decoded PERF_RECORD_SAMPLE.  Pointers are valid during the callback. */
struct sampler_sample {
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;            /* CLOCK_MONOTONIC ns */
	uint64_t period;          /* weight: events (or ns for clocks) */
	/* fp mode: user callchain with PERF_CONTEXT_* markers removed; ips[0]
	 * is the sampled IP, later entries are return addresses. */
	const uint64_t *ips;
	size_t nips;
	/* dwarf mode: registers in perf order (see unwind.h), stack copy. */
	uint64_t regs_abi;        /* PERF_SAMPLE_REGS_ABI_*, 0 = none */
	const uint64_t *regs;
	size_t nregs;
	uint64_t regs_mask;
	const unsigned char *stack;
	uint64_t stack_size;      /* valid bytes (dyn_size) */
	uint64_t stack_capacity;  /* bytes requested per sample */
};

/* A file mapping, from /proc/PID/maps at attach or a PERF_RECORD_MMAP2. */
struct sampler_mmap {
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t prot;            /* PROT_* */
	const char *filename;
	unsigned char build_id[20];
	unsigned build_id_size;   /* 0 when the record carried none */
	int from_maps;            /* 1 when read from /proc/PID/maps */
};

struct sampler_sink {
	void *user;
	void (*sample)(void *user, const struct sampler_sample *s);
	void (*mmap)(void *user, const struct sampler_mmap *m);
};

struct sampler_stats {
	uint64_t samples;
	uint64_t lost;            /* samples the kernel dropped (buffer full) */
	uint64_t lost_records;
	uint64_t throttles, unthrottles;
	uint64_t mmaps;           /* mappings delivered (maps + MMAP2) */
	uint64_t bad_records;     /* records we could not decode */
};

struct sampler_parent {
	struct sampler_sink sink;
	pid_t pid;
	int fd;                   /* event fd received from the child, or -1 */
	int attached;
	int failed;               /* attaching failed; the child was told to stop */
	unsigned data_pages;      /* ring data pages really mapped (may be fewer
	                           * than asked for when memory locking is limited) */
	/* layout as described by the child */
	uint64_t sample_type, regs_mask;
	unsigned stack_bytes;
	enum sampler_mode mode;
	char event_name[32];
	char fallback[160];
	unsigned freq;
	unsigned long long period;
	uint64_t entry_sp;        /* as the child sent them (sampler_child) */
	uint64_t entry_frames[SAMPLER_MAX_ENTRY_FRAMES];
	unsigned nentry_frames;
	/* ring buffer */
	void *base;
	size_t map_len;
	unsigned char *data;
	uint64_t data_size;
	unsigned char *rec;       /* one record, reassembled across the wrap */
	uint64_t *ipbuf;
	struct sampler_stats stats;
	/* partially received wire message */
	unsigned char wire[512];
	size_t wire_have;
};

void sampler_parent_init(struct sampler_parent *sp, const struct sampler_sink *sink);

/*
 * Non-blocking: receive the child's event fd from ctrl_fd if it has been
 * sent, map the ring buffer, report /proc/PID/maps file mappings to the
 * sink, and tell the child it may start.  Returns 1 once attached, 0 while
 * nothing has arrived yet, negative on error (the child is told to stop).
 * Call it from the tick hook until it returns 1.
 */
int sampler_parent_receive(struct sampler_parent *sp, int ctrl_fd, pid_t pid, pq_error *err);

/*
 * Attach to an event fd directly (takes ownership).  layout_from describes
 * the event (only its layout and label fields are read); used by
 * sampler_parent_receive and by tests that sample a child they forked.
 */
int sampler_parent_attach(struct sampler_parent *sp, int event_fd, pid_t pid,
                          const struct sampler_child *layout_from, pq_error *err);

/* Decode everything between data_tail and data_head; call from the tick
 * hook and once after the child exits.  Returns records decoded or < 0. */
int sampler_parent_drain(struct sampler_parent *sp, pq_error *err);

void sampler_parent_close(struct sampler_parent *sp);

/*
 * Read /proc/PID/maps and deliver its file-backed executable mappings.
 * Returns the number delivered or < 0.
 */
int sampler_read_maps(pid_t pid, const struct sampler_sink *sink, pq_error *err);

#endif
