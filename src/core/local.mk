# core: errors, options, atomic files.
libpqprof_a_SOURCES += \
	src/core/pq_error.c src/core/pq_error.h \
	src/core/options.c src/core/options.h \
	src/core/atomic_file.c src/core/atomic_file.h \
	src/core/grow.c src/core/grow.h
# paths: the runner and the data directory, relative to the running binary.
libpqprof_a_SOURCES += src/core/paths.c src/core/paths.h
AM_CPPFLAGS += -DPQ_PREFIX='"$(prefix)"' -DPQ_EXEC_PREFIX='"$(exec_prefix)"' -DPQ_BINDIR='"$(bindir)"'
