# kat module tests (included from tests/local.mk).
check_PROGRAMS += tests/test_kat
TESTS += tests/test_kat
tests_test_kat_SOURCES = tests/test_kat.c
tests_test_kat_CFLAGS = $(AM_CFLAGS) $(DEP_CFLAGS) $(CHECK_CFLAGS)
tests_test_kat_LDADD = libpqprof.a $(DEP_LIBS) $(CHECK_LIBS)
EXTRA_DIST += \
	tests/data/kat/KAT_SIG_Template-1.txt \
	tests/data/kat/KAT_SIG_Toy-1.txt \
	tests/data/kat/PQCsignKAT_truncated.rsp \
	tests/data/kat/kat.sha256

# A MISMATCH explained record by record (a spliced two-level file).
TESTS += tests/e2e/kat_forensics.sh
EXTRA_DIST += tests/e2e/kat_forensics.sh
