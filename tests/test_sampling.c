/*
 * test_sampling: Check suite for src/profile (sampler, unwind, groups,
 * uprobe_count).  Each sampling test forks a child that plays the runner
 * (opens the event, passes it over a socketpair, enables it around calls
 * into the fixture library tests/fixtures/profile/hotcold.c) while the
 * test process plays the parent (maps, drains, decodes).  The fixture is
 * compiled at start-up with $CC, with and without frame pointers.
 */
#include "config.h"

#include <check.h>
#include <dlfcn.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "profile/groups.h"
#include "profile/sampler.h"
#include "profile/unwind.h"
#include "profile/uprobe_count.h"

static char fixture_dir[64];
static char lib_fp[PATH_MAX], lib_nofp[PATH_MAX], lib_late[PATH_MAX];

/* ---- the fixture library ---- */

struct fixture {
	void *handle;
	char path[PATH_MAX];
	unsigned long (*entry)(unsigned long);
	unsigned long (*idle_spin)(unsigned long);
	void (*call_counted)(unsigned long);
	void *hot, *cold, *middle, *counted;
};

static void fixture_load(struct fixture *fx, const char *path)
{
	memset(fx, 0, sizeof *fx);
	ck_assert_msg(realpath(path, fx->path) != NULL, "fixture %s missing", path);
	fx->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	ck_assert_msg(fx->handle != NULL, "dlopen %s: %s", path, dlerror());
	*(void **)&fx->entry = dlsym(fx->handle, "entry");
	*(void **)&fx->idle_spin = dlsym(fx->handle, "idle_spin");
	*(void **)&fx->call_counted = dlsym(fx->handle, "call_counted");
	fx->hot = dlsym(fx->handle, "hot");
	fx->cold = dlsym(fx->handle, "cold");
	fx->middle = dlsym(fx->handle, "middle");
	fx->counted = dlsym(fx->handle, "counted");
	ck_assert(fx->entry && fx->idle_spin && fx->call_counted && fx->hot && fx->cold &&
	          fx->middle && fx->counted);
}

/* Name of the fixture function containing pc ("" if none). */
static const char *fn_at(uint64_t pc)
{
	Dl_info info;
	if (!dladdr((void *)(uintptr_t)pc, &info) || !info.dli_sname)
		return "";
	return info.dli_sname;
}

/* CPU time, not wall time: sample counts must not depend on machine load. */
static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- the child side: a miniature runner ---- */

static struct fixture child_fx;
static const char *child_late_lib;

static void spin_for(double secs)
{
	double end = cpu_s() + secs;
	while (cpu_s() < end)
		child_fx.idle_spin(200000);
}

static void child_body(struct sampler_child *sc)
{
	spin_for(0.15);                 /* disabled: must leave no samples */
	double end = cpu_s() + 0.3;
	int loaded_late = 0;
	while (cpu_s() < end) {
		sampler_child_enable(sc);
		child_fx.entry(300000);
		if (child_late_lib && !loaded_late) {
			/* mapped while enabled: must arrive as an MMAP2 record */
			loaded_late = dlopen(child_late_lib, RTLD_NOW | RTLD_LOCAL) != NULL;
		}
		sampler_child_disable(sc);
	}
	spin_for(0.15);
}

struct collected {
	struct fixture *fx;
	pid_t pid;
	struct unwinder *uw;
	int want_unwind;
	unsigned long samples, in_idle, in_hot, in_cold, other_pid;
	unsigned long hot_with_middle, hot_with_entry;  /* callchain / unwound stack */
	unsigned long unwind_complete;
	int saw_fixture_map, saw_late_mmap2, late_has_build_id;
	struct group_set *gs;
	struct group_tally tally;
};

