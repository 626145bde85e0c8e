# cmd: one file per subcommand plus the dispatch table.
pqprof_SOURCES += src/cmd/command_table.c src/cmd/command_table.h \
	src/cmd/cmd_common.c src/cmd/cmd_common.h \
	src/cmd/cmd_build.c src/cmd/cmd_info.c src/cmd/cmd_bench.c src/cmd/cmd_env.c \
	src/cmd/cmd_kat.c src/cmd/cmd_mem.c src/cmd/cmd_sizes.c src/cmd/cmd_manifest.c \
	src/cmd/cmd_trace.c src/cmd/cmd_run.c src/cmd/cmd_merge.c src/cmd/cmd_compare.c
# profile, report and export (the sampling profiler's commands).
pqprof_SOURCES += src/cmd/cmd_profile.c src/cmd/cmd_report.c src/cmd/cmd_report.h \
	src/cmd/cmd_export.c src/cmd/cmd_export.h
# schemes: what run finds by name, and where pqprof's files are.
pqprof_SOURCES += src/cmd/cmd_schemes.c src/cmd/cmd_slurm.c src/cmd/cmd_outdir.c src/cmd/cmd_outdir.h
