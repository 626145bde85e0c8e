#!/bin/sh
# End-to-end: a NIST-style signature tree whose api.h declares only the
# FIPS 204 style functions that take a context string (prefixed names,
# size_t lengths), and whose own PQCgenKAT_sign.c signs with an empty
# context.  pqprof builds it through crypto_sign_ctx / crypto_sign_open_ctx,
# says so in the descriptor and records, passes its shipped vectors, runs a
# quick campaign over it, and signs under --context HEX instead: the
# signatures change (the toy binds the context), so the same vectors then
# MISMATCH.  A tree with both forms keeps the plain ones unless --context.
. "$top_srcdir/tests/e2e/lib.sh"

T="$FIX/ctx-api/hashctx"

build_fixture "$T" "$WORK/empty.so"
expect_rc 0 "info of the context-API build" -- "$PQPROF" info "$WORK/empty.so" --json
expect_grep "$WORK/out" '"signature_api": "context"' "descriptor: sign and verify use the context API"
expect_grep "$WORK/out" '"context": ""' "descriptor: the empty context by default"
expect_grep "$WORK/out" '"name": "HashCtx-64"' "descriptor: name from the prefixed CRYPTO_ALGNAME"
expect_rc 0 "kat against the tree's own vectors (made with an empty context)" -- \
	"$PQPROF" kat "$WORK/empty.so" --records-dir "$WORK/kat0"
expect_grep "$WORK/out" "RESULT HashCtx-64 PASS" "empty context: KAT PASS"
expect_grep "$WORK/kat0/HashCtx-64.kat.log" '^signature api: context' "KAT log names the signature API"

# --context: another context, other signatures, the same keys.
build_fixture "$T" "$WORK/ab.so" --context 0a0b
expect_rc 0 "info of the --context 0a0b build" -- "$PQPROF" info "$WORK/ab.so" --json
expect_grep "$WORK/out" '"context": "0a0b"' "descriptor: --context recorded"
expect_rc 22 "emit, empty context" -- "$PQPROF" kat "$WORK/empty.so" --emit "$WORK/empty.rsp" --no-search --records-dir ""
expect_rc 22 "emit, context 0a0b" -- "$PQPROF" kat "$WORK/ab.so" --emit "$WORK/ab.rsp" --no-search --records-dir ""
if [ -n "$(grep '^pk = ' "$WORK/ab.rsp")" ] && [ "$(grep '^pk = ' "$WORK/empty.rsp")" = "$(grep '^pk = ' "$WORK/ab.rsp")" ]
then
	pass "--context 0a0b: the same keys"; else fail "--context 0a0b changed the keys"; fi
if [ -n "$(grep '^sm = ' "$WORK/ab.rsp")" ] && [ "$(grep '^sm = ' "$WORK/empty.rsp")" != "$(grep '^sm = ' "$WORK/ab.rsp")" ]
then pass "--context 0a0b: other signatures"; else fail "--context 0a0b: the signatures did not change"; fi
expect_rc 21 "kat of the 0a0b build against the empty-context vectors" -- \
	"$PQPROF" kat "$WORK/ab.so" --records-dir ""
expect_grep "$WORK/out" "RESULT HashCtx-64 MISMATCH .*sm differs" "context 0a0b: KAT MISMATCH on sm"

# Bad hex is a usage error naming the option.
for bad in 0a0 zz 0x0a; do
	expect_rc 1 "build --context $bad" -- "$PQPROF" build "$T" -o "$WORK/bad.so" --context "$bad"
	expect_grep "$WORK/err" "--context" "build --context $bad: the error names --context"
done
expect_rc 1 "run --context zz" -- "$PQPROF" run "$T" --context zz --out "$WORK/badrun" --steps build
expect_grep "$WORK/err" "--context" "run --context zz: the error names --context"
expect_rc 2 "build --context on a tree without the context API" -- \
	"$PQPROF" build "$FIX/nist-toy" -o "$WORK/plain.so" --context 00
expect_grep "$WORK/err" "crypto_sign_ctx" "the refusal names the missing function"

# The campaign: build, KAT and bench end to end.
expect_rc 0 "run build,kat,bench" -- "$PQPROF" run "$T" --quick --steps build,kat,bench --trials 2 --target 0.05 \
	--no-interposition-check --out "$WORK/run"
expect_grep "$WORK/run/build/hashctx__harness-default.json" '"signature_api": "context"' \
	"build record names the signature API"
expect_grep "$WORK/run/kat/hashctx__harness-default.json" '"verdict": "PASS"' "campaign KAT PASS"
expect_grep "$WORK/run/report.md" "^Signature API, hashctx: the context-string sign and verify functions, with an empty context" \
	"report names the signature API"
expect_grep "$WORK/run/report.md" "^\| \`hashctx\` \| harness-default \| keygen \|.*\| not measured \(mem not in --steps\) \|" \
	"a step left out of --steps is said to be, not pending"
for op in keygen sign verify; do
	[ -s "$WORK/run/records/hashctx__harness-default__$op.json" ] && pass "bench record for $op" ||
		fail "no bench record for $op"
done

# Both forms declared: the plain ones by default, the context ones with --context.
cp -r "$T" "$WORK/both"
cat >>"$WORK/both/api.h" <<'EOH'
int HASHCTX_REF_crypto_sign(uint8_t *sm, size_t *smlen, const uint8_t *m, size_t mlen, const uint8_t *sk);
int HASHCTX_REF_crypto_sign_open(uint8_t *m, size_t *mlen, const uint8_t *sm, size_t smlen, const uint8_t *pk);
EOH
cat >"$WORK/both/plain.c" <<'EOC'
#include "api.h"
int HASHCTX_REF_crypto_sign(uint8_t *sm, size_t *smlen, const uint8_t *m, size_t mlen, const uint8_t *sk)
{
    return HASHCTX_REF_crypto_sign_ctx(sm, smlen, m, mlen, (const uint8_t *)"plain", 5, sk);
}
int HASHCTX_REF_crypto_sign_open(uint8_t *m, size_t *mlen, const uint8_t *sm, size_t smlen, const uint8_t *pk)
{
    return HASHCTX_REF_crypto_sign_open_ctx(m, mlen, sm, smlen, (const uint8_t *)"plain", 5, pk);
}
EOC
sed -i 's/^SRC = hash.c sign.c/SRC = hash.c sign.c plain.c/' "$WORK/both/Makefile"
expect_rc 0 "build a tree with both forms" -- "$PQPROF" build "$WORK/both" -o "$WORK/both.so" --source-root "$WORK"
expect_grep "$WORK/out" "declares both HASHCTX_REF_crypto_sign and HASHCTX_REF_crypto_sign_ctx: the plain functions are used" \
	"both forms: the build says the plain ones are used"
expect_rc 0 "info, both forms" -- "$PQPROF" info "$WORK/both.so" --json
expect_grep "$WORK/out" '"signature_api": "plain"' "both forms: plain by default"
expect_grep "$WORK/out" '"context"' "both forms: the context API is listed as offered"
expect_rc 21 "both forms, plain: the plain functions sign (under \"plain\"): MISMATCH" -- \
	"$PQPROF" kat "$WORK/both.so" --records-dir ""
build_fixture "$WORK/both" "$WORK/both-ctx.so" --context "" --source-root "$WORK"
expect_rc 0 "both forms, --context \"\": the context API with an empty context passes" -- \
	"$PQPROF" kat "$WORK/both-ctx.so" --records-dir ""
expect_grep "$WORK/out" "RESULT HashCtx-64 PASS" "both forms, --context \"\": KAT PASS"
finish
