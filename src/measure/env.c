/*
 * env: capture the assessment environment from /proc, /sys, uname and the
 * toolchain; see env.h.  Every reader here tolerates a missing file.
 */
#include "config.h"
#include "measure/env.h"
#include "core/atomic_file.h"
#include "core/clock.h"
#include "measure/counter.h"
#include "core/fixed_str.h"
#include "core/units.h"
#include "core/contain.h"
#include "core/jpath.h"
#include "core/text_buf.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef PQPROF_DEFAULT_SCHEME_CC
#define PQPROF_DEFAULT_SCHEME_CC "cc"
#endif

#define UNKNOWN "unknown"
#define VERSION_TIMEOUT_MS 10000

/* ---- small readers ---- */

static void set_str(char *dst, const char *src)
{
	str_copy(dst, ENV_STR, src && *src ? src : UNKNOWN);
}

static void trim(char *s)
{
	size_t n = strlen(s);
	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	size_t lead = strspn(s, " \t");
	if (lead)
		memmove(s, s + lead, n - lead + 1);
}

/* First line of a file, trimmed; -1 when unreadable or empty. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char *ok = fgets(buf, (int)len, f);
	fclose(f);
	if (!ok)
		return -1;
	trim(buf);
	return buf[0] ? 0 : -1;
}

static long read_long(const char *path)
{
	long v;
	return read_long_file(path, &v) == 0 ? v : -1;
}

/* Value after "name<spaces>:" on the first matching line of a /proc file. */
static int proc_field(const char *path, const char *name, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	char line[8192];
	size_t nl = strlen(name);
	int found = -1;
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, name, nl) != 0 || !strchr(line, ':'))
			continue;
		const char *p = line + nl;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != ':')
			continue;
		snprintf(buf, len, "%s", p + 1);
		trim(buf);
		found = buf[0] ? 0 : -1;
		break;
	}
	fclose(f);
	return found;
}

static void utc_now(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;
	if (gmtime_r(&t, &tm) && strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) > 0)
		return;
	snprintf(buf, len, UNKNOWN);
}

/* ---- running "<tool> --version" without a shell ---- */

static long elapsed_ms(double t0)
{
	return (long)((mono_s() - t0) * 1000);
}

static void child_exec(char **argv, int out_fd)
{
	int devnull = open("/dev/null", O_RDWR);
	if (devnull >= 0) {
		dup2(devnull, 0);
		dup2(devnull, 2);
	}
	dup2(out_fd, 1);
	execvp(argv[0], argv);
	_exit(127);
}

/* Read a child's stdout until EOF, a full buffer or the timeout. */
static size_t drain(int fd, char *out, size_t cap, double t0)
{
	size_t used = 0;
	while (used + 1 < cap) {
		long left = VERSION_TIMEOUT_MS - elapsed_ms(t0);
		if (left <= 0)
			break;
		struct pollfd pfd = { fd, POLLIN, 0 };
		int pr = poll(&pfd, 1, (int)left);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			break;
		ssize_t n = read(fd, out + used, cap - 1 - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		used += (size_t)n;
	}
	out[used] = '\0';
	return used;
}

/* First output line of "cmd --version"; -1 when it cannot run or says nothing. */
static int tool_version(const char *cmd, char *buf, size_t len)
{
	static char version_flag[] = "--version";
	char copy[1024], *argv[34];
	int argc = 0;
	snprintf(copy, sizeof copy, "%s", cmd);
	for (char *save = NULL, *tok = strtok_r(copy, " \t", &save); tok && argc < 32;
	     tok = strtok_r(NULL, " \t", &save))
		argv[argc++] = tok;
	if (argc == 0)
		return -1;
	argv[argc++] = version_flag;
	argv[argc] = NULL;

	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0)
		child_exec(argv, p[1]);
	close(p[1]);
	char out[4096];
	double t0 = mono_s();
	drain(p[0], out, sizeof out, t0);
	close(p[0]);
	int status = 0;
	pid_t w;
	while ((w = waitpid(pid, &status, WNOHANG)) == 0 && elapsed_ms(t0) < VERSION_TIMEOUT_MS) {
		struct timespec d = { 0, 5 * 1000 * 1000 };
		nanosleep(&d, NULL);
	}
	if (w == 0) {
		kill(pid, SIGKILL);  /* only our own child, stuck past the timeout */
		waitpid(pid, &status, 0);
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return -1;
	out[strcspn(out, "\n")] = '\0';
	trim(out);
	if (!out[0])
		return -1;
	str_copy(buf, len, out);
	return 0;
}

/* ---- pieces of the environment ---- */

static void format_cpu_list(const cpu_set_t *set, char *buf, size_t len, int *count, int *only)
{
	*count = 0;
	*only = -1;
	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, set))
			continue;
		int e = c;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
			e++;
		*count += e - c + 1;
		*only = c;
		/* Whole ranges only: a list longer than buf ends in ",…". */
		char one[32];
		if (e == c)
			snprintf(one, sizeof one, "%d", c);
		else
			snprintf(one, sizeof one, "%d-%d", c, e);
		text_add_item(buf, len, ",", one, ",\u2026");
		c = e;
	}
	if (*count != 1)
		*only = -1;
}