static void on_mmap(void *user, const struct sampler_mmap *m)
{
	struct collected *c = user;
	if (!strcmp(m->filename, c->fx->path) && (m->prot & PROT_EXEC)) {
		uint64_t hot = (uint64_t)(uintptr_t)c->fx->hot;
		if (hot >= m->start && hot < m->start + m->len)
			c->saw_fixture_map = 1;
	}
	if (!m->from_maps && strstr(m->filename, "libhc_late.so")) {
		c->saw_late_mmap2 = 1;
		c->late_has_build_id = m->build_id_size > 0;
	}
	if (c->uw) {
		pq_error err;
		ck_assert_int_eq(unwinder_add_module(c->uw, m->filename, m->start, m->len, m->pgoff, &err), 0);
	}
}

static void on_sample(void *user, const struct sampler_sample *s)
{
	struct collected *c = user;
	c->samples++;
	if (s->pid != (uint32_t)c->pid)
		c->other_pid++;
	const char *f0 = fn_at(s->ip);
	if (!strcmp(f0, "idle_spin"))
		c->in_idle++;
	if (!strcmp(f0, "cold"))
		c->in_cold++;

	uint64_t pcs[128];
	const uint64_t *stack = s->ips;
	size_t n = s->nips;
	if (c->want_unwind) {
		pq_error err;
		int st = unwinder_unwind(c->uw, s, pcs, 128, &n, &err);
		ck_assert_msg(st >= 0, "%s", err.msg);
		if (st == UNWIND_COMPLETE)
			c->unwind_complete++;
		stack = pcs;
	}
	ck_assert_uint_ge(n, 1);
	ck_assert_uint_eq(stack[0], s->ip);

	const char *names[128];
	size_t nn = 0;
	int has_middle = 0, has_entry = 0;
	for (size_t i = 0; i < n && nn < 128; i++) {
		const char *f = fn_at(i ? stack[i] - 1 : stack[i]);
		names[nn++] = *f ? f : NULL;
		if (i && !strcmp(f, "middle"))
			has_middle = 1;
		if (i && !strcmp(f, "entry"))
			has_entry = 1;
	}
	if (!strcmp(f0, "hot")) {
		if (getenv("SAMPLING_DEBUG") && c->in_hot < 3)
			for (size_t i = 0; i < n; i++)
				fprintf(stderr, "  #%zu %#llx %s\n", i, (unsigned long long)stack[i],
				        fn_at(i ? stack[i] - 1 : stack[i]));
		c->in_hot++;
		c->hot_with_middle += has_middle;
		c->hot_with_entry += has_entry;
	}
	if (c->gs)
		group_tally_add(&c->tally, c->gs, names, nn, (double)s->period);
}

/* Fork the child, be its parent until it exits, return the stats. */
static void run_sampled(const struct sampler_config *cfg, struct collected *c,
                        struct sampler_stats *stats, char *event, size_t evlen)
{
	int sv[2];
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	child_fx = *c->fx;
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(sv[0]);
		struct sampler_child sc;
		pq_error err;
		if (sampler_child_open(cfg, &sc, &err) < 0) {
			fprintf(stderr, "child: %s\n", err.msg);
			_exit(2);
		}
		if (sampler_child_send_fds(&sc, sv[1], &err) < 0) {
			fprintf(stderr, "child: %s\n", err.msg);
			_exit(3);
		}
		child_body(&sc);
		sampler_child_close(&sc);
		_exit(0);
	}
	close(sv[1]);
	c->pid = pid;
	struct sampler_parent sp;
	struct sampler_sink sink = { c, on_sample, on_mmap };
	sampler_parent_init(&sp, &sink);
	pq_error err;
	int status = 0;
	for (;;) {
		int r = sampler_parent_receive(&sp, sv[0], pid, &err);
		ck_assert_msg(r >= 0, "%s", err.msg);
		ck_assert_int_ge(sampler_parent_drain(&sp, &err), 0);
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		usleep(10000);
	}
	ck_assert_int_ge(sampler_parent_drain(&sp, &err), 0);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
	ck_assert(sp.attached);
	*stats = sp.stats;
	snprintf(event, evlen, "%s", sp.event_name);
	sampler_parent_close(&sp);
	close(sv[0]);
}

