/* units: number formatting for tables; see units.h. */
#include "config.h"
#include "core/units.h"

#include <math.h>
#include <stdio.h>

void fmt_count(char *buf, size_t len, double v)
{
	if (!isfinite(v))
		snprintf(buf, len, "–");
	else if (v >= 1e9)
		snprintf(buf, len, "%.2f G", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, len, "%.2f M", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, len, "%.1f k", v / 1e3);
	else
		snprintf(buf, len, "%.0f", v);
}

/* Three significant digits, trailing zeros dropped ("1 ms", "1.14 s"). */
static void sig3_unit(char *buf, size_t len, double v, const char *unit)
{
	snprintf(buf, len, "%.3g %s", v, unit);
}

void fmt_seconds(char *buf, size_t len, double s)
{
	if (!isfinite(s))
		snprintf(buf, len, "–");
	else if (s >= 1.0)
		sig3_unit(buf, len, s, "s");
	else if (s >= 1e-3)
		sig3_unit(buf, len, s * 1e3, "ms");
	else if (s >= 1e-6)
		sig3_unit(buf, len, s * 1e6, "µs");
	else
		sig3_unit(buf, len, s * 1e9, "ns");
}

void fmt_sig3(char *buf, size_t len, double v)
{
	if (!isfinite(v))
		snprintf(buf, len, "–");
	else
		snprintf(buf, len, "%.3g", v);
}

void fmt_kib(char *buf, size_t len, double bytes)
{
	if (!isfinite(bytes) || bytes < 0)
		snprintf(buf, len, "–");
	else
		snprintf(buf, len, "%.0f KiB", bytes / 1024.0);
}
