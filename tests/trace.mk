# trace module tests: the Check suite, and the fuzz harness replaying its
# seed corpus (built as a plain program with PQ_FUZZ_STANDALONE).
check_PROGRAMS += tests/test_trace
TESTS += tests/test_trace
tests_test_trace_SOURCES = tests/test_trace.c
tests_test_trace_CFLAGS = $(AM_CFLAGS) $(DEP_CFLAGS) $(CHECK_CFLAGS)
tests_test_trace_LDADD = libpqprof.a $(DEP_LIBS) $(CHECK_LIBS)

check_PROGRAMS += tests/fuzz/fuzz_trace_replay
TESTS += tests/fuzz/fuzz_trace_replay
tests_fuzz_fuzz_trace_replay_SOURCES = tests/fuzz/fuzz_trace.c tests/fuzz/fuzz_replay.h
tests_fuzz_fuzz_trace_replay_CPPFLAGS = $(AM_CPPFLAGS) -DPQ_FUZZ_STANDALONE
tests_fuzz_fuzz_trace_replay_CFLAGS = $(AM_CFLAGS) $(DEP_CFLAGS)
tests_fuzz_fuzz_trace_replay_LDADD = libpqprof.a $(DEP_LIBS)

EXTRA_DIST += \
	tests/fuzz/corpus/trace/valid_small.pqt \
	tests/fuzz/corpus/trace/valid_frames.pqt \
	tests/fuzz/corpus/trace/valid_v2.pqt \
	tests/fuzz/corpus/trace/valid_v21.pqt \
	tests/fuzz/corpus/trace/incomplete.pqt \
	tests/fuzz/corpus/trace/raw_small.bin \
	tests/fuzz/corpus/trace/raw_v2.bin \
	tests/fuzz/corpus/trace/raw_frames.bin

# The libFuzzer build: "make fuzz-trace" (needs clang), then
#   ./tests/fuzz/fuzz_trace -max_len=16384 tests/fuzz/corpus/trace
if HAVE_CLANG
FUZZ_TRACE_SRCS = tests/fuzz/fuzz_trace.c src/trace/trace_reader.c \
	src/core/pq_error.c src/core/text_buf.c src/core/atomic_file.c src/core/grow.c src/core/fixed_str.c \
	src/core/interrupt.c
fuzz-trace: $(FUZZ_TRACE_SRCS)
	$(CLANG) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined $(AM_CPPFLAGS) $(ZSTD_CFLAGS) \
		$(JANSSON_CFLAGS) $(addprefix $(srcdir)/,$(FUZZ_TRACE_SRCS)) \
		$(ZSTD_LIBS) $(JANSSON_LIBS) -o tests/fuzz/fuzz_trace
CLEANFILES += tests/fuzz/fuzz_trace
endif
.PHONY: fuzz-trace

# "pqprof trace" end to end (skips until the command is registered).
TESTS += tests/e2e/trace.sh
EXTRA_DIST += tests/e2e/trace.sh
