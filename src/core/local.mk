# core: errors, options, atomic files.
libpqprof_a_SOURCES += \
	src/core/pq_error.c src/core/pq_error.h \
	src/core/options.c src/core/options.h \
	src/core/atomic_file.c src/core/atomic_file.h \
	src/core/grow.c src/core/grow.h \
	src/core/interrupt.c src/core/interrupt.h \
	src/core/label.c src/core/label.h
