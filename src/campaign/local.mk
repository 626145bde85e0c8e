# campaign: scheme descriptors, orchestration, state and resume.
libpqprof_a_SOURCES += \
	src/campaign/scheme_desc.c src/campaign/scheme_desc.h \
	src/campaign/campaign.c src/campaign/campaign.h \
	src/campaign/campaign_lock.c src/campaign/campaign_lock.h \
	src/campaign/steps.c src/campaign/steps.h \
	src/campaign/merge.c src/campaign/merge.h
