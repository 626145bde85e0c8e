# report module: sources and tests.
