# Fuzz harnesses for the readers of untrusted input (included from
# tests/local.mk).  Two builds of each harness in tests/fuzz/:
#  - "make check": a plain gcc replay program (-DPQ_FUZZ_STANDALONE) that
#    feeds the seed corpus and every crash regression file to the harness
#    once (tests/fuzz/corpus/<h>/, tests/fuzz/regressions/<h>/);
#  - "make fuzz": libFuzzer binaries built with clang and ASan+UBSan, each
#    run for FUZZ_SECONDS (default 60) on a writable copy of its corpus.
#      make fuzz FUZZ_SECONDS=600 FUZZ_HARNESSES="kat_file manifest" FUZZ_KEEP=1
#    A crash leaves its input in tests/fuzz/artifacts/; once the reader is
#    fixed, copy it into tests/fuzz/regressions/<h>/ so check replays it.
# The trace harness (fuzz_trace.c) has its replay test in tests/trace.mk;
# it is listed here only so that "make fuzz" runs it with the others.

FUZZ_REPLAY_HARNESSES = kat_file manifest records record_set elf

check_PROGRAMS += tests/fuzz/fuzz_kat_file_replay tests/fuzz/fuzz_manifest_replay \
	tests/fuzz/fuzz_records_replay tests/fuzz/fuzz_record_set_replay tests/fuzz/fuzz_elf_replay
TESTS += tests/fuzz/fuzz_kat_file_replay tests/fuzz/fuzz_manifest_replay \
	tests/fuzz/fuzz_records_replay tests/fuzz/fuzz_record_set_replay tests/fuzz/fuzz_elf_replay

tests_fuzz_fuzz_kat_file_replay_SOURCES = tests/fuzz/fuzz_kat_file.c tests/fuzz/fuzz_replay.h
tests_fuzz_fuzz_kat_file_replay_CPPFLAGS = $(AM_CPPFLAGS) -DPQ_FUZZ_STANDALONE
tests_fuzz_fuzz_kat_file_replay_CFLAGS = $(AM_CFLAGS) $(DEP_CFLAGS)
tests_fuzz_fuzz_kat_file_replay_LDADD = libpqprof.a $(DEP_LIBS)

tests_fuzz_fuzz_manifest_replay_SOURCES = tests/fuzz/fuzz_manifest.c tests/fuzz/fuzz_replay.h
tests_fuzz_fuzz_manifest_replay_CPPFLAGS = $(AM_CPPFLAGS) -DPQ_FUZZ_STANDALONE
tests_fuzz_fuzz_manifest_replay_CFLAGS = $(AM_CFLAGS) $(DEP_CFLAGS)
tests_fuzz_fuzz_manifest_replay_LDADD = libpqprof.a $(DEP_LIBS)

tests_fuzz_fuzz_records_replay_SOURCES = tests/fuzz/fuzz_records.c tests/fuzz/fuzz_replay.h
tests_fuzz_fuzz_records_replay_CPPFLAGS = $(AM_CPPFLAGS) -DPQ_FUZZ_STANDALONE
tests_fuzz_fuzz_records_replay_CFLAGS = $(AM_CFLAGS) $(DEP_CFLAGS)
tests_fuzz_fuzz_records_replay_LDADD = libpqprof.a $(DEP_LIBS)

tests_fuzz_fuzz_record_set_replay_SOURCES = tests/fuzz/fuzz_record_set.c tests/fuzz/fuzz_replay.h
tests_fuzz_fuzz_record_set_replay_CPPFLAGS = $(AM_CPPFLAGS) -DPQ_FUZZ_STANDALONE
tests_fuzz_fuzz_record_set_replay_CFLAGS = $(AM_CFLAGS) $(DEP_CFLAGS)
tests_fuzz_fuzz_record_set_replay_LDADD = libpqprof.a $(DEP_LIBS)

# The readers of a submitter's library: symbolizer (libdwfl), image sizes
# (libelf), run path, uprobe offsets, the disassembler's branch walk (capstone).
tests_fuzz_fuzz_elf_replay_SOURCES = tests/fuzz/fuzz_elf.c tests/fuzz/fuzz_replay.h
tests_fuzz_fuzz_elf_replay_CPPFLAGS = $(AM_CPPFLAGS) -DPQ_FUZZ_STANDALONE
tests_fuzz_fuzz_elf_replay_CFLAGS = $(AM_CFLAGS) $(DEP_CFLAGS)
tests_fuzz_fuzz_elf_replay_LDADD = libpqprof.a $(DEP_LIBS)

