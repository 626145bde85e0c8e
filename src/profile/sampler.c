/*
 * sampler: open a per-operation sampling event in the runner child, pass
 * it to the parent, and drain and decode its ring buffer there.  See
 * sampler.h for the protocol and the one-operation-per-child rule.
 *
 * This file uses libpfm4's copy of the perf_event ABI (it cannot be mixed
 * with <linux/perf_event.h> in one translation unit), which is why the
 * public header exposes no perf_event structures.
 */
#include "config.h"
#include "profile/sampler.h"
#include "core/atomic_file.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <perfmon/pfmlib_perf_event.h>

#ifndef PERF_RECORD_MISC_MMAP_BUILD_ID
#define PERF_RECORD_MISC_MMAP_BUILD_ID (1 << 14)
#endif

#define WIRE_MAGIC 0x70717366u /* "fsqp" */
#define WIRE_VERSION 2u
#define ACK_OK 'Y'
#define ACK_FAIL 'N'
#define SEND_WAIT_MS 30000
#define MAX_RECORD 65536         /* perf_event_header.size is 16 bits */
#define MAX_IPS (MAX_RECORD / 8)
#define MIN_DATA_PAGES 8

/*
 * x86-64 user registers the DWARF unwinder needs, as bits of perf's
 * PERF_REG_X86_* numbering: AX BX CX DX SI DI BP SP IP (0-8), R8-R15 (16-23).
 */
#define X86_64_UNWIND_REGS 0x00ff01ffull

struct sampler_wire {
	uint32_t magic, version;
	uint64_t sample_type, regs_mask;
	uint32_t stack_bytes, mode, data_pages, freq;
	uint64_t period;
	char event_name[32];
	char fallback[160];
	uint64_t entry_sp;
	uint32_t nentry_frames, pad;
	uint64_t entry_frames[SAMPLER_MAX_ENTRY_FRAMES];
};

_Static_assert(sizeof(struct sampler_wire) <= sizeof(((struct sampler_parent *)0)->wire),
               "sampler_parent.wire must hold one wire message");

void sampler_config_default(struct sampler_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->event = SAMPLER_EVENT_AUTO;
	cfg->mode = SAMPLER_MODE_FP;
	cfg->freq = 0;
	cfg->period = 0;
	cfg->stack_bytes = 16384;
	cfg->data_pages = 0;
}

int sampler_mode_parse(const char *s)
{
	if (!strcmp(s, "fp"))
		return SAMPLER_MODE_FP;
	if (!strcmp(s, "dwarf"))
		return SAMPLER_MODE_DWARF;
	return -1;
}