static void capture_cpu(env_info *env, int cpu)
{
	cpu_set_t set;
	int count = 0, only = -1;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof set, &set) == 0)
		format_cpu_list(&set, env->cpus_allowed, ENV_STR, &count, &only);
	if (!env->cpus_allowed[0])
		set_str(env->cpus_allowed, UNKNOWN);
	env->cpu = cpu >= 0 ? cpu : only;

	char buf[ENV_STR];
	if (proc_field("/proc/cpuinfo", "model name", buf, sizeof buf) == 0 ||
	    proc_field("/proc/cpuinfo", "Model", buf, sizeof buf) == 0 ||
	    proc_field("/proc/cpuinfo", "Hardware", buf, sizeof buf) == 0)
		set_str(env->processor, buf);
	else
		set_str(env->processor, UNKNOWN);
}

static void capture_clock(env_info *env)
{
	char path[256], buf[ENV_STR];
	int c = env->cpu >= 0 ? env->cpu : 0;

	snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/cpuinfo_max_freq", c);
	long khz = read_long(path);
	if (khz <= 0) {
		snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_max_freq", c);
		khz = read_long(path);
	}
	env->max_clock_khz = khz > 0 ? khz : -1;
	if (khz > 0)
		snprintf(env->max_clock, ENV_STR, "%.2f GHz", (double)khz / 1e6);
	else
		set_str(env->max_clock, UNKNOWN);

	snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", c);
	set_str(env->governor, read_line(path, buf, sizeof buf) == 0 ? buf : UNKNOWN);

	/* intel_pstate says "no turbo"; acpi-cpufreq and amd-pstate say "boost". */
	long v = read_long("/sys/devices/system/cpu/intel_pstate/no_turbo");
	if (v == 0 || v == 1) {
		set_str(env->turbo, v ? "off" : "on");
	} else {
		snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/boost", c);
		v = read_long("/sys/devices/system/cpu/cpufreq/boost");
		if (v != 0 && v != 1)
			v = read_long(path);
		set_str(env->turbo, v == 1 ? "on" : v == 0 ? "off" : UNKNOWN);
	}

	v = read_long("/sys/devices/system/cpu/smt/active");
	int have_control = read_line("/sys/devices/system/cpu/smt/control", buf, sizeof buf) == 0;
	set_str(env->smt_control, have_control ? buf : UNKNOWN);
	if (v == 0 || v == 1)
		set_str(env->smt, v ? "on" : "off");
	else if (have_control && strcmp(buf, "on") == 0)
		set_str(env->smt, "on");
	else if (have_control)
		set_str(env->smt, "off");  /* off, forceoff, notsupported, notimplemented */
	else
		set_str(env->smt, UNKNOWN);
}

