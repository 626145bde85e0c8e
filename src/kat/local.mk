# kat module: NIST CTR_DRBG and the randombytes() it feeds, ICCS SM3 DRNG, KAT vector files, kat.sha256
# manifests, and the KAT engine: guarded buffers, the fault guard, rounds,
# the flows, API deviation checks, judging, verdicts and outcomes.
libpqprof_a_SOURCES += \
	src/kat/ctr_drbg.c src/kat/ctr_drbg.h \
	src/kat/nist_rng.c src/kat/nist_rng.h \
	src/kat/sm3_drng.c src/kat/sm3_drng.h \
	src/kat/kat_file.c src/kat/kat_file.h \
	src/kat/kat_locate.c src/kat/kat_locate.h \
	src/kat/manifest.c src/kat/manifest.h \
	src/kat/safe_text.c src/kat/safe_text.h \
	src/kat/guarded_buf.c src/kat/guarded_buf.h \
	src/kat/fault_guard.c src/kat/fault_guard.h \
	src/kat/kat_round.c src/kat/kat_round.h \
	src/kat/kat_flow.c src/kat/kat_flow.h \
	src/kat/api_checks.c src/kat/api_checks.h \
	src/kat/kat_judge.c \
	src/kat/kat_forensics.c src/kat/kat_forensics.h \
	src/kat/kat_verdict.c src/kat/kat_verdict.h \
	src/kat/kat_engine.c src/kat/kat_engine.h
