# Issue 25: library form (local binding vs plain -fPIC), the interposition
# check, schemes that refuse keys from another process, chatty schemes.
TESTS += tests/e2e/interposition.sh
