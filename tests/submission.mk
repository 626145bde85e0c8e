# Submission trees as they come: flags from the tree's build files, trees
# serving several instances by -D switches, instruction-set checks.
TESTS += tests/e2e/submission_flags.sh