int sampler_event_parse(const char *s)
{
	static const char *const names[] = { "auto", "cycles", "cpu-clock", "task-clock" };
	for (int i = 0; i < 4; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

unsigned sampler_default_pages(enum sampler_mode mode)
{
	return mode == SAMPLER_MODE_DWARF ? 512 : 128;
}

/* See mlock_pages() below. */
static unsigned mlock_pages(void);

/*
 * Dwarf samples carry up to 64 KiB of stack each: a privileged parent
 * takes an 8 MiB ring so that ticks of unwinding do not overflow it.
 */
#define DWARF_PRIVILEGED_PAGES 2048u

unsigned sampler_ring_pages(enum sampler_mode mode)
{
	unsigned lim = mlock_pages();
	if (!lim)
		return mode == SAMPLER_MODE_DWARF ? DWARF_PRIVILEGED_PAGES : sampler_default_pages(mode);
	unsigned want = sampler_default_pages(mode);
	return lim < want ? (lim < MIN_DATA_PAGES ? MIN_DATA_PAGES : lim) : want;
}

/*
 * The margin covers what the measured call did not touch: frames that
 * reserve stack without writing all of it, the 128-byte red zone, and
 * other paths through the scheme.
 */
#define STACK_MARGIN 2048u
#define MIN_SAMPLES_IN_RING 16u

/*
 * Data pages an unprivileged user may map: perf_event_mlock_kb per online
 * CPU (the kernel's allowance) less the control page, as a power of two;
 * map_ring still halves the ring should other mappings of the user's
 * take part of it.  0 when there is no such limit (root).
 */
static unsigned mlock_pages(void)
{
	long kb;
	if (geteuid() == 0 || read_long_file("/proc/sys/kernel/perf_event_mlock_kb", &kb) < 0 || kb <= 0)
		return 0;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t pages = (uint64_t)kb * 1024 * (uint64_t)(cpus > 0 ? cpus : 1) / (uint64_t)sysconf(_SC_PAGESIZE);
	unsigned p = 1;
	while ((uint64_t)p * 2 + 1 <= pages)
		p *= 2;
	return p;
}

unsigned sampler_stack_bytes_for(uint64_t depth, unsigned data_pages)
{
	uint64_t want = depth + STACK_MARGIN;
	want = (want + 7) & ~(uint64_t)7;
	unsigned pages = data_pages ? data_pages : sampler_default_pages(SAMPLER_MODE_DWARF);
	uint64_t ring = (uint64_t)pages * (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t cap = ring / MIN_SAMPLES_IN_RING;
	if (cap > SAMPLER_MAX_STACK_BYTES)
		cap = SAMPLER_MAX_STACK_BYTES;
	cap &= ~(uint64_t)7;
	if (want > cap)
		want = cap;
	if (want < 64)
		want = 64;
	return (unsigned)want;
}

const char *sampler_mode_name(enum sampler_mode m)
{
	return m == SAMPLER_MODE_DWARF ? "dwarf" : "fp";
}

/* ------------------------------------------------------------------ */
/* Child side */

static long perf_open(struct perf_event_attr *attr)
{
	return syscall(__NR_perf_event_open, attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static unsigned long max_sample_rate(void)
{
	long v;
	return read_long_file("/proc/sys/kernel/perf_event_max_sample_rate", &v) == 0 && v > 0 ? (unsigned long)v : 0;
}

static int is_pow2(unsigned v)
{
	return v && !(v & (v - 1));
}

/* Hardware cycles, named through libpfm4 so lab PMUs resolve the way
 * `perf` would; falls back to the generic encoding if pfm cannot. */
static void encode_cycles(struct perf_event_attr *attr)
{
	static const char *const names[] = { "cycles", "PERF_COUNT_HW_CPU_CYCLES" };
	attr->type = PERF_TYPE_HARDWARE;
	attr->config = PERF_COUNT_HW_CPU_CYCLES;
	if (pfm_initialize() != PFM_SUCCESS)
		return;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		struct perf_event_attr tmp;
		pfm_perf_encode_arg_t arg;
		memset(&tmp, 0, sizeof tmp);
		memset(&arg, 0, sizeof arg);
		arg.attr = &tmp;
		arg.size = sizeof arg;
		if (pfm_get_os_event_encoding(names[i], PFM_PLM3, PFM_OS_PERF_EVENT, &arg) == PFM_SUCCESS) {
			attr->type = tmp.type;
			attr->config = tmp.config;
			attr->config1 = tmp.config1;
			attr->config2 = tmp.config2;
			return;
		}
	}
}

static const char *event_label(enum sampler_event ev)
{
	switch (ev) {
	case SAMPLER_EVENT_CYCLES: return "cycles";
	case SAMPLER_EVENT_TASK_CLOCK: return "task-clock";
	default: return "cpu-clock";
	}
}

/* perf_event_open, dropping what older kernels reject: build_id (before
 * 5.12), then use_clockid (before 4.1). */
static long open_ladder(struct perf_event_attr *a)
{
	long fd = perf_open(a);
	if (fd < 0 && errno == EINVAL) {
		a->build_id = 0;
		fd = perf_open(a);
		if (fd < 0 && errno == EINVAL) {
			a->use_clockid = 0;
			a->clockid = 0;
			fd = perf_open(a);
		}
	}
	return fd;
}

/* Open one event kind; on success fills sc and returns the fd. */
static int try_open(const struct sampler_config *cfg, enum sampler_event ev,
                    unsigned data_pages, struct sampler_child *sc)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	if (ev == SAMPLER_EVENT_CYCLES) {
		encode_cycles(&a);
	} else {
		a.type = PERF_TYPE_SOFTWARE;
		a.config = ev == SAMPLER_EVENT_TASK_CLOCK ? PERF_COUNT_SW_TASK_CLOCK
		                                          : PERF_COUNT_SW_CPU_CLOCK;
	}
	unsigned freq = cfg->freq;
	if (!freq && !cfg->period)
		freq = ev == SAMPLER_EVENT_CYCLES ? 3999 : 1999;
	if (freq) {
		unsigned long maxr = max_sample_rate();
		if (maxr && freq > maxr)
			freq = (unsigned)maxr;
		a.freq = 1;
		a.sample_freq = freq;
	} else {
		a.sample_period = cfg->period;
	}
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
	if (cfg->mode == SAMPLER_MODE_DWARF) {
		a.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a.sample_regs_user = X86_64_UNWIND_REGS;
		a.sample_stack_user = cfg->stack_bytes;
	} else {
		a.sample_type |= PERF_SAMPLE_CALLCHAIN;
		a.exclude_callchain_kernel = 1;
	}
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.mmap = 1;
	a.mmap2 = 1;
	a.mmap_data = 0;
	a.sample_id_all = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.watermark = 1;
	a.wakeup_watermark = (uint32_t)((uint64_t)data_pages * (uint64_t)sysconf(_SC_PAGESIZE) / 4);
	a.build_id = 1;

	/* Cycles as precisely as the PMU samples them (PEBS, IBS: perf's :pp,
	 * then :p), so samples skid less; the label says which was used. */
	const struct perf_event_attr base = a;
	int precise = ev == SAMPLER_EVENT_CYCLES ? 2 : 0;
	long fd;
	for (;;) {
		a = base;
		a.precise_ip = (unsigned)precise;
		fd = open_ladder(&a);
		if (fd >= 0 || precise == 0 || (errno != EINVAL && errno != EOPNOTSUPP && errno != ENOENT))
			break;
		precise--;
	}
	if (fd < 0)
		return -1;
	sc->fd = (int)fd;
	snprintf(sc->event_name, sizeof sc->event_name, "%s%s", event_label(ev),
	         precise == 2 ? ":pp" : precise == 1 ? ":p" : "");
	sc->mode = cfg->mode;
	sc->freq = freq;
	sc->period = freq ? 0 : cfg->period;
	sc->data_pages = data_pages;
	sc->sample_type = a.sample_type;
	sc->regs_mask = a.sample_regs_user;
	sc->stack_bytes = (unsigned)a.sample_stack_user;
	return sc->fd;
}

static const char *paranoid_note(void)
{
	static char buf[64];
	long v;
	if (read_long_file("/proc/sys/kernel/perf_event_paranoid", &v) < 0)
		return "perf_event_paranoid unreadable";
	snprintf(buf, sizeof buf, "perf_event_paranoid=%ld", v);
	return buf;
}

int sampler_child_open(const struct sampler_config *cfg, struct sampler_child *sc, pq_error *err)
{
	memset(sc, 0, sizeof *sc);
	sc->fd = -1;
	unsigned pages = cfg->data_pages;
	if (!pages)
		pages = sampler_default_pages(cfg->mode);
	if (!is_pow2(pages))
		return pq_fail(err, PQ_EUSAGE, "sampler: ring buffer pages (%u) must be a power of two", pages);
	if (cfg->mode == SAMPLER_MODE_DWARF) {
#if !defined(__x86_64__)
		return pq_fail(err, PQ_EPERF, "sampler: dwarf mode is only implemented for x86-64; use fp mode");
#endif
		if (cfg->stack_bytes < 64 || cfg->stack_bytes > SAMPLER_MAX_STACK_BYTES || cfg->stack_bytes % 8)
			return pq_fail(err, PQ_EUSAGE,
			               "sampler: stack copy size %u must be a multiple of 8 in 64..%u",
			               cfg->stack_bytes, SAMPLER_MAX_STACK_BYTES);
	}

	enum sampler_event order[2];
	int n = 0;
	switch (cfg->event) {
	case SAMPLER_EVENT_AUTO:
		order[n++] = SAMPLER_EVENT_CYCLES;
		order[n++] = SAMPLER_EVENT_CPU_CLOCK;
		break;
	default:
		order[n++] = cfg->event;
		break;
	}
	char why[160] = "";
	for (int i = 0; i < n; i++) {
		if (try_open(cfg, order[i], pages, sc) >= 0) {
			snprintf(sc->fallback, sizeof sc->fallback, "%s", why);
			return 0;
		}
		int e = errno;
		if (order[i] == SAMPLER_EVENT_CYCLES)
			snprintf(why, sizeof why,
			         "no hardware cycles event (perf_event_open: %s); sampled %s instead",
			         strerror(e), event_label(SAMPLER_EVENT_CPU_CLOCK));
		errno = e;
	}
	int e = errno;
	if (e == EACCES || e == EPERM)
		return pq_fail(err, PQ_EPERF, "sampler: perf_event_open(%s) not permitted (%s)",
		               event_label(order[n - 1]), paranoid_note());
	return pq_fail_errno(err, PQ_EPERF, "sampler: perf_event_open(%s)", event_label(order[n - 1]));
}

int sampler_child_send_fds(struct sampler_child *sc, int ctrl_fd, pq_error *err)
{
	struct sampler_wire w;
	memset(&w, 0, sizeof w);
	w.magic = WIRE_MAGIC;
	w.version = WIRE_VERSION;
	w.sample_type = sc->sample_type;
	w.regs_mask = sc->regs_mask;
	w.stack_bytes = sc->stack_bytes;
	w.mode = (uint32_t)sc->mode;
	w.data_pages = sc->data_pages;
	w.freq = sc->freq;
	w.period = sc->period;
	memcpy(w.event_name, sc->event_name, sizeof w.event_name);
	memcpy(w.fallback, sc->fallback, sizeof w.fallback);
	w.entry_sp = sc->entry_sp;
	w.nentry_frames = sc->nentry_frames <= SAMPLER_MAX_ENTRY_FRAMES ? sc->nentry_frames : 0;
	memcpy(w.entry_frames, sc->entry_frames, w.nentry_frames * sizeof *w.entry_frames);

	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	memset(&ctl, 0, sizeof ctl);
	struct iovec iov = { .iov_base = &w, .iov_len = sizeof w };
	struct msghdr msg = { 0 };
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = ctl.buf;
	msg.msg_controllen = sizeof ctl.buf;
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &sc->fd, sizeof(int));

	ssize_t r;
	do
		r = sendmsg(ctrl_fd, &msg, MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	if (r != (ssize_t)sizeof w)
		return pq_fail_errno(err, PQ_EIO, "sampler: sending the event fd to the parent");

	struct pollfd p = { .fd = ctrl_fd, .events = POLLIN };
	int pr;
	do
		pr = poll(&p, 1, SEND_WAIT_MS);
	while (pr < 0 && errno == EINTR);
	if (pr <= 0)
		return pq_fail(err, PQ_EIO, "sampler: parent did not map the sample buffer within %d s",
		               SEND_WAIT_MS / 1000);
	char ack = 0;
	do
		r = read(ctrl_fd, &ack, 1);
	while (r < 0 && errno == EINTR);
	if (r != 1 || ack != ACK_OK)
		return pq_fail(err, PQ_EPERF, "sampler: parent could not map the sample buffer");
	return 0;
}

void sampler_child_enable(struct sampler_child *sc)
{
	ioctl(sc->fd, PERF_EVENT_IOC_ENABLE, 0);
}

void sampler_child_disable(struct sampler_child *sc)
{
	ioctl(sc->fd, PERF_EVENT_IOC_DISABLE, 0);
}

void sampler_child_close(struct sampler_child *sc)
{
	if (sc->fd >= 0)
		close(sc->fd);
	sc->fd = -1;
}

/* ------------------------------------------------------------------ */
/* Parent side */

void sampler_parent_init(struct sampler_parent *sp, const struct sampler_sink *sink)
{
	memset(sp, 0, sizeof *sp);
	sp->fd = -1;
	if (sink)
		sp->sink = *sink;
}

static void deliver_mmap(struct sampler_parent *sp, const struct sampler_mmap *m)
{
	sp->stats.mmaps++;
	if (sp->sink.mmap)
		sp->sink.mmap(sp->sink.user, m);
}

static int parse_maps_line(char *line, struct sampler_mmap *m)
{
	unsigned long long start, end, off;
	char perms[8];
	int pathpos = -1;
	if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &off, &pathpos) < 4 ||
	    pathpos < 0)
		return 0;
	char *path = line + pathpos;
	path[strcspn(path, "\n")] = '\0';
	if (perms[2] != 'x' || path[0] != '/')
		return 0;
	memset(m, 0, sizeof *m);
	m->start = start;
	m->len = end - start;
	m->pgoff = off;
	m->prot = PROT_EXEC | (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0);
	m->filename = path;
	m->from_maps = 1;
	return 1;
}

static int read_maps_into(pid_t pid, struct sampler_parent *sp, const struct sampler_sink *sink,
                          pq_error *err)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return pq_fail_errno(err, PQ_EIO, "%s", path);
	char line[4096 + 128];
	int n = 0;
	while (fgets(line, sizeof line, f)) {
		struct sampler_mmap m;
		if (!parse_maps_line(line, &m))
			continue;
		m.pid = m.tid = (uint32_t)pid;
		if (sp)
			deliver_mmap(sp, &m);
		else if (sink && sink->mmap)
			sink->mmap(sink->user, &m);
		n++;
	}
	fclose(f);
	return n;
}

