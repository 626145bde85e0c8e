# kat module: NIST CTR_DRBG and the randombytes() it feeds, ICCS SM3 DRNG, KAT vector files, kat.sha256
# manifests, and the KAT engine (flows, guarded buffers, verdicts).
libpqprof_a_SOURCES += \
	src/kat/ctr_drbg.c src/kat/ctr_drbg.h \
	src/kat/nist_rng.c src/kat/nist_rng.h \
	src/kat/sm3_drng.c src/kat/sm3_drng.h \
	src/kat/kat_file.c src/kat/kat_file.h \
	src/kat/manifest.c src/kat/manifest.h \
	src/kat/kat_engine.c src/kat/kat_engine.h
