# profile module: sources and tests.
# symbolizer (profile) and elf_size (measure, listed here to keep
# src/measure/local.mk to its owner).
libpqprof_a_SOURCES += \
	src/profile/symbolizer.c src/profile/symbolizer.h \
	src/measure/elf_size.c src/measure/elf_size.h
# sampling, unwinding, function groups and uprobe call counts (the runner
# jobs "profile" and "count" that use them are in src/runner/).
libpqprof_a_SOURCES += \
	src/profile/sampler.c src/profile/sampler.h \
	src/profile/unwind.c src/profile/unwind.h \
	src/profile/groups.c src/profile/groups.h \
	src/profile/families.c src/profile/families.h \
	src/profile/elf_code.c src/profile/elf_code.h \
	src/profile/uprobe_count.c src/profile/uprobe_count.h
# profile recording (parent side), trace analysis and the text report.
libpqprof_a_SOURCES += \
	src/profile/profile_run.c src/profile/profile_run.h \
	src/profile/analysis.c src/profile/analysis.h src/profile/analysis_model.h \
	src/profile/analysis_record.c \
	src/profile/profile_export.c src/profile/profile_export.h \
	src/profile/profile_text.c src/profile/profile_text.h
# annotate: one function down to instructions, lines, blocks and loops
# (capstone disassembly of the library file, joined with the trace).
libpqprof_a_SOURCES += \
	src/profile/code_flow.c src/profile/code_flow.h \
	src/profile/disasm.c src/profile/disasm.h \
	src/profile/annotate.h src/profile/analysis_annotate.c \
	src/profile/annotate_view.c src/profile/annotate_view.h