int sampler_read_maps(pid_t pid, const struct sampler_sink *sink, pq_error *err)
{
	return read_maps_into(pid, NULL, sink, err);
}

static int map_ring(struct sampler_parent *sp, unsigned pages, pq_error *err)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	for (;;) {
		size_t len = (1 + (size_t)pages) * pg;
		void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, sp->fd, 0);
		if (p != MAP_FAILED) {
			sp->base = p;
			sp->map_len = len;
			sp->data_pages = pages;
			struct perf_event_mmap_page *meta = p;
			if (meta->data_offset && meta->data_size) {
				sp->data = (unsigned char *)p + meta->data_offset;
				sp->data_size = meta->data_size;
			} else {
				sp->data = (unsigned char *)p + pg;
				sp->data_size = (uint64_t)pages * pg;
			}
			return 0;
		}
		/* EPERM: over perf_event_mlock_kb for an unprivileged user; a
		 * smaller ring still works, it just needs draining more often. */
		if (errno != EPERM || pages <= MIN_DATA_PAGES)
			return pq_fail_errno(err, PQ_EPERF, "sampler: mapping the %zu KiB sample buffer",
			                     len / 1024);
		pages /= 2;
	}
}

int sampler_parent_attach(struct sampler_parent *sp, int event_fd, pid_t pid,
                          const struct sampler_child *lay, pq_error *err)
{
	sp->fd = event_fd;
	sp->pid = pid;
	sp->sample_type = lay->sample_type;
	sp->regs_mask = lay->regs_mask;
	sp->stack_bytes = lay->stack_bytes;
	sp->mode = lay->mode;
	sp->freq = lay->freq;
	sp->period = lay->period;
	snprintf(sp->event_name, sizeof sp->event_name, "%s", lay->event_name);
	snprintf(sp->fallback, sizeof sp->fallback, "%s", lay->fallback);
	sp->entry_sp = lay->entry_sp;
	sp->nentry_frames = lay->nentry_frames <= SAMPLER_MAX_ENTRY_FRAMES ? lay->nentry_frames : 0;
	memcpy(sp->entry_frames, lay->entry_frames, sp->nentry_frames * sizeof *sp->entry_frames);
	sp->rec = malloc(MAX_RECORD);
	sp->ipbuf = malloc(MAX_IPS * sizeof *sp->ipbuf);
	if (!sp->rec || !sp->ipbuf)
		return pq_fail(err, PQ_ENOMEM, "sampler: out of memory");
	int r = map_ring(sp, lay->data_pages ? lay->data_pages : 128, err);
	if (r < 0)
		return r;
	r = read_maps_into(pid, sp, NULL, err);
	if (r < 0)
		return r;
	sp->attached = 1;
	return 0;
}

