/*
 * env: the assessment environment a measurement ran in (section 2 of a
 * report): processor, pinned CPU, clock policy, memory, OS, toolchain,
 * campaign times, and what the kernel lets us count (PMU, rdpmc,
 * perf_event_paranoid, uprobes).
 *
 * Capture never fails on a missing source: anything that cannot be read
 * (VMs have no cpufreq, containers hide sysfs) is the string "unknown".
 * This file only observes; it neither pins the process nor changes any
 * setting, and it prints nothing (cmd_env does).
 */
#ifndef PQ_MEASURE_ENV_H
#define PQ_MEASURE_ENV_H

#include <jansson.h>

#include "core/pq_error.h"

#define ENV_STR 256
#define ENV_WARNING_LEN 256
#define ENV_MAX_WARNINGS 16
#define ENV_MAX_ROWS 14
/* The first rows of env_table() are exactly a report's section 2. */
#define ENV_REPORT_ROWS 6

typedef struct env_info {
	/* processor */
	char processor[ENV_STR];      /* /proc/cpuinfo model name */
	int cpu;                      /* pinned or requested CPU; -1: not pinned */
	char cpus_allowed[ENV_STR];   /* sched_getaffinity as a list, "0-3,8" */
	/* clock policy of that CPU (or cpu0 when not pinned) */
	long max_clock_khz;           /* -1 when unknown */
	char max_clock[ENV_STR];      /* "2.10 GHz" or "unknown" */
	char governor[ENV_STR];
	char turbo[ENV_STR];          /* "on", "off", "unknown" */
	char smt[ENV_STR];            /* "on", "off", "unknown" */
	char smt_control[ENV_STR];    /* /sys/.../smt/control as is, or "unknown" */
	/* memory, system, toolchain */
	long memory_mib;              /* -1 when unknown */
	char memory[ENV_STR];         /* "31788 MiB" */
	char os[ENV_STR];             /* os-release PRETTY_NAME */
	char kernel[ENV_STR];         /* uname -r */
	char machine[ENV_STR];        /* uname -m */
	char compiler[ENV_STR];       /* first line of "<cc> --version" */
	char cmake[ENV_STR];          /* first line of "cmake --version" or "not installed" */
	char pqprof_version[ENV_STR];
	char start_utc[ENV_STR];      /* ISO-8601, "2026-09-25T10:02:21Z" */
	char end_utc[ENV_STR];        /* "unknown" until env_mark_end() */
	/* counting */
	char hardware_pmu[ENV_STR];   /* "yes" / "no" */
	char hardware_pmu_detail[ENV_STR]; /* why not, or the event that opened */
	char rdpmc[ENV_STR];          /* "yes" / "no" / "unknown" */
	int perf_event_paranoid;      /* -100 when unknown */
	char uprobes[ENV_STR];        /* "yes" / "no" */
	char clocksource[ENV_STR];    /* current clocksource, e.g. "tsc", "kvm-clock" */
	char tsc_flags[ENV_STR];      /* "constant_tsc nonstop_tsc", "none", "unknown" */
	/* how scheme code and compilers were contained (core/contain.h) */
	char containment[ENV_STR];
	char runner_containment[ENV_STR]; /* what runners get beyond it (contain_runner_line) */
} env_info;

#define ENV_PARANOID_UNKNOWN (-100)

/*
 * Fill *env.  cpu: the CPU the measurements will run on (-1: take it from
 * this process's affinity, when that is one CPU).  compiler: the compiler
 * command whose version to record (NULL: the configured scheme compiler);
 * it is split on spaces and run without a shell.  Only argument errors
 * fail; unreadable facts become "unknown".
 */
int env_capture(env_info *env, int cpu, const char *compiler, pq_error *err);

/* Set end_utc to now (call when the campaign ends). */
void env_mark_end(env_info *env);

/* The environment as a JSON object (new reference), NULL on out of memory.
 * Strings as captured; cpu, max_clock_khz, memory_mib and
 * perf_event_paranoid are integers, or the string "unknown" ("not pinned"
 * for cpu). */
json_t *env_to_json(const env_info *env);

/* Read back what env_to_json wrote (missing keys become "unknown"). */
int env_from_json(const json_t *obj, env_info *env, pq_error *err);

/* Keys env_to_json writes, NULL-terminated. */
const char *const *env_json_keys(void);

/*
 * Conditions that make figures less trustworthy or less comparable:
 * turbo on, governor not "performance", SMT on, no hardware PMU (figures
 * are TSC ticks or ns, not cycles), perf_event_paranoid too high for an
 * unprivileged user, not pinned to one CPU.  Fills up to max messages
 * (without a "warning: " prefix) and returns how many.
 */
int env_warnings(const env_info *env, char warnings[][ENV_WARNING_LEN], int max);

typedef struct env_row {
	char item[64];
	char value[2 * ENV_STR + 64];
} env_row;

/*
 * The environment as (item, value) rows, like section 2 of the reference
 * reports ("processor", "clock", "memory", "OS / kernel", "compiler /
 * build tool", "campaign start / end (UTC)"), followed by rows on
 * counting and the pqprof version.  Returns the number of rows filled.
 */
int env_table(const env_info *env, env_row *rows, int max);

#endif