EXTRA_DIST += tests/fuzz/corpus/elf tests/fuzz/corpus/record_set tests/fuzz/corpus/kat_file tests/fuzz/corpus/manifest \
	tests/fuzz/corpus/records tests/fuzz/regressions

FUZZ_SECONDS = 60
FUZZ_HARNESSES = $(FUZZ_REPLAY_HARNESSES) trace
# Extra libFuzzer options, e.g. FUZZ_FLAGS=-jobs=4 or -dict=FILE.
FUZZ_FLAGS =
FUZZ_BINS = $(patsubst %,tests/fuzz/bin/fuzz_%,$(FUZZ_HARNESSES))

if HAVE_CLANG
# The whole library, compiled again with clang and coverage instrumentation
# (objects from gcc would give libFuzzer no coverage to steer by).  An
# archive, so a harness links only the objects it reaches.
FUZZ_CFLAGS = -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined
FUZZ_LIB_SRCS = $(filter %.c,$(libpqprof_a_SOURCES) $(nodist_libpqprof_a_SOURCES))
FUZZ_LIB_OBJS = $(patsubst %.c,tests/fuzz/obj/%.o,$(FUZZ_LIB_SRCS))

tests/fuzz/obj/%.o: %.c config.h
	@mkdir -p $(@D)
	$(AM_V_CC)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(DEFS) $(AM_CPPFLAGS) \
		$(DEP_CFLAGS) -w -c $< -o $@

tests/fuzz/libpqprof-fuzz.a: $(FUZZ_LIB_OBJS)
	$(AM_V_AR)rm -f $@ && $(AR) cr $@ $(FUZZ_LIB_OBJS) && $(RANLIB) $@

tests/fuzz/bin/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/libpqprof-fuzz.a
	@mkdir -p $(@D)
	$(AM_V_CCLD)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer $(DEFS) $(AM_CPPFLAGS) $(DEP_CFLAGS) \
		$< tests/fuzz/libpqprof-fuzz.a $(DEP_LIBS) -o $@

fuzz-build: $(BUILT_SOURCES) $(FUZZ_BINS)

# Each harness in turn, on a scratch copy of its corpus plus its
# regressions; crashes go to tests/fuzz/artifacts/.  The scratch copy, with
# the new inputs libFuzzer found, is removed unless FUZZ_KEEP=1.
FUZZ_KEEP =
fuzz: fuzz-build
	@mkdir -p tests/fuzz/artifacts; failed=; \
	for h in $(FUZZ_HARNESSES); do \
	  work=`mktemp -d "$${TMPDIR:-/tmp}/pqprof-fuzz-$$h.XXXXXX"` || exit 1; \
	  cp -R $(srcdir)/tests/fuzz/corpus/$$h/. "$$work/"; \
	  if test -d $(srcdir)/tests/fuzz/regressions/$$h; then \
	    cp -R $(srcdir)/tests/fuzz/regressions/$$h/. "$$work/"; fi; \
	  echo "fuzz: $$h for $(FUZZ_SECONDS) s (corpus copy: $$work)"; \
	  if tests/fuzz/bin/fuzz_$$h -max_total_time=$(FUZZ_SECONDS) -max_len=16384 \
	       -timeout=10 -print_final_stats=1 \
	       -artifact_prefix=tests/fuzz/artifacts/$$h- $(FUZZ_FLAGS) "$$work" \
	       > tests/fuzz/artifacts/$$h.log 2>&1; then \
	    echo "fuzz: $$h: no crash (`ls "$$work" | wc -l` inputs in the corpus copy; log tests/fuzz/artifacts/$$h.log)"; \
	  else \
	    echo "fuzz: $$h: FAILED, see tests/fuzz/artifacts/$$h.log"; \
	    tail -n 30 tests/fuzz/artifacts/$$h.log; failed="$$failed $$h"; \
	  fi; \
	  if test -z "$(FUZZ_KEEP)"; then rm -rf "$$work"; fi; \
	done; \
	if test -n "$$failed"; then \
	  echo "fuzz: crashes in:$$failed (inputs in tests/fuzz/artifacts/)"; exit 1; fi
CLEANFILES += $(FUZZ_LIB_OBJS) tests/fuzz/libpqprof-fuzz.a $(FUZZ_BINS)
else
fuzz fuzz-build:
	@echo "make fuzz needs clang with libFuzzer (configure found no clang)"; exit 1
endif
.PHONY: fuzz fuzz-build