static void layout_from_wire(const struct sampler_wire *w, struct sampler_child *lay)
{
	memset(lay, 0, sizeof *lay);
	lay->sample_type = w->sample_type;
	lay->regs_mask = w->regs_mask;
	lay->stack_bytes = w->stack_bytes;
	lay->mode = w->mode == SAMPLER_MODE_DWARF ? SAMPLER_MODE_DWARF : SAMPLER_MODE_FP;
	lay->data_pages = w->data_pages;
	lay->freq = w->freq;
	lay->period = w->period;
	memcpy(lay->event_name, w->event_name, sizeof lay->event_name);
	lay->event_name[sizeof lay->event_name - 1] = '\0';
	memcpy(lay->fallback, w->fallback, sizeof lay->fallback);
	lay->fallback[sizeof lay->fallback - 1] = '\0';
	lay->entry_sp = w->entry_sp;
	lay->nentry_frames = w->nentry_frames <= SAMPLER_MAX_ENTRY_FRAMES ? w->nentry_frames : 0;
	memcpy(lay->entry_frames, w->entry_frames, lay->nentry_frames * sizeof *lay->entry_frames);
}

int sampler_parent_receive(struct sampler_parent *sp, int ctrl_fd, pid_t pid, pq_error *err)
{
	if (sp->attached)
		return 1;
	if (sp->failed)
		return pq_fail(err, PQ_EPERF, "sampler: attaching to the child's event failed earlier");
	if (ctrl_fd < 0)
		return 0;
	while (sp->wire_have < sizeof(struct sampler_wire)) {
		union {
			struct cmsghdr h;
			char buf[CMSG_SPACE(sizeof(int) * 4)];
		} ctl;
		struct iovec iov = { .iov_base = sp->wire + sp->wire_have,
		                     .iov_len = sizeof(struct sampler_wire) - sp->wire_have };
		struct msghdr msg = { 0 };
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof ctl.buf;
		ssize_t r = recvmsg(ctrl_fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (r < 0)
			return pq_fail_errno(err, PQ_EIO, "sampler: receiving the event fd");
		if (r == 0)
			return 0; /* child closed the socket without sampling */
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
			if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
				continue;
			size_t nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (size_t i = 0; i < nfd; i++) {
				int fd;
				memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
				if (sp->fd < 0)
					sp->fd = fd;
				else
					close(fd);
			}
		}
		sp->wire_have += (size_t)r;
	}

	struct sampler_wire w;
	memcpy(&w, sp->wire, sizeof w);
	char ack = ACK_FAIL;
	int rc;
	if (w.magic != WIRE_MAGIC || w.version != WIRE_VERSION) {
		rc = pq_fail(err, PQ_EINTERNAL, "sampler: unexpected message on the control socket");
	} else if (sp->fd < 0) {
		rc = pq_fail(err, PQ_EINTERNAL, "sampler: control message carried no event fd");
	} else {
		struct sampler_child lay;
		layout_from_wire(&w, &lay);
		int fd = sp->fd;
		rc = sampler_parent_attach(sp, fd, pid, &lay, err);
		if (rc == 0)
			ack = ACK_OK;
	}
	ssize_t wr;
	do
		wr = write(ctrl_fd, &ack, 1);
	while (wr < 0 && errno == EINTR);
	if (rc < 0) {
		sp->failed = 1;
		return rc;
	}
	if (wr != 1)
		return pq_fail_errno(err, PQ_EIO, "sampler: acknowledging the event fd");
	return 1;
}

