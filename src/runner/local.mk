# runner: the child side, the pqprof-runner executable and the jobs it runs.
# op_ctx is library code: the parent side names operations with it, and
# the memory probe's unit test drives instances through it.
libpqprof_a_SOURCES += \
	src/runner/op_ctx.c src/runner/op_ctx.h \
	src/runner/runner.h src/runner/jobs.h

pqprof_runner_SOURCES = src/runner/runner_main.c src/runner/runner_events.c src/runner/runner_faults.c \
	src/runner/job_info.c src/runner/job_bench.c src/runner/job_kat.c src/runner/job_sizes.c \
	src/runner/job_profile.c src/runner/job_count.c src/runner/job_op.c \
	src/runner/scheme_output.c src/runner/scheme_output.h src/runner/job_keys.c src/runner/job_paired.c src/runner/ip_sampler.c src/runner/ip_sampler.h
pqprof_runner_CFLAGS = $(AM_CFLAGS) $(DEP_CFLAGS)
# -rdynamic: loaded instances bind to the runner's malloc hooks.
pqprof_runner_LDFLAGS = $(AM_LDFLAGS) -rdynamic
pqprof_runner_LDADD = libpqprof.a $(DEP_LIBS)
