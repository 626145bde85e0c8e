# tests: symbolizer and ELF size suite.  The fixtures are compiled by the
# test itself (with $(CC), and objcopy or $OBJCOPY) into a temporary directory.
check_PROGRAMS += tests/test_symbols
TESTS += tests/test_symbols
tests_test_symbols_SOURCES = tests/test_symbols.c
tests_test_symbols_CFLAGS = $(AM_CFLAGS) $(DEP_CFLAGS) $(CHECK_CFLAGS)
tests_test_symbols_LDADD = libpqprof.a $(DEP_LIBS) $(CHECK_LIBS)
EXTRA_DIST += \
	tests/fixtures/symbols/libsym.c \
	tests/fixtures/symbols/asmroutine.S \
	tests/fixtures/symbols/libbig.c \
	tests/fixtures/families/sha2.c \
	tests/fixtures/families/keccak_round.S \
	tests/fixtures/callers/placeholder.c \
	tests/fixtures/callers/glue.c \
	tests/fixtures/callers/scheme.c \
	tests/fixtures/callers/inline_hash.h \
	tests/fixtures/symbols/libplt.c
AM_TESTS_ENVIRONMENT += CC='$(CC)'; export CC;
