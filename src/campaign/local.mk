# campaign: scheme descriptors, orchestration, state and resume.
libpqprof_a_SOURCES += \
	src/campaign/scheme_desc.c src/campaign/scheme_desc.h \
	src/campaign/campaign.c src/campaign/campaign.h \
	src/campaign/steps.c src/campaign/steps.h \
	src/campaign/merge.c src/campaign/merge.h
libpqprof_a_SOURCES += src/campaign/leak_step.c src/campaign/leak_step.h
