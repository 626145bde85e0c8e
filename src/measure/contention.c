/* contention: per-trial evidence of sharing the CPU; see contention.h. */
#include "config.h"
#include "measure/contention.h"
#include "core/clock.h"
#include "core/text_buf.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* Steal ticks (8th value) of the "cpu" line and of "cpuN" from /proc/stat. */
static void read_steal(int cpu, long long *mine, long long *all)
{
	*mine = *all = -1;
	FILE *f = fopen("/proc/stat", "r");
	if (!f)
		return;
	char line[512], want[32];
	snprintf(want, sizeof want, "cpu%d ", cpu);
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, "cpu", 3) != 0)
			break;
		unsigned long long v[8] = { 0 };
		char name[32];
		if (sscanf(line, "%31s %llu %llu %llu %llu %llu %llu %llu %llu", name, &v[0], &v[1], &v[2], &v[3], &v[4],
		           &v[5], &v[6], &v[7]) != 9)
			continue;
		if (strcmp(name, "cpu") == 0)
			*all = (long long)v[7];
		else if (cpu >= 0 && strncmp(line, want, strlen(want)) == 0)
			*mine = (long long)v[7];
	}
	fclose(f);
}

void contention_snap_take(struct contention_snap *s)
{
	memset(s, 0, sizeof *s);
	s->cpu = sched_getcpu();
	read_steal(s->cpu, &s->steal_cpu, &s->steal_all);
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		s->cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
		           (double)ru.ru_stime.tv_usec * 1e-6;
		s->nivcsw = ru.ru_nivcsw;
		s->nvcsw = ru.ru_nvcsw;
	} else {
		s->cpu_s = -1;
		s->nivcsw = s->nvcsw = -1;
	}
	s->wall_s = mono_s();
}

json_t *contention_evidence(const struct contention_snap *a, const struct contention_snap *b)
{
	double wall = b->wall_s - a->wall_s;
	json_t *e = json_object();
	json_object_set_new(e, "wall_s", json_real(wall));
	if (a->cpu_s >= 0 && b->cpu_s >= 0) {
		double cpu = b->cpu_s - a->cpu_s;
		json_object_set_new(e, "cpu_s", json_real(cpu));
		/* rusage times have a tick's grain: a trial shorter than a few ticks says little. */
		json_object_set_new(e, "cpu_wall", wall > 0.05 ? json_real(cpu / wall) : json_null());
		json_object_set_new(e, "involuntary_switches", json_integer(b->nivcsw - a->nivcsw));
		json_object_set_new(e, "voluntary_switches", json_integer(b->nvcsw - a->nvcsw));
	}
	long long s0 = a->cpu == b->cpu ? a->steal_cpu : a->steal_all;
	long long s1 = a->cpu == b->cpu ? b->steal_cpu : b->steal_all;
	long tck = sysconf(_SC_CLK_TCK);
	json_object_set_new(e, "steal_s", s0 >= 0 && s1 >= s0 && tck > 0 ? json_real((double)(s1 - s0) / (double)tck)
	                                                                 : json_null());
	json_object_set_new(e, "cpu_start", json_integer(a->cpu));
	json_object_set_new(e, "cpu_end", json_integer(b->cpu));
	double la[1];
	json_object_set_new(e, "loadavg_1m", getloadavg(la, 1) == 1 ? json_real(la[0]) : json_null());
	return e;
}

int contention_judge(const json_t *ev, char *why, size_t len)
{
	/* Three short figures: 256 bytes always hold them, the text cannot be cut. */
	char buf[256] = "";
	int flagged = 0;
	json_t *cw = json_object_get(ev, "cpu_wall");
	if (json_is_number(cw) && json_number_value(cw) < CONTENTION_MIN_CPU_WALL) {
		text_appendf(buf, sizeof buf, "%scpu/wall %.2f", buf[0] ? "; " : "", json_number_value(cw));
		flagged = 1;
	}
	json_t *iv = json_object_get(ev, "involuntary_switches");
	double wall = json_number_value(json_object_get(ev, "wall_s"));
	if (json_is_integer(iv) && wall > 0) {
		double rate = (double)json_integer_value(iv) / wall;
		if (json_integer_value(iv) >= CONTENTION_MIN_NIVCSW && rate > CONTENTION_MAX_NIVCSW_PER_S) {
			text_appendf(buf, sizeof buf, "%s%.0f involuntary switches/s", buf[0] ? "; " : "", rate);
			flagged = 1;
		}
	}
	json_t *st = json_object_get(ev, "steal_s");
	if (json_is_number(st) && json_number_value(st) > 0) {
		text_appendf(buf, sizeof buf, "%ssteal %.2f s", buf[0] ? "; " : "", json_number_value(st));
		flagged = 1;
	}
	if (why && len)
		snprintf(why, len, "%s", buf);
	return flagged;
}

json_t *contention_rule_json(void)
{
	return json_pack("{s:f, s:f, s:i, s:f, s:s}", "min_cpu_wall", CONTENTION_MIN_CPU_WALL,
	                 "max_involuntary_switches_per_s", CONTENTION_MAX_NIVCSW_PER_S,
	                 "min_involuntary_switches", CONTENTION_MIN_NIVCSW, "max_steal_s", 0.0,
	                 "text", "flagged when cpu/wall < 0.90, or at least 2 involuntary context switches at more than "
	                 "10 per second, or any steal time on the CPU it ran on");
}
