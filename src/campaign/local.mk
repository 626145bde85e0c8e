# campaign: scheme descriptors, orchestration, state and resume.
libpqprof_a_SOURCES += \
	src/campaign/scheme_desc.c src/campaign/scheme_desc.h
