# campaign: scheme descriptors, orchestration (campaign.c runs the steps),
# profiles, units, state and resume, and one file per step family.
libpqprof_a_SOURCES += \
	src/campaign/scheme_desc.c src/campaign/scheme_desc.h \
	src/campaign/campaign.c src/campaign/campaign.h src/campaign/campaign_int.h \
	src/campaign/campaign_profiles.c src/campaign/campaign_units.c src/campaign/campaign_baseline.c src/campaign/campaign_state.c \
	src/campaign/build_step.c src/campaign/bench_step.c src/campaign/paired_step.c \
	src/campaign/interposition_step.c src/campaign/measure_step.c src/campaign/summary_step.c \
	src/campaign/campaign_lock.c src/campaign/campaign_lock.h \
	src/campaign/steps.c src/campaign/steps.h \
	src/campaign/merge.c src/campaign/merge.h \
	src/campaign/round.c src/campaign/round.h
# merge_systems: merge by system, never pooling different machines.
libpqprof_a_SOURCES += src/campaign/merge_systems.c src/campaign/merge_systems.h
# leak_step: the campaign's timing-leak step (its records and the unit's step).
libpqprof_a_SOURCES += src/campaign/leak_step.c src/campaign/leak_step.h
# package_desc: a whole submission package as a scheme descriptor.
libpqprof_a_SOURCES += src/campaign/package_desc.c src/campaign/package_desc.h
# interpose_check: plain -fPIC vs locally bound library, paired.
libpqprof_a_SOURCES += src/campaign/interpose_check.c src/campaign/interpose_check.h