/* ---- record decoding ---- */

struct cursor {
	const unsigned char *p, *end;
	int bad;
};

static uint64_t take_u64(struct cursor *c)
{
	uint64_t v = 0;
	if (c->end - c->p < 8) {
		c->bad = 1;
		return 0;
	}
	memcpy(&v, c->p, 8);
	c->p += 8;
	return v;
}

static const unsigned char *take_bytes(struct cursor *c, uint64_t n)
{
	if ((uint64_t)(c->end - c->p) < n) {
		c->bad = 1;
		return NULL;
	}
	const unsigned char *r = c->p;
	c->p += n;
	return r;
}

/* Keep the user part of a callchain, dropping PERF_CONTEXT_* markers. */
static size_t filter_callchain(const unsigned char *raw, uint64_t nr, uint64_t *out)
{
	size_t n = 0;
	int user = 1;
	for (uint64_t i = 0; i < nr && n < MAX_IPS; i++) {
		uint64_t ip;
		memcpy(&ip, raw + i * 8, 8);
		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			user = ip == (uint64_t)PERF_CONTEXT_USER;
			continue;
		}
		if (user)
			out[n++] = ip;
	}
	return n;
}

static int decode_sample(struct sampler_parent *sp, const unsigned char *rec, size_t size)
{
	struct cursor c = { rec + sizeof(struct perf_event_header), rec + size, 0 };
	struct sampler_sample s;
	memset(&s, 0, sizeof s);
	uint64_t t = sp->sample_type;
	if (t & PERF_SAMPLE_IDENTIFIER)
		take_u64(&c);
	if (t & PERF_SAMPLE_IP)
		s.ip = take_u64(&c);
	if (t & PERF_SAMPLE_TID) {
		uint64_t v = take_u64(&c);
		s.pid = (uint32_t)v;
		s.tid = (uint32_t)(v >> 32);
	}
	if (t & PERF_SAMPLE_TIME)
		s.time = take_u64(&c);
	if (t & PERF_SAMPLE_ADDR)
		take_u64(&c);
	if (t & PERF_SAMPLE_ID)
		take_u64(&c);
	if (t & PERF_SAMPLE_STREAM_ID)
		take_u64(&c);
	if (t & PERF_SAMPLE_CPU)
		take_u64(&c);
	if (t & PERF_SAMPLE_PERIOD)
		s.period = take_u64(&c);
	if (t & (PERF_SAMPLE_READ | PERF_SAMPLE_BRANCH_STACK))
		return -1; /* never requested by sampler_child_open */
	s.ips = &s.ip;
	s.nips = 1;
	if (t & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr = take_u64(&c);
		const unsigned char *raw = c.bad || nr > MAX_IPS ? NULL : take_bytes(&c, nr * 8);
		if (!raw)
			return -1;
		size_t n = filter_callchain(raw, nr, sp->ipbuf);
		if (n) {
			s.ips = sp->ipbuf;
			s.nips = n;
		}
	}
	if (t & PERF_SAMPLE_RAW) {
		uint32_t rsz;
		const unsigned char *q = take_bytes(&c, 4);
		if (!q)
			return -1;
		memcpy(&rsz, q, 4);
		take_bytes(&c, rsz);
	}
	if (t & PERF_SAMPLE_REGS_USER) {
		s.regs_abi = take_u64(&c);
		if (s.regs_abi) {
			s.nregs = (size_t)__builtin_popcountll(sp->regs_mask);
			s.regs = (const uint64_t *)(const void *)take_bytes(&c, s.nregs * 8);
			s.regs_mask = sp->regs_mask;
		}
	}
	if (t & PERF_SAMPLE_STACK_USER) {
		uint64_t sz = take_u64(&c);
		s.stack_capacity = sz;
		if (sz) {
			s.stack = take_bytes(&c, sz);
			s.stack_size = take_u64(&c);
			if (s.stack_size > sz)
				s.stack_size = sz;
		}
	}
	if (c.bad)
		return -1;
	sp->stats.samples++;
	if (sp->sink.sample)
		sp->sink.sample(sp->sink.user, &s);
	return 0;
}