static void capture_system(env_info *env)
{
	char buf[ENV_STR];
	long kib = -1;
	if (proc_field("/proc/meminfo", "MemTotal", buf, sizeof buf) == 0)
		kib = strtol(buf, NULL, 10);
	env->memory_mib = kib > 0 ? kib / 1024 : -1;
	if (env->memory_mib >= 0)
		fmt_bytes_binary(env->memory, ENV_STR, (double)kib * 1024);
	else
		set_str(env->memory, UNKNOWN);

	set_str(env->os, UNKNOWN);
	const char *files[] = { "/etc/os-release", "/usr/lib/os-release" };
	for (int i = 0; i < 2; i++) {
		FILE *f = fopen(files[i], "r");
		char line[512];
		if (!f)
			continue;
		while (fgets(line, sizeof line, f)) {
			if (strncmp(line, "PRETTY_NAME=", 12) != 0)
				continue;
			char *v = line + 12;
			trim(v);
			size_t n = strlen(v);
			if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
				v[n - 1] = '\0';
				v++;
			}
			set_str(env->os, v);
			break;
		}
		fclose(f);
		if (strcmp(env->os, UNKNOWN) != 0)
			break;
	}

	struct utsname u;
	if (uname(&u) == 0) {
		set_str(env->kernel, u.release);
		set_str(env->machine, u.machine);
	} else {
		set_str(env->kernel, UNKNOWN);
		set_str(env->machine, UNKNOWN);
	}

	if (read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource", buf, sizeof buf) == 0)
		set_str(env->clocksource, buf);
	else
		set_str(env->clocksource, UNKNOWN);

	char flags[8192];
	if (proc_field("/proc/cpuinfo", "flags", flags, sizeof flags) == 0) {
		int constant = 0, nonstop = 0;
		for (char *save = NULL, *t = strtok_r(flags, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
			constant |= strcmp(t, "constant_tsc") == 0;
			nonstop |= strcmp(t, "nonstop_tsc") == 0;
		}
		snprintf(env->tsc_flags, ENV_STR, "%s%s%s", constant ? "constant_tsc" : "",
		         constant && nonstop ? " " : "", nonstop ? "nonstop_tsc" : "");
		if (!env->tsc_flags[0])
			set_str(env->tsc_flags, "none");
	} else {
		set_str(env->tsc_flags, UNKNOWN);
	}
}

static void capture_toolchain(env_info *env, const char *compiler)
{
	char buf[ENV_STR];
	set_str(env->compiler, tool_version(compiler, buf, sizeof buf) == 0 ? buf : UNKNOWN);
	set_str(env->cmake, tool_version("cmake", buf, sizeof buf) == 0 ? buf : "not installed");
	set_str(env->pqprof_version, PACKAGE_VERSION);
}

static void capture_pmu(env_info *env)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.disabled = 1;

	char pbuf[32], *end;
	env->perf_event_paranoid = ENV_PARANOID_UNKNOWN;
	if (read_line("/proc/sys/kernel/perf_event_paranoid", pbuf, sizeof pbuf) == 0) {
		long p = strtol(pbuf, &end, 10);  /* -1 is a real value: "no restrictions" */
		if (end != pbuf && p > -100 && p < 100)
			env->perf_event_paranoid = (int)p;
	}
	set_str(env->uprobes, access("/sys/bus/event_source/devices/uprobe/type", F_OK) == 0 ? "yes" : "no");

	long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		char why[ENV_STR];
		counter_perf_failure_reason(errno, &a, why, sizeof why);
		set_str(env->hardware_pmu, "no");
		set_str(env->hardware_pmu_detail, why);
		set_str(env->rdpmc, "no");
		return;
	}
	set_str(env->hardware_pmu, "yes");
	set_str(env->hardware_pmu_detail, "cycles event opens (PERF_TYPE_HARDWARE, user space)");
	set_str(env->rdpmc, UNKNOWN);
	long ps = sysconf(_SC_PAGESIZE);
	size_t psz = ps > 0 ? (size_t)ps : 4096;
	void *page = mmap(NULL, psz, PROT_READ, MAP_SHARED, (int)fd, 0);
	if (page != MAP_FAILED) {
		ioctl((int)fd, PERF_EVENT_IOC_ENABLE, 0);
		volatile struct perf_event_mmap_page *pc = page;
		set_str(env->rdpmc, pc->cap_user_rdpmc ? "yes" : "no");
		ioctl((int)fd, PERF_EVENT_IOC_DISABLE, 0);
		munmap(page, psz);
	}
	close((int)fd);
}

