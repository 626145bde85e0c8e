# core: errors, options, atomic files, the helpers every module shares, and
# containment of untrusted processes.
libpqprof_a_SOURCES += \
	src/core/pq_error.c src/core/pq_error.h \
	src/core/options.c src/core/options.h src/core/options_help.c src/core/options_help.h \
	src/core/atomic_file.c src/core/atomic_file.h \
	src/core/grow.c src/core/grow.h \
	src/core/json_file.c src/core/json_file.h \
	src/core/jpath.c src/core/jpath.h \
	src/core/safe_name.c src/core/safe_name.h \
	src/core/ops.c src/core/ops.h \
	src/core/digest.c src/core/digest.h \
	src/core/xml_escape.c src/core/xml_escape.h \
	src/core/fixed_str.c src/core/fixed_str.h \
	src/core/sigsafe.c src/core/sigsafe.h \
	src/core/units.c src/core/units.h \
	src/core/contain.c src/core/contain.h \
	src/core/interrupt.c src/core/interrupt.h \
	src/core/text_buf.c src/core/text_buf.h \
	src/core/clock.c src/core/clock.h \
	src/core/path_name.c src/core/path_name.h \
	src/core/reader_view.c src/core/reader_view.h
# paths: the runner and the data directory, relative to the running binary.
libpqprof_a_SOURCES += src/core/paths.c src/core/paths.h
AM_CPPFLAGS += -DPQ_PREFIX='"$(prefix)"' -DPQ_EXEC_PREFIX='"$(exec_prefix)"' -DPQ_BINDIR='"$(bindir)"'
