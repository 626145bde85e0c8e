# cmd: one file per subcommand, the dispatch table and how a command is
# run.  A library of their own so tests/test_cmd can link the table.
noinst_LIBRARIES += libpqprof_cmd.a
libpqprof_cmd_a_CFLAGS = $(AM_CFLAGS) $(DEP_CFLAGS)
libpqprof_cmd_a_SOURCES = src/cmd/commands.h \
	src/cmd/command_table.c src/cmd/command_run.c src/cmd/cmd_help.c \
	src/cmd/cmd_common.c src/cmd/cmd_common.h \
	src/cmd/cmd_build.c src/cmd/cmd_info.c src/cmd/cmd_bench.c src/cmd/cmd_env.c \
	src/cmd/cmd_kat.c src/cmd/cmd_mem.c src/cmd/cmd_sizes.c src/cmd/cmd_manifest.c \
	src/cmd/cmd_trace.c src/cmd/cmd_run.c src/cmd/cmd_merge.c src/cmd/cmd_compare.c
# profile, report and export (the sampling profiler's commands).
libpqprof_cmd_a_SOURCES += src/cmd/cmd_profile.c src/cmd/cmd_report.c src/cmd/cmd_report.h \
	src/cmd/cmd_export.c src/cmd/cmd_annotate.c
# schemes and slurm: what run finds by name, where pqprof's files are, and
# campaigns as Slurm job arrays; cmd_outdir: announced output directories.
libpqprof_cmd_a_SOURCES += src/cmd/cmd_leak.c src/cmd/cmd_schemes.c src/cmd/cmd_slurm.c src/cmd/cmd_outdir.c src/cmd/cmd_outdir.h
# scan: the instances of a whole submission package, shared with run --dry-run.
libpqprof_cmd_a_SOURCES += src/cmd/cmd_scan.c src/cmd/cmd_scan.h
