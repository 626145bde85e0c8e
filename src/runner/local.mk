# runner module: sources and tests.
