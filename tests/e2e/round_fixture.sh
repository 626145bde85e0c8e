# round_fixture.sh: builds the fixture round of tests/e2e/round.sh and
# tests/ci/slurm.sh in $1 (sourced helpers aside, run as a script:
# round_fixture.sh ROUND TOP_SRCDIR).  Four packages, each the way a
# different team would ship one:
#   mldsa44/    NIST package: pqprof's in-tree ML-DSA sources, ML-DSA-44
#               only, its own Makefile and KAT file, NIST_SECURITY_LEVEL 2
#   broken/     a tree that does not compile (tests/fixtures/broken-build)
#   hashctx/    a FIPS 204-style context-string API (tests/fixtures/ctx-api)
#   toy96/      a small NIST signature tree (tests/fixtures/nist-toy)
set -eu
R=$1
SRC=$2
mkdir -p "$R"
P="$R/mldsa44/Reference_Implementation/crypto_sign/ml-dsa-44"
mkdir -p "$P/params" "$R/mldsa44/KAT/ml-dsa-44"
for f in PQCgenKAT_sign.c encode.c encode.h fips202.c fips202.h ntt.c ntt.h params.h poly.c poly.h reduce.h rng.c \
	rng.h rounding.c rounding.h sample.c sample.h sign.c sign.h; do
	cp "$SRC/schemes/mldsa/nist/$f" "$P/"
done
cp "$SRC/schemes/mldsa/nist/params/params-ml-dsa-44.h" "$P/params/"
sed -e 's/^#define CRYPTO_ALGNAME MLD_PARAM_NAME$/#define CRYPTO_ALGNAME "ML-DSA-44"\n#define NIST_SECURITY_LEVEL 2/' \
	"$SRC/schemes/mldsa/nist/api.h" >"$P/api.h"
grep -q '^#define NIST_SECURITY_LEVEL 2$' "$P/api.h"
cat >"$P/Makefile" <<'EOM'
# ML-DSA-44 reference implementation: builds the NIST KAT generator.
CC ?= cc
CFLAGS ?= -O3 -std=c99
SRC = fips202.c ntt.c poly.c encode.c sample.c rounding.c sign.c rng.c PQCgenKAT_sign.c

PQCgenKAT_sign: $(SRC)
	$(CC) $(CFLAGS) -DPARAMS=ml-dsa-44 -o $@ $(SRC) -lcrypto

clean:
	rm -f PQCgenKAT_sign *.req *.rsp
EOM
# The KAT file the team ships: its generator's output.
B=$(mktemp -d "${TMPDIR:-/tmp}/round-kat.XXXXXX")
(cd "$P" && ${CC:-cc} -O2 -std=c99 -DPARAMS=ml-dsa-44 -I. -o "$B/gen" fips202.c ntt.c poly.c encode.c sample.c rounding.c \
	sign.c rng.c PQCgenKAT_sign.c -lcrypto)
(cd "$B" && ./gen >/dev/null)
cp "$B"/PQCsignKAT_*.rsp "$R/mldsa44/KAT/ml-dsa-44/"
rm -rf "$B"
cp -rL "$SRC/tests/fixtures/broken-build" "$R/broken"
cp -rL "$SRC/tests/fixtures/ctx-api/hashctx" "$R/hashctx"
cp -rL "$SRC/tests/fixtures/nist-toy" "$R/toy96"
printf 'Round of four signature submissions (pqprof test fixture).\n' >"$R/README.txt"