static int decode_mmap2(struct sampler_parent *sp, const unsigned char *rec, size_t size,
                        int is_v2, uint16_t misc)
{
	struct cursor c = { rec + sizeof(struct perf_event_header), rec + size, 0 };
	struct sampler_mmap m;
	memset(&m, 0, sizeof m);
	uint64_t v = take_u64(&c);
	m.pid = (uint32_t)v;
	m.tid = (uint32_t)(v >> 32);
	m.start = take_u64(&c);
	m.len = take_u64(&c);
	m.pgoff = take_u64(&c);
	m.prot = PROT_EXEC | PROT_READ;
	if (is_v2) {
		const unsigned char *id = take_bytes(&c, 24);
		const unsigned char *pf = take_bytes(&c, 8);
		if (!id || !pf)
			return -1;
		if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			m.build_id_size = id[0] <= 20 ? id[0] : 20;
			memcpy(m.build_id, id + 4, m.build_id_size);
		}
		uint32_t prot;
		memcpy(&prot, pf, 4);
		m.prot = prot;
	}
	if (c.bad)
		return -1;
	const char *name = (const char *)c.p;
	size_t room = (size_t)(c.end - c.p);
	if (!room || !memchr(name, '\0', room))
		return -1;
	m.filename = name;
	/* Only file-backed code can be symbolized; skip [vdso], //anon, data. */
	if (name[0] == '/' && (m.prot & PROT_EXEC))
		deliver_mmap(sp, &m);
	return 0;
}

