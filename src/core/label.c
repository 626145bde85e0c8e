/* label: names to file-name stems, one rule for writers and readers; see label.h. */
#include "config.h"
#include "core/label.h"

#include <stdio.h>
#include <string.h>

static int keep(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
	       c == '.' || c == '+';
}

void label_make(char *buf, size_t len, const char *name)
{
	if (!len)
		return;
	size_t max = len < LABEL_MAX ? len : LABEL_MAX;
	size_t k = 0;
	for (const char *c = name ? name : ""; *c && k + 1 < max; c++)
		buf[k++] = keep(*c) ? *c : '_';
	buf[k] = '\0';
	if (k == 0)
		snprintf(buf, max, "unnamed");
	else if (buf[0] == '.')
		buf[0] = '_';
}

int label_ok(const char *label)
{
	size_t n = label ? strlen(label) : 0;
	if (n == 0 || n >= LABEL_MAX || label[0] == '.')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!keep(label[i]))
			return 0;
	return 1;
}