/* ---- tests ---- */

START_TEST(test_fp_samples_only_while_enabled)
{
	struct fixture fx;
	fixture_load(&fx, lib_fp);
	child_late_lib = lib_late;
	struct sampler_config cfg;
	sampler_config_default(&cfg);
	cfg.mode = SAMPLER_MODE_FP;
	struct collected c = { .fx = &fx };
	c.gs = groups_new();
	pq_error err;
	ck_assert_int_eq(groups_parse_spec(c.gs, "hot=hot", &err), 0);
	ck_assert_int_eq(groups_parse_spec(c.gs, "fixture=hot,cold,middle,entry", &err), 0);
	ck_assert_int_eq(group_tally_init(&c.tally, c.gs, &err), 0);
	struct sampler_stats st;
	char event[32];
	run_sampled(&cfg, &c, &st, event, sizeof event);
	printf("fp: event %s, %lu samples (hot %lu, cold %lu, idle %lu), lost %llu\n", event,
	       c.samples, c.in_hot, c.in_cold, c.in_idle, (unsigned long long)st.lost);

	ck_assert(!strcmp(event, "cycles") || !strcmp(event, "cpu-clock"));
	ck_assert_uint_ge(c.samples, 300);     /* 0.3 s of CPU at 1999 Hz is ~600 */
	ck_assert_uint_eq(st.samples, c.samples);
	ck_assert_uint_eq(c.in_idle, 0);        /* disabled spins left nothing */
	ck_assert_uint_eq(c.other_pid, 0);
	ck_assert_uint_eq(st.lost, 0);
	ck_assert_uint_eq(st.bad_records, 0);
	/* 90/10 split of the work, loosely */
	ck_assert_uint_ge(c.in_hot * 100, c.samples * 70);
	ck_assert_uint_ge(c.in_cold * 100, c.samples * 3);
	/* frame-pointer callchains name the callers of hot */
	ck_assert_uint_ge(c.hot_with_middle * 100, c.in_hot * 90);
	ck_assert_uint_ge(c.hot_with_entry * 100, c.in_hot * 90);
	/* the library came from /proc/PID/maps, the late one from MMAP2 */
	ck_assert(c.saw_fixture_map);
	ck_assert(c.saw_late_mmap2);

	/* group shares: "fixture" matches several frames of most stacks, yet
	 * each sample counts once, so its share cannot exceed 1. */
	struct group_share hs, fs;
	group_tally_share(&c.tally, 0, &hs);
	group_tally_share(&c.tally, 1, &fs);
	ck_assert_uint_eq(hs.samples, c.samples);
	ck_assert_uint_eq(hs.hits, c.in_hot); /* only samples in hot have hot on the stack */
	ck_assert_uint_le(fs.hits, fs.samples);
	ck_assert_uint_ge(fs.hits * 100, fs.samples * 95);
	ck_assert(hs.lo <= hs.share && hs.share <= hs.hi);
	ck_assert(hs.share > 0.7 && hs.share < 0.99);
	group_tally_free(&c.tally);
	groups_free(c.gs);
	child_late_lib = NULL;
}
END_TEST