static int decode_record(struct sampler_parent *sp, const unsigned char *rec, size_t size)
{
	struct perf_event_header h;
	memcpy(&h, rec, sizeof h);
	struct cursor c = { rec + sizeof h, rec + size, 0 };
	switch (h.type) {
	case PERF_RECORD_SAMPLE:
		return decode_sample(sp, rec, size);
	case PERF_RECORD_MMAP:
		return decode_mmap2(sp, rec, size, 0, h.misc);
	case PERF_RECORD_MMAP2:
		return decode_mmap2(sp, rec, size, 1, h.misc);
	case PERF_RECORD_LOST:
		take_u64(&c);
		sp->stats.lost += take_u64(&c);
		sp->stats.lost_records++;
		return c.bad ? -1 : 0;
	case PERF_RECORD_LOST_SAMPLES:
		sp->stats.lost += take_u64(&c);
		sp->stats.lost_records++;
		return c.bad ? -1 : 0;
	case PERF_RECORD_THROTTLE:
		sp->stats.throttles++;
		return 0;
	case PERF_RECORD_UNTHROTTLE:
		sp->stats.unthrottles++;
		return 0;
	default:
		return 0;
	}
}

static void ring_copy(const struct sampler_parent *sp, uint64_t pos, void *dst, size_t n)
{
	uint64_t off = pos & (sp->data_size - 1);
	size_t first = n;
	if (off + n > sp->data_size)
		first = (size_t)(sp->data_size - off);
	memcpy(dst, sp->data + off, first);
	if (first < n)
		memcpy((unsigned char *)dst + first, sp->data, n - first);
}

