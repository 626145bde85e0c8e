# trace module: .pqt writer and reader, folded profile model, exporters
# and their format table, flame graphs.  Tests are in tests/trace.mk.
libpqprof_a_SOURCES += \
	src/trace/trace_format.h \
	src/trace/trace_writer.c src/trace/trace_writer.h \
	src/trace/trace_reader.c src/trace/trace_reader.h \
	src/trace/strmap.c src/trace/strmap.h \
	src/trace/folded.c src/trace/folded.h \
	src/trace/export.c src/trace/export.h \
	src/trace/export_format.c src/trace/export_format.h \
	src/trace/flamegraph.c src/trace/flamegraph.h
EXTRA_DIST += doc/trace-format.md
