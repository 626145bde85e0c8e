# instance module: sources and tests.
