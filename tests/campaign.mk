# The campaign's output as a whole: the toy quick campaign's report, masked
# of every measured figure by json_mask, against an expected file.
check_PROGRAMS += tests/json_mask
tests_json_mask_SOURCES = tests/json_mask.c
tests_json_mask_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
tests_json_mask_LDADD = $(JANSSON_LIBS)
TESTS += tests/e2e/campaign_golden.sh
