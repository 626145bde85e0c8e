/*
 * contention: evidence that a benchmark trial shared its CPU with other
 * work.  The runner child takes a snapshot before and after its timed
 * loop (wall and CPU time, context switches, steal time of the CPU it ran
 * on, that CPU, the load average); the parent turns the two into a
 * trial's evidence and judges it with one documented rule:
 *
 *   flagged when  cpu/wall < 0.90              (runnable but not running)
 *             or  involuntary switches >= 2 and above 10 per second
 *                 of the trial (preempted by other runnable work)
 *             or  steal time > 0 on that CPU (the hypervisor ran
 *                 another guest)
 *
 * A move to another CPU and the load average are recorded, not judged.
 * Not here: what flagged trials do to the figures (supervise/bench.c).
 */
#ifndef PQ_CONTENTION_H
#define PQ_CONTENTION_H

#include <jansson.h>

#define CONTENTION_MIN_CPU_WALL 0.90
#define CONTENTION_MAX_NIVCSW_PER_S 10.0
#define CONTENTION_MIN_NIVCSW 2

struct contention_snap {
	double wall_s;           /* CLOCK_MONOTONIC */
	double cpu_s;            /* user + system time of the process */
	long nivcsw, nvcsw;      /* involuntary / voluntary context switches */
	int cpu;                 /* sched_getcpu(), -1 if unknown */
	long long steal_cpu;     /* steal ticks of that CPU, -1 if unknown */
	long long steal_all;     /* steal ticks of all CPUs, -1 if unknown */
};

/* Take a snapshot (never fails: unknown parts are -1). */
void contention_snap_take(struct contention_snap *s);

/*
 * The child's evidence for the span between two snapshots, as JSON:
 * wall_s, cpu_s, cpu_wall, involuntary_switches, voluntary_switches,
 * steal_s (of the CPU it started on when it did not move, else of all
 * CPUs; null when /proc/stat is unreadable), cpu_start, cpu_end, loadavg_1m.
 */
json_t *contention_evidence(const struct contention_snap *a, const struct contention_snap *b);

/*
 * Judge evidence by the rule above: 1 = contended, 0 = not; why (may be
 * NULL) gets the reasons ("cpu/wall 0.72; 31 involuntary switches/s").
 */
int contention_judge(const json_t *evidence, char *why, size_t len);

/* The rule as JSON, for records: thresholds with their names. */
json_t *contention_rule_json(void);

#endif
