# kat module: NIST CTR_DRBG, ICCS SM3 DRNG, KAT vector files, kat.sha256
# manifests, and the KAT engine (flows, guarded buffers, verdicts).
libpqprof_a_SOURCES += \
	src/kat/ctr_drbg.c src/kat/ctr_drbg.h \
	src/kat/sm3_drng.c src/kat/sm3_drng.h \
	src/kat/kat_file.c src/kat/kat_file.h \
	src/kat/manifest.c src/kat/manifest.h \
	src/kat/kat_verdict.c src/kat/kat_verdict.h \
	src/kat/kat_engine.c src/kat/kat_engine.h
