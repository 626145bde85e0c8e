/* units: number formatting for tables; see units.h. */
#include "config.h"
#include "core/units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fmt_grouped(char *buf, size_t len, double v)
{
	if (!len)
		return;
	if (!isfinite(v)) {
		snprintf(buf, len, "–");
		return;
	}
	char digits[400];
	int n = snprintf(digits, sizeof digits, "%.0f", fabs(v));
	if (n < 0 || (size_t)n >= sizeof digits) {
		snprintf(buf, len, "–");
		return;
	}
	/* digits, a comma before every group of three counted from the right */
	char out[600];
	size_t k = 0;
	if (v < 0 && strcmp(digits, "0") != 0)
		out[k++] = '-';
	for (int i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			out[k++] = ',';
		out[k++] = digits[i];
	}
	out[k] = '\0';
	snprintf(buf, len, "%s", out);
}

void fmt_readable(char *buf, size_t len, double v)
{
	double a = fabs(v);
	if (!isfinite(v)) {
		snprintf(buf, len, "–");
	} else if (a >= 999.5) {
		fmt_grouped(buf, len, v);
	} else if (a == 0.0) {
		snprintf(buf, len, "0");
	} else {
		/* Three significant digits in plain decimal, trailing zeros dropped. */
		int mag = (int)floor(log10(a));
		int decimals = 2 - mag;
		if (decimals < 0)
			decimals = 0;
		char tmp[64];
		snprintf(tmp, sizeof tmp, "%.*f", decimals, v);
		/* rounding can carry into a new digit (99.96 -> "100.0") */
		if (strchr(tmp, '.')) {
			size_t l = strlen(tmp);
			while (l && tmp[l - 1] == '0')
				tmp[--l] = '\0';
			if (l && tmp[l - 1] == '.')
				tmp[--l] = '\0';
		}
		if (fabs(strtod(tmp, NULL)) >= 999.5)
			fmt_grouped(tmp, sizeof tmp, v);
		snprintf(buf, len, "%s", tmp);
	}
}

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
	char num[64];
	fmt_readable(num, sizeof num, v);
	snprintf(buf, len, "%s %s", num, unit);
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
	fmt_readable(buf, len, v);
}

void fmt_kib(char *buf, size_t len, double bytes)
{
	if (!isfinite(bytes) || bytes < 0)
		snprintf(buf, len, "–");
	else
		snprintf(buf, len, "%.0f KiB", bytes / 1024.0);
}

void fmt_bytes_binary(char *buf, size_t len, double bytes)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	if (!isfinite(bytes) || bytes < 0) {
		snprintf(buf, len, "–");
		return;
	}
	int u = 0;
	/* from 1023.5 on, the next unit: "1,024 KiB" would be a worse "1 MiB" */
	while (u < 4 && bytes >= 1023.5) {
		bytes /= 1024.0;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%.0f B", bytes);
	else
		sig3_unit(buf, len, bytes, unit[u]);
}

void fmt_multiple(char *buf, size_t len, double v)
{
	if (!(v >= 0.1)) {
		if (isfinite(v) && v < 1e-6) {
			snprintf(buf, len, "<0.000001");
			return;
		}
		int dec = isfinite(v) && v > 0 ? (int)-floor(log10(v)) + 1 : 2;
		snprintf(buf, len, "%.*f", dec > 7 ? 7 : dec, v);
		return;
	}
	snprintf(buf, len, "%.2f", v);
}
