# runner: the child executable and its parent-side supervisor.
libpqprof_a_SOURCES += \
	src/runner/child.c src/runner/child.h \
	src/runner/blame.c src/runner/blame.h \
	src/runner/op_ctx.c src/runner/op_ctx.h \
	src/runner/runner.h src/runner/jobs.h \
	src/runner/bench.c src/runner/bench.h \
	src/runner/kat_gate.c src/runner/kat_gate.h \
	src/runner/mem_run.c src/runner/mem_run.h

pqprof_runner_SOURCES = src/runner/runner_main.c src/runner/job_bench.c src/runner/job_kat.c src/runner/job_sizes.c
pqprof_runner_CFLAGS = $(AM_CFLAGS) $(DEP_CFLAGS)
# -rdynamic: loaded instances bind to the runner's malloc hooks.
pqprof_runner_LDFLAGS = $(AM_LDFLAGS) -rdynamic
pqprof_runner_LDADD = libpqprof.a $(DEP_LIBS)
