# measure module: sources and tests.
libpqprof_a_SOURCES += \
	src/measure/counter.c src/measure/counter.h \
	src/measure/stats.c src/measure/stats.h \
	src/measure/paired_stats.c src/measure/paired_stats.h \
	src/measure/verdict.c src/measure/verdict.h \
	src/measure/calibrate.c src/measure/calibrate.h \
	src/measure/env.c src/measure/env.h \
	src/measure/contention.c src/measure/contention.h