START_TEST(test_dwarf_unwinds_through_omitted_frame_pointer)
{
	struct fixture fx;
	fixture_load(&fx, lib_nofp);
	struct sampler_config cfg;
	sampler_config_default(&cfg);
	cfg.mode = SAMPLER_MODE_DWARF;
	pq_error err;
	struct collected c = { .fx = &fx, .want_unwind = 1 };
	c.uw = unwinder_new(getpid(), &err);
	ck_assert_msg(c.uw != NULL, "%s", err.msg);
	unwinder_set_scope(c.uw, fx.path);
	struct sampler_stats st;
	char event[32];
	run_sampled(&cfg, &c, &st, event, sizeof event);
	const struct unwind_stats *us = unwinder_stats(c.uw);
	printf("dwarf: %lu samples (hot %lu, with middle %lu, with entry %lu), complete %lu, "
	       "truncated %llu, lost %llu\n", c.samples, c.in_hot, c.hot_with_middle,
	       c.hot_with_entry, c.unwind_complete, (unsigned long long)us->truncated,
	       (unsigned long long)st.lost);
	ck_assert_uint_ge(c.samples, 300);
	ck_assert_uint_eq(c.in_idle, 0);
	ck_assert_uint_ge(c.in_hot * 100, c.samples * 70);
	ck_assert_uint_ge(c.hot_with_middle * 100, c.in_hot * 95);
	ck_assert_uint_ge(c.hot_with_entry * 100, c.in_hot * 95);
	ck_assert_uint_ge(c.unwind_complete * 100, c.samples * 95);
	ck_assert_uint_eq(us->samples, c.samples);
	unwinder_free(c.uw);
}
END_TEST

START_TEST(test_dwarf_small_stack_copy_is_truncated)
{
	struct fixture fx;
	fixture_load(&fx, lib_nofp);
	struct sampler_config cfg;
	sampler_config_default(&cfg);
	cfg.mode = SAMPLER_MODE_DWARF;
	cfg.stack_bytes = 64;  /* too small to hold middle's and entry's frames */
	pq_error err;
	struct collected c = { .fx = &fx, .want_unwind = 1 };
	c.uw = unwinder_new(getpid(), &err);
	ck_assert_ptr_nonnull(c.uw);
	unwinder_set_scope(c.uw, fx.path);
	struct sampler_stats st;
	char event[32];
	run_sampled(&cfg, &c, &st, event, sizeof event);
	const struct unwind_stats *us = unwinder_stats(c.uw);
	ck_assert_uint_ge(c.samples, 100);
	ck_assert_uint_ge(us->truncated * 100, c.samples * 80);
	ck_assert_uint_ge(us->truncated_stack * 100, us->truncated * 80);
	unwinder_free(c.uw);
}
END_TEST

START_TEST(test_groups_count_nested_once)
{
	pq_error err;
	struct group_set *gs = groups_new();
	ck_assert_int_eq(groups_add_defaults(gs, &err), 0);
	ck_assert_int_eq(groups_parse_spec(gs, "hash=sha3_*, keccak*", &err), 0);
	ck_assert_int_eq(groups_parse_spec(gs, "sample=sample_*", &err), 0);
	ck_assert_int_lt(groups_parse_spec(gs, "nameonly", &err), 0);
	ck_assert_int_lt(groups_parse_spec(gs, "bad name=x", &err), 0);
	ck_assert_uint_eq(groups_count(gs), 3);
	ck_assert_str_eq(groups_name(gs, 0), "hash");
	ck_assert_str_eq(groups_name(gs, 1), "drng");
	static const char *const hash_globs[] = { "pseudohash", "pseudoXOF", "sm3hash", "sha3_*", "keccak*" };
	ck_assert_uint_eq(groups_nglobs(gs, 0), 5);
	for (size_t j = 0; j < 5; j++)
		ck_assert_str_eq(groups_glob(gs, 0, j), hash_globs[j]);
	ck_assert_ptr_null(groups_glob(gs, 0, 5));
	ck_assert_uint_eq(groups_nglobs(gs, 3), 0);

	struct group_tally t;
	ck_assert_int_eq(group_tally_init(&t, gs, &err), 0);
	const char *s1[] = { "pseudohash", "pseudoXOF", "sign" };       /* nested: once */
	const char *s2[] = { "keccak_f1600", NULL, "sha3_256", "sign" }; /* two globs: once */
	const char *s3[] = { "poly_mul", "sign" };
	const char *s4[] = { "get_random_number", "sample_y", "sign" };
	group_tally_add(&t, gs, s1, 3, 1.0);
	group_tally_add(&t, gs, s2, 4, 1.0);
	group_tally_add(&t, gs, s3, 2, 2.0);
	group_tally_add(&t, gs, s4, 3, 4.0);
	struct group_share sh;
	group_tally_share(&t, 0, &sh);
	ck_assert_uint_eq(sh.hits, 2);
	ck_assert_uint_eq(sh.samples, 4);
	ck_assert(sh.share == 0.5);
	ck_assert(sh.weight_share == 2.0 / 8.0);
	/* Wilson 95% for 2/4: 0.150..0.850 */
	ck_assert(sh.lo > 0.149 && sh.lo < 0.151 && sh.hi > 0.849 && sh.hi < 0.851);
	group_tally_share(&t, 1, &sh);
	ck_assert_uint_eq(sh.hits, 1);
	group_tally_share(&t, 2, &sh);
	ck_assert_uint_eq(sh.hits, 1);
	double lo, hi;
	groups_wilson95(0, 10, &lo, &hi);
	ck_assert(lo == 0.0 && hi > 0.27 && hi < 0.28);
	groups_wilson95(0, 0, &lo, &hi);
	ck_assert(lo == 0.0 && hi == 1.0);
	group_tally_free(&t);
	groups_free(gs);
}
END_TEST

