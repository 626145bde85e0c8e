# memory probe: Check suite (fake instance compiled in) and the NIST-style
# fixture trees for end-to-end runs of `pqprof mem`.  The suite links the
# malloc wrappers itself, with -rdynamic as the runner does.
check_PROGRAMS += tests/test_memprobe
TESTS += tests/test_memprobe
tests_test_memprobe_SOURCES = tests/test_memprobe.c src/runner/heap_hooks.c
tests_test_memprobe_CFLAGS = $(AM_CFLAGS) $(DEP_CFLAGS) $(CHECK_CFLAGS)
tests_test_memprobe_LDFLAGS = $(AM_LDFLAGS) -rdynamic
tests_test_memprobe_LDADD = libpqprof.a $(DEP_LIBS) $(CHECK_LIBS)
EXTRA_DIST += \
	tests/fixtures/mem/big_heap/api.h tests/fixtures/mem/big_heap/rng.h \
	tests/fixtures/mem/big_heap/sign.c \
	tests/fixtures/mem/big_stack/api.h tests/fixtures/mem/big_stack/rng.h \
	tests/fixtures/mem/big_stack/sign.c \
	tests/fixtures/mem/big_static/api.h tests/fixtures/mem/big_static/rng.h \
	tests/fixtures/mem/big_static/sign.c
