# measure module: sources and tests.
