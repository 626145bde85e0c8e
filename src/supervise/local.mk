# supervise: the parent side of the runner.  Spawning pqprof-runner under
# limits and a time limit, reading its events, verdicts from how it ended,
# the instance descriptor (describe), and the parent halves of bench, kat,
# mem and sizes.
libpqprof_a_SOURCES += \
	src/supervise/child.c src/supervise/child.h \
	src/supervise/describe.c src/supervise/describe.h \
	src/supervise/bench.c src/supervise/bench.h src/supervise/paired.c src/supervise/paired.h src/supervise/paired_functions.c src/supervise/paired_functions.h \
	src/supervise/kat_gate.c src/supervise/kat_gate.h \
	src/supervise/mem_run.c src/supervise/mem_run.h \
	src/supervise/blame.c src/supervise/blame.h \
	src/supervise/key_origin.c src/supervise/key_origin.h \
	src/supervise/output_log.c src/supervise/output_log.h
