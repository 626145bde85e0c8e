# memory probe: per-operation baseline/peak RSS, stack high-water and heap
# counts.  memprobe is library code; the "mem" job and the malloc wrappers
# belong to the runner executable only (a library must not replace malloc
# for whoever links it).  Include after src/runner/local.mk, which defines
# pqprof_runner_SOURCES and links the runner with -rdynamic.
libpqprof_a_SOURCES += \
	src/runner/memprobe.c src/runner/memprobe.h \
	src/runner/heap_hooks.h
pqprof_runner_SOURCES += src/runner/job_mem.c src/runner/heap_hooks.c
