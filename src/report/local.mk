# report: number formatting, records, Markdown / HTML / CSV reports.
libpqprof_a_SOURCES += \
	src/report/units.c src/report/units.h
