# kat module: sources and tests.