/* Uprobes need CAP_PERFMON: without it the test passes with a printed reason. */
static int uprobes_usable(void)
{
	pq_error why;
	if (uprobe_available(&why) < 0) {
		printf("SKIP uprobe test: %s\n", why.msg);
		return 0;
	}
	return 1;
}

START_TEST(test_uprobe_resolve_offsets)
{
	struct fixture fx;
	fixture_load(&fx, lib_fp);
	pq_error err;
	const char *globs[] = { "c*", "hot" };
	struct uprobe_targets ts;
	ck_assert_int_eq(uprobe_resolve(fx.path, globs, 2, &ts, &err), 0);
	/* call_counted, cold, counted, hot (address order, not name order) */
	ck_assert_uint_eq(ts.n, 4);
	/* file offset of hot == its address minus the mapping's start plus pgoff */
	Dl_info info;
	ck_assert(dladdr(fx.hot, &info));
	FILE *f = fopen("/proc/self/maps", "r");
	char line[PATH_MAX + 128];
	uint64_t want = 0;
	while (fgets(line, sizeof line, f)) {
		unsigned long long a, b, off;
		if (sscanf(line, "%llx-%llx %*s %llx", &a, &b, &off) == 3 &&
		    (uintptr_t)fx.hot >= a && (uintptr_t)fx.hot < b)
			want = (uintptr_t)fx.hot - a + off;
	}
	fclose(f);
	int found = 0;
	for (size_t i = 0; i < ts.n; i++)
		if (!strcmp(ts.t[i].name, "hot")) {
			ck_assert_uint_eq(ts.t[i].offset, want);
			ck_assert_uint_gt(ts.t[i].size, 0);
			found = 1;
		}
	ck_assert(found);
	uprobe_targets_free(&ts);
	const char *none[] = { "no_such_function" };
	ck_assert_int_eq(uprobe_resolve(fx.path, none, 1, &ts, &err), 0);
	ck_assert_uint_eq(ts.n, 0);
	ck_assert_int_lt(uprobe_resolve("/nonexistent.so", none, 1, &ts, &err), 0);
}
END_TEST

