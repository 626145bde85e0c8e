# profile module: sources and tests.