int env_capture(env_info *env, int cpu, const char *compiler, pq_error *err)
{
	if (!env)
		return pq_fail(err, PQ_EINTERNAL, "env_capture: no environment to fill");
	if (cpu >= CPU_SETSIZE)
		return pq_fail(err, PQ_EUSAGE, "CPU %d is out of range (0..%d)", cpu, CPU_SETSIZE - 1);
	if (cpu >= 0 && access("/sys/devices/system/cpu", F_OK) == 0) {
		char path[64];
		snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d", cpu);
		if (access(path, F_OK) != 0)
			return pq_fail(err, PQ_EUSAGE, "CPU %d does not exist on this machine (%s missing)", cpu, path);
	}
	memset(env, 0, sizeof *env);
	utc_now(env->start_utc, ENV_STR);
	set_str(env->end_utc, UNKNOWN);
	capture_cpu(env, cpu < 0 ? -1 : cpu);
	capture_clock(env);
	capture_system(env);
	capture_toolchain(env, compiler && *compiler ? compiler : PQPROF_DEFAULT_SCHEME_CC);
	capture_pmu(env);
	const struct contain_caps *cc = contain_caps();
	char line[sizeof cc->summary + sizeof cc->missing + 4];
	snprintf(line, sizeof line, "%s%s%s%s", cc->summary, cc->missing[0] ? " (" : "", cc->missing,
	         cc->missing[0] ? ")" : "");
	str_copy(env->containment, ENV_STR, line); /* one line of the environment table */
	str_copy(env->runner_containment, ENV_STR, contain_runner_line());
	return 0;
}

void env_mark_end(env_info *env)
{
	utc_now(env->end_utc, ENV_STR);
}

/* ---- JSON ---- */

struct str_field {
	const char *key;
	size_t off;
};

#define F(name) { #name, offsetof(env_info, name) }
static const struct str_field str_fields[] = {
	F(processor), F(cpus_allowed), F(max_clock), F(governor), F(turbo), F(smt), F(smt_control),
	F(memory), F(os), F(kernel), F(machine), F(compiler), F(cmake), F(pqprof_version),
	F(start_utc), F(end_utc), F(hardware_pmu), F(hardware_pmu_detail), F(rdpmc), F(uprobes),
	F(clocksource), F(tsc_flags), F(containment), F(runner_containment),
};
#undef F
#define NSTR (sizeof str_fields / sizeof str_fields[0])

const char *const *env_json_keys(void)
{
	static const char *const keys[] = {
		"processor", "cpus_allowed", "max_clock", "governor", "turbo", "smt", "smt_control",
		"memory", "os", "kernel", "machine", "compiler", "cmake", "pqprof_version",
		"start_utc", "end_utc", "hardware_pmu", "hardware_pmu_detail", "rdpmc", "uprobes",
		"clocksource", "tsc_flags", "containment", "runner_containment",
		"cpu", "max_clock_khz", "memory_mib", "perf_event_paranoid", NULL,
	};
	return keys;
}

static json_t *int_or(long v, int known, const char *otherwise)
{
	return known ? json_integer(v) : json_string(otherwise);
}

json_t *env_to_json(const env_info *env)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	int bad = 0;
	for (size_t i = 0; i < NSTR; i++)
		bad |= json_object_set_new(o, str_fields[i].key,
		                           json_string((const char *)env + str_fields[i].off));
	bad |= json_object_set_new(o, "cpu", int_or(env->cpu, env->cpu >= 0, "not pinned"));
	bad |= json_object_set_new(o, "max_clock_khz", int_or(env->max_clock_khz, env->max_clock_khz > 0, UNKNOWN));
	bad |= json_object_set_new(o, "memory_mib", int_or(env->memory_mib, env->memory_mib >= 0, UNKNOWN));
	bad |= json_object_set_new(o, "perf_event_paranoid",
	                           int_or(env->perf_event_paranoid,
	                                  env->perf_event_paranoid != ENV_PARANOID_UNKNOWN, UNKNOWN));
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int env_from_json(const json_t *obj, env_info *env, pq_error *err)
{
	if (!json_is_object(obj))
		return pq_fail(err, PQ_EINPUT, "environment record is not a JSON object");
	memset(env, 0, sizeof *env);
	for (size_t i = 0; i < NSTR; i++) {
		const json_t *v = json_object_get(obj, str_fields[i].key);
		set_str((char *)env + str_fields[i].off, json_is_string(v) ? json_string_value(v) : UNKNOWN);
	}
	env->cpu = (int)jp_int(obj, "cpu", -1);
	env->max_clock_khz = (long)jp_int(obj, "max_clock_khz", -1);
	env->memory_mib = (long)jp_int(obj, "memory_mib", -1);
	env->perf_event_paranoid = (int)jp_int(obj, "perf_event_paranoid", ENV_PARANOID_UNKNOWN);
	return 0;
}