START_TEST(test_uprobe_counts_exact_self)
{
	if (!uprobes_usable())
		return;
	struct fixture fx;
	fixture_load(&fx, lib_fp);
	pq_error err;
	const char *globs[] = { "counted", "cold" };
	struct uprobe_targets ts;
	ck_assert_int_eq(uprobe_resolve(fx.path, globs, 2, &ts, &err), 0);
	ck_assert_uint_eq(ts.n, 2);
	struct uprobe_counters uc;
	ck_assert_msg(uprobe_counters_open(&uc, fx.path, &ts, 0, &err) == 0, "%s", err.msg);
	fx.call_counted(100);                   /* disabled: not counted */
	uprobe_counters_enable(&uc);
	fx.call_counted(1234);
	uprobe_counters_disable(&uc);
	fx.call_counted(50);
	uint64_t counts[2];
	ck_assert_int_eq(uprobe_counters_read(&uc, counts, &err), 0);
	for (size_t i = 0; i < ts.n; i++) {
		if (!strcmp(ts.t[i].name, "counted"))
			ck_assert_uint_eq(counts[i], 1234);
		else
			ck_assert_uint_eq(counts[i], 0);
	}
	uprobe_counters_reset(&uc);
	uprobe_counters_enable(&uc);
	fx.entry(10);
	fx.call_counted(7);
	uprobe_counters_disable(&uc);
	ck_assert_int_eq(uprobe_counters_read(&uc, counts, &err), 0);
	for (size_t i = 0; i < ts.n; i++)
		ck_assert_uint_eq(counts[i], !strcmp(ts.t[i].name, "counted") ? 7 : 1);
	uprobe_counters_close(&uc);
	uprobe_targets_free(&ts);
}
END_TEST

START_TEST(test_uprobe_counts_exact_child)
{
	if (!uprobes_usable())
		return;
	struct fixture fx;
	fixture_load(&fx, lib_fp);
	pq_error err;
	const char *globs[] = { "counted" };
	struct uprobe_targets ts;
	ck_assert_int_eq(uprobe_resolve(fx.path, globs, 1, &ts, &err), 0);
	int go[2];
	ck_assert_int_eq(pipe(go), 0);
	pid_t pid = fork();
	if (pid == 0) {
		char b;
		close(go[1]);
		if (read(go[0], &b, 1) != 1)
			_exit(1);
		fx.call_counted(777);
		_exit(0);
	}
	close(go[0]);
	struct uprobe_counters uc;
	ck_assert_msg(uprobe_counters_open(&uc, fx.path, &ts, pid, &err) == 0, "%s", err.msg);
	uprobe_counters_enable(&uc);
	fx.call_counted(5);                     /* this process: not counted */
	ck_assert_int_eq(write(go[1], "g", 1), 1);
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	uint64_t n;
	ck_assert_int_eq(uprobe_counters_read(&uc, &n, &err), 0);
	ck_assert_uint_eq(n, 777);
	uprobe_counters_close(&uc);
	uprobe_targets_free(&ts);
	close(go[1]);
}
END_TEST

START_TEST(test_config_parsing)
{
	ck_assert_int_eq(sampler_mode_parse("fp"), SAMPLER_MODE_FP);
	ck_assert_int_eq(sampler_mode_parse("dwarf"), SAMPLER_MODE_DWARF);
	ck_assert_int_eq(sampler_mode_parse("lbr"), -1);
	ck_assert_int_eq(sampler_event_parse("cpu-clock"), SAMPLER_EVENT_CPU_CLOCK);
	ck_assert_int_eq(sampler_event_parse("cycles"), SAMPLER_EVENT_CYCLES);
	ck_assert_int_eq(sampler_event_parse("bogus"), -1);
	struct sampler_config cfg;
	sampler_config_default(&cfg);
	cfg.data_pages = 3;
	struct sampler_child sc;
	pq_error err;
	ck_assert_int_eq(sampler_child_open(&cfg, &sc, &err), -PQ_EUSAGE);
	ck_assert(strstr(err.msg, "power of two") != NULL);
	/* auto falls back to a clock and says so when there is no PMU */
	sampler_config_default(&cfg);
	ck_assert_int_eq(sampler_child_open(&cfg, &sc, &err), 0);
	if (strcmp(sc.event_name, "cycles"))
		ck_assert(strstr(sc.fallback, "no hardware cycles") != NULL);
	else
		ck_assert_str_eq(sc.fallback, "");
	sampler_child_close(&sc);
}
END_TEST

/* The stack copy covers the measured depth plus a margin, within the
 * kernel's limit and 1/16 of the ring. */
