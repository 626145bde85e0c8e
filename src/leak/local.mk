# leak: the timing-leak smoke test (fixed-vs-random Welch t-tests), its
# parent side, the |t| plot and the runner job.
libpqprof_a_SOURCES += \
	src/leak/leak_stats.c src/leak/leak_stats.h \
	src/leak/leak_classes.c src/leak/leak_classes.h
pqprof_runner_SOURCES += src/runner/job_leak.c
libpqprof_a_SOURCES += \
	src/leak/leak_run.c src/leak/leak_run.h \
	src/leak/leak_chart.c src/leak/leak_chart.h
