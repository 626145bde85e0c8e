# Installed data: the in-tree schemes (descriptors and sources), their KAT
# vectors and manifests, and the documentation, under $(pkgdatadir) with
# the source tree's layout, so descriptors keep their relative paths.
# Symbolic links inside a scheme tree install as copies (a linked
# directory by the files in it).  The tarball gets these files through
# EXTRA_DIST (whole directories, links kept), not through this list.
nobase_pkgdata_DATA = \
	kat/mldsa/README.md \
	kat/mldsa/kat.sha256 \
	kat/mldsa/published-first-record.sha256 \
	kat/mlkem/README.md \
	kat/mlkem/kat.sha256 \
	kat/mlkem/published.sha256 \
	kat/mlkem/whole-file.sha256 \
	kat/sphincsplus/README.md \
	kat/sphincsplus/kat-quick.sha256 \
	kat/sphincsplus/kat.sha256 \
	kat/sphincsplus/ngcc/KAT_SIG_SPHINCS-shake-128f-simple.txt \
	kat/sphincsplus/ngcc/KAT_SIG_SPHINCS-shake-128s-simple.txt \
	kat/sphincsplus/published-first-record.sha256 \
	kat/sphincsplus/published.sha256 \
	schemes/mldsa/Makefile \
	schemes/mldsa/README.md \
	schemes/mldsa/nist/PQCgenKAT_sign.c \
	schemes/mldsa/nist/api.h \
	schemes/mldsa/nist/encode.c \
	schemes/mldsa/nist/encode.h \
	schemes/mldsa/nist/fips202.c \
	schemes/mldsa/nist/fips202.h \
	schemes/mldsa/nist/ntt.c \
	schemes/mldsa/nist/ntt.h \
	schemes/mldsa/nist/params.h \
	schemes/mldsa/nist/params/params-ml-dsa-44.h \
	schemes/mldsa/nist/params/params-ml-dsa-65.h \
	schemes/mldsa/nist/params/params-ml-dsa-87.h \
	schemes/mldsa/nist/poly.c \
	schemes/mldsa/nist/poly.h \
	schemes/mldsa/nist/reduce.h \
	schemes/mldsa/nist/rng.c \
	schemes/mldsa/nist/rng.h \
	schemes/mldsa/nist/rounding.c \
	schemes/mldsa/nist/rounding.h \
	schemes/mldsa/nist/sample.c \
	schemes/mldsa/nist/sample.h \
	schemes/mldsa/nist/sign.c \
	schemes/mldsa/nist/sign.h \
	schemes/mldsa/scheme.json \
	schemes/mlkem/Makefile \
	schemes/mlkem/README.md \
	schemes/mlkem/nist/PQCgenKAT_kem.c \
	schemes/mlkem/nist/api.h \
	schemes/mlkem/nist/fips202.c \
	schemes/mlkem/nist/fips202.h \
	schemes/mlkem/nist/kem.c \
	schemes/mlkem/nist/kpke.c \
	schemes/mlkem/nist/kpke.h \
	schemes/mlkem/nist/params.h \
	schemes/mlkem/nist/poly.c \
	schemes/mlkem/nist/poly.h \
	schemes/mlkem/nist/rng.c \
	schemes/mlkem/nist/rng.h \
	schemes/mlkem/nist/params/params-ml-kem-1024.h \
	schemes/mlkem/nist/params/params-ml-kem-512.h \
	schemes/mlkem/nist/params/params-ml-kem-768.h \
	schemes/mlkem/scheme.json \
	schemes/sphincsplus/Makefile \
	schemes/sphincsplus/README.md \
	schemes/sphincsplus/ngcc/KAT_SIG.c \
	schemes/sphincsplus/ngcc/SIG_AlgorithmInstance.c \
	schemes/sphincsplus/ngcc/SIG_AlgorithmInstance.h \
	schemes/sphincsplus/ngcc/address.c \
	schemes/sphincsplus/ngcc/address.h \
	schemes/sphincsplus/ngcc/api.h \
	schemes/sphincsplus/ngcc/drng.c \
	schemes/sphincsplus/ngcc/drng.h \
	schemes/sphincsplus/ngcc/fips202.c \
	schemes/sphincsplus/ngcc/fips202.h \
	schemes/sphincsplus/ngcc/fors.c \
	schemes/sphincsplus/ngcc/fors.h \
	schemes/sphincsplus/ngcc/hash.h \
	schemes/sphincsplus/ngcc/hash_shake.c \
	schemes/sphincsplus/ngcc/params/params-sphincs-shake-128f.h \
	schemes/sphincsplus/ngcc/params/params-sphincs-shake-128s.h \
	schemes/sphincsplus/ngcc/params/params-sphincs-shake-192f.h \
	schemes/sphincsplus/ngcc/params/params-sphincs-shake-192s.h \
	schemes/sphincsplus/ngcc/params/params-sphincs-shake-256f.h \
	schemes/sphincsplus/ngcc/params/params-sphincs-shake-256s.h \
	schemes/sphincsplus/ngcc/params.h \
	schemes/sphincsplus/ngcc/randombytes_drng.c \
	schemes/sphincsplus/ngcc/rng.h \
	schemes/sphincsplus/ngcc/sign.c \
	schemes/sphincsplus/ngcc/thash_shake_simple.c \
	schemes/sphincsplus/ngcc/utils.c \
	schemes/sphincsplus/ngcc/utils.h \
	schemes/sphincsplus/ngcc/wots.c \
	schemes/sphincsplus/ngcc/wots.h \
	schemes/sphincsplus/nist/PQCgenKAT_sign.c \
	schemes/sphincsplus/nist/address.c \
	schemes/sphincsplus/nist/address.h \
	schemes/sphincsplus/nist/api.h \
	schemes/sphincsplus/nist/fips202.c \
	schemes/sphincsplus/nist/fips202.h \
	schemes/sphincsplus/nist/fors.c \
	schemes/sphincsplus/nist/fors.h \
	schemes/sphincsplus/nist/hash.h \
	schemes/sphincsplus/nist/hash_shake.c \
	schemes/sphincsplus/nist/params.h \
	schemes/sphincsplus/nist/params/params-sphincs-shake-128f.h \
	schemes/sphincsplus/nist/params/params-sphincs-shake-128s.h \
	schemes/sphincsplus/nist/params/params-sphincs-shake-192f.h \
	schemes/sphincsplus/nist/params/params-sphincs-shake-192s.h \
	schemes/sphincsplus/nist/params/params-sphincs-shake-256f.h \
	schemes/sphincsplus/nist/params/params-sphincs-shake-256s.h \
	schemes/sphincsplus/nist/rng.c \
	schemes/sphincsplus/nist/rng.h \
	schemes/sphincsplus/nist/sign.c \
	schemes/sphincsplus/nist/thash_shake_simple.c \
	schemes/sphincsplus/nist/utils.c \
	schemes/sphincsplus/nist/utils.h \
	schemes/sphincsplus/nist/wots.c \
	schemes/sphincsplus/nist/wots.h \
	schemes/sphincsplus/scheme.json \
	README.md doc/records.md doc/memory.md doc/profiling.md doc/profile-report.md \
	doc/trace-format.md doc/slurm.md doc/submissions.md doc/corpus.md doc/measurements.md \
	doc/flag-studies.md doc/leak.md doc/reliability.md doc/development.md

# make uninstall leaves no empty directory behind: pqprof's own ones go,
# and the standard ones above them only when nothing else is left in them.
uninstall-hook:
	-test ! -d "$(DESTDIR)$(pkgdatadir)" || \
	  find "$(DESTDIR)$(pkgdatadir)" -depth -type d -empty -exec rmdir {} \;
	-for d in "$(DESTDIR)$(pkglibexecdir)" "$(DESTDIR)$(libexecdir)" "$(DESTDIR)$(bindir)" \
	  "$(DESTDIR)$(man1dir)" "$(DESTDIR)$(mandir)" "$(DESTDIR)$(datadir)"; do \
	  test ! -d "$$d" || rmdir "$$d" 2>/dev/null || :; done

# make installcheck (and so make distcheck): the installed copy, copied to
# another prefix, finds its runner and data there and runs the in-tree
# scheme from a directory outside the source tree.
installcheck-local:
	$(SHELL) $(srcdir)/tests/e2e/installed.sh "$(DESTDIR)$(prefix)" "$(DESTDIR)$(bindir)" \
	  "$(DESTDIR)$(pkglibexecdir)" "$(DESTDIR)$(pkgdatadir)"