int sampler_parent_drain(struct sampler_parent *sp, pq_error *err)
{
	if (!sp->attached)
		return 0;
	struct perf_event_mmap_page *meta = sp->base;
	/* Acquire: the records before head are visible once we see head. */
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = meta->data_tail;
	int n = 0;
	int rc = 0;
	while (tail < head) {
		struct perf_event_header h;
		ring_copy(sp, tail, &h, sizeof h);
		if (h.size < sizeof h || h.size > head - tail) {
			sp->stats.bad_records++;
			rc = pq_fail(err, PQ_EINTERNAL, "sampler: corrupt record in the ring buffer (size %u)",
			             (unsigned)h.size);
			tail = head;
			break;
		}
		uint64_t off = tail & (sp->data_size - 1);
		const unsigned char *rec;
		if (off + h.size <= sp->data_size) {
			rec = sp->data + off;
		} else {
			ring_copy(sp, tail, sp->rec, h.size);
			rec = sp->rec;
		}
		if (decode_record(sp, rec, h.size) < 0)
			sp->stats.bad_records++;
		tail += h.size;
		n++;
	}
	/* Release: our reads of the records happen before the kernel may
	 * reuse the space. */
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
	return rc < 0 ? rc : n;
}

void sampler_parent_close(struct sampler_parent *sp)
{
	if (sp->base)
		munmap(sp->base, sp->map_len);
	if (sp->fd >= 0)
		close(sp->fd);
	free(sp->rec);
	free(sp->ipbuf);
	sp->base = NULL;
	sp->rec = NULL;
	sp->ipbuf = NULL;
	sp->fd = -1;
	sp->attached = 0;
}