/* ---- warnings and table ---- */

static int add_warning(char w[][ENV_WARNING_LEN], int n, int max, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int add_warning(char w[][ENV_WARNING_LEN], int n, int max, const char *fmt, ...)
{
	if (n >= max)
		return n;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(w[n], ENV_WARNING_LEN, fmt, ap);
	va_end(ap);
	return n + 1;
}

int env_warnings(const env_info *env, char w[][ENV_WARNING_LEN], int max)
{
	int n = 0;
	if (strcmp(env->turbo, "on") == 0)
		n = add_warning(w, n, max, "turbo boost is on: the clock follows load and temperature");
	if (strcmp(env->governor, UNKNOWN) != 0 && strcmp(env->governor, "performance") != 0)
		n = add_warning(w, n, max, "cpufreq governor is '%s', not 'performance'", env->governor);
	if (strcmp(env->smt, "on") == 0)
		n = add_warning(w, n, max, "SMT is on: a sibling hardware thread can share the measured core");
	if (strcmp(env->hardware_pmu, "yes") != 0)
		n = add_warning(w, n, max, "no cycle counter (%s): figures are TSC ticks or ns, not cycles",
		                env->hardware_pmu_detail);
	if (env->perf_event_paranoid != ENV_PARANOID_UNKNOWN && env->perf_event_paranoid > 2 && geteuid() != 0)
		n = add_warning(w, n, max, "perf_event_paranoid is %d: perf events need CAP_PERFMON or a value <= 2",
		                env->perf_event_paranoid);
	if (env->cpu < 0)
		n = add_warning(w, n, max, "not pinned to one CPU (allowed: %s): use --cpu N or taskset",
		                env->cpus_allowed);
	return n;
}

static int add_row(env_row *rows, int n, int max, const char *item, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int add_row(env_row *rows, int n, int max, const char *item, const char *fmt, ...)
{
	if (n >= max)
		return n;
	va_list ap;
	snprintf(rows[n].item, sizeof rows[n].item, "%s", item);
	va_start(ap, fmt);
	vsnprintf(rows[n].value, sizeof rows[n].value, fmt, ap);
	va_end(ap);
	return n + 1;
}

int env_table(const env_info *env, env_row *rows, int max)
{
	int n = 0;
	char where[ENV_STR + 32];
	if (env->cpu >= 0)
		snprintf(where, sizeof where, "CPU %d, one core", env->cpu);
	else
		snprintf(where, sizeof where, "not pinned: CPUs %.*s", ENV_STR, env->cpus_allowed);
	n = add_row(rows, n, max, "processor", "%s (%s)", env->processor, where);
	n = add_row(rows, n, max, "clock", "max %s, governor %s, turbo %s, SMT %s",
	            env->max_clock, env->governor, env->turbo, env->smt);
	n = add_row(rows, n, max, "memory", "%s", env->memory);
	n = add_row(rows, n, max, "OS / kernel", "%s / %s", env->os, env->kernel);
	n = add_row(rows, n, max, "compiler / build tool", "%s / %s", env->compiler, env->cmake);
	n = add_row(rows, n, max, "campaign start / end (UTC)", "%s / %s", env->start_utc, env->end_utc);
	n = add_row(rows, n, max, "hardware PMU", "%s: %s", env->hardware_pmu, env->hardware_pmu_detail);
	char paranoid[32];
	if (env->perf_event_paranoid == ENV_PARANOID_UNKNOWN)
		snprintf(paranoid, sizeof paranoid, UNKNOWN);
	else
		snprintf(paranoid, sizeof paranoid, "%d", env->perf_event_paranoid);
	n = add_row(rows, n, max, "perf access", "rdpmc %s, perf_event_paranoid %s, uprobes %s",
	            env->rdpmc, paranoid, env->uprobes);
	n = add_row(rows, n, max, "time sources", "clocksource %s, TSC %s", env->clocksource, env->tsc_flags);
	n = add_row(rows, n, max, "machine", "%s", env->machine);
	n = add_row(rows, n, max, "pqprof", "%s", env->pqprof_version);
	n = add_row(rows, n, max, "containment", "%s", env->containment);
	n = add_row(rows, n, max, "runner containment", "%s", env->runner_containment);
	return n;
}