START_TEST(test_stack_bytes_sizing)
{
	long pg = sysconf(_SC_PAGESIZE);
	unsigned big_ring = (unsigned)((64u << 20) / (unsigned long)pg);
	unsigned b = sampler_stack_bytes_for(10000, big_ring);
	ck_assert_uint_ge(b, 10000 + 1024);
	ck_assert_uint_le(b, 10000 + 4096);
	ck_assert_uint_eq(b % 8, 0);
	ck_assert_uint_eq(sampler_stack_bytes_for(1u << 20, big_ring), SAMPLER_MAX_STACK_BYTES);
	unsigned small_ring = (unsigned)((256u << 10) / (unsigned long)pg);
	ck_assert_uint_le(sampler_stack_bytes_for(60000, small_ring), (256u << 10) / 16);
	ck_assert_uint_ge(sampler_stack_bytes_for(0, big_ring), 64);
	/* the kernel's limit is accepted, one byte more is not */
	struct sampler_config cfg;
	sampler_config_default(&cfg);
	cfg.mode = SAMPLER_MODE_DWARF;
	cfg.stack_bytes = SAMPLER_MAX_STACK_BYTES + 8;
	struct sampler_child sc;
	pq_error err;
	ck_assert_int_eq(sampler_child_open(&cfg, &sc, &err), -PQ_EUSAGE);
	ck_assert(sampler_ring_pages(SAMPLER_MODE_DWARF) >= 8);
}
END_TEST

/* ---- set-up: build the fixture ---- */

static int build_fixture(void)
{
	const char *cc = getenv("CC");
	const char *top = getenv("top_srcdir");
	char src[PATH_MAX];
	snprintf(src, sizeof src, "%s/tests/fixtures/profile/hotcold.c", top ? top : ".");
	snprintf(fixture_dir, sizeof fixture_dir, "/tmp/pqprof-test-sampling-XXXXXX");
	if (!mkdtemp(fixture_dir))
		return -1;
	snprintf(lib_fp, sizeof lib_fp, "%s/libhc_fp.so", fixture_dir);
	snprintf(lib_nofp, sizeof lib_nofp, "%s/libhc_nofp.so", fixture_dir);
	snprintf(lib_late, sizeof lib_late, "%s/libhc_late.so", fixture_dir);
	if (!cc || !*cc)
		cc = "cc";
	char *cmd = NULL;
	if (asprintf(&cmd,
	             "%s -shared -fPIC -O2 -g -fno-omit-frame-pointer -o '%s' '%s' && "
	             "%s -shared -fPIC -O2 -g -fomit-frame-pointer -o '%s' '%s' && "
	             "%s -shared -fPIC -O2 -g -Wl,--build-id -o '%s' '%s'",
	             cc, lib_fp, src, cc, lib_nofp, src, cc, lib_late, src) < 0)
		return -1;
	int rc = system(cmd);
	free(cmd);
	return rc == 0 ? 0 : -1;
}

static void remove_fixture(void)
{
	unlink(lib_fp);
	unlink(lib_nofp);
	unlink(lib_late);
	rmdir(fixture_dir);
}

int main(void)
{
	if (build_fixture() < 0) {
		fprintf(stderr, "test_sampling: cannot build the fixture library with $CC\n");
		return 99; /* hard error for automake */
	}
	Suite *s = suite_create("sampling");
	TCase *tc = tcase_create("profile");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_config_parsing);
	tcase_add_test(tc, test_stack_bytes_sizing);
	tcase_add_test(tc, test_fp_samples_only_while_enabled);
	tcase_add_test(tc, test_dwarf_unwinds_through_omitted_frame_pointer);
	tcase_add_test(tc, test_dwarf_small_stack_copy_is_truncated);
	tcase_add_test(tc, test_groups_count_nested_once);
	tcase_add_test(tc, test_uprobe_resolve_offsets);
	tcase_add_test(tc, test_uprobe_counts_exact_self);
	tcase_add_test(tc, test_uprobe_counts_exact_child);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	remove_fixture();
	return failed ? 1 : 0;
}
