# record: one producer per record kind, and where records are stored.
libpqprof_a_SOURCES += \
	src/record/records.h src/record/record_path.c \
	src/record/record_build.c src/record/record_kat.c src/record/record_bench.c \
	src/record/record_mem.c
