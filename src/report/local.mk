# report: record sets, Markdown / HTML / CSV / JSON
# reports, charts, and record-set comparisons.  Tests are in tests/report.mk.
libpqprof_a_SOURCES += \
	src/report/sizes_audit.c src/report/sizes_audit.h \
	src/report/bench_table.c src/report/bench_table.h \
	src/report/escape.c src/report/escape.h \
	src/report/record_set.c src/report/record_set.h \
	src/report/report_doc.c src/report/report_doc.h \
	src/report/report_build.c \
	src/report/report_summary.c src/report/report_summary.h \
	src/report/summary_charts.c src/report/summary_charts.h \
	src/report/report_md.c src/report/report_html.c \
	src/report/report_csv.c src/report/report_json.c \
	src/report/charts.c src/report/charts.h \
	src/report/report.c src/report/report.h \
	src/report/compare.c src/report/compare.h \
	src/report/round_index.c src/report/round_index.h
EXTRA_DIST += doc/records.md
libpqprof_a_SOURCES += src/report/report_leak.c src/report/report_leak.h
libpqprof_a_SOURCES += src/report/report_compare.c src/report/report_compare.h
