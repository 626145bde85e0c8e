# campaign module: sources and tests.
