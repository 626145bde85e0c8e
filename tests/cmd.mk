# command layer tests (included from tests/local.mk).
check_PROGRAMS += tests/test_cmd
TESTS += tests/test_cmd
tests_test_cmd_SOURCES = tests/test_cmd.c
tests_test_cmd_CFLAGS = $(AM_CFLAGS) $(DEP_CFLAGS) $(CHECK_CFLAGS)
tests_test_cmd_LDADD = libpqprof_cmd.a libpqprof.a $(DEP_LIBS) $(CHECK_LIBS)
# the option vocabulary: help, old spellings, and doc/pqprof.1's OPTIONS
# section against the option tables (make update-man rewrites it).
TESTS += tests/e2e/options.sh
EXTRA_DIST += doc/man-options.sh

update-man: pqprof$(EXEEXT)
	$(SHELL) $(srcdir)/doc/man-options.sh ./pqprof$(EXEEXT) $(srcdir)/doc/pqprof.1 >$(srcdir)/doc/pqprof.1.new && \
	mv $(srcdir)/doc/pqprof.1.new $(srcdir)/doc/pqprof.1
.PHONY: update-man
