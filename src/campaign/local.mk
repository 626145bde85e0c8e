# campaign: scheme descriptors, orchestration, state and resume.
libpqprof_a_SOURCES += \
	src/campaign/scheme_desc.c src/campaign/scheme_desc.h \
	src/campaign/campaign.c src/campaign/campaign.h \
	src/campaign/campaign_lock.c src/campaign/campaign_lock.h \
	src/campaign/steps.c src/campaign/steps.h \
	src/campaign/merge.c src/campaign/merge.h
# merge_systems: merge by system, never pooling different machines.
libpqprof_a_SOURCES += src/campaign/merge_systems.c src/campaign/merge_systems.h
# leak_step: the campaign's timing-leak step.
libpqprof_a_SOURCES += src/campaign/leak_step.c src/campaign/leak_step.h
# package_desc: a whole submission package as a scheme descriptor.
libpqprof_a_SOURCES += src/campaign/package_desc.c src/campaign/package_desc.h
# interpose_check: plain -fPIC vs locally bound library, paired.
libpqprof_a_SOURCES += src/campaign/interpose_check.c src/campaign/interpose_check.h
