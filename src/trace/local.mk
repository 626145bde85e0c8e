# trace module: sources and tests.
