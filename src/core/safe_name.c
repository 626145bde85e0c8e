/* safe_name: one rule for file names made from free text; see safe_name.h. */
#include "config.h"
#include "core/safe_name.h"

#include <stdio.h>

static int kept(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
	       c == '_' || c == '.' || c == '+';
}

void safe_name(char *buf, size_t len, const char *text)
{
	if (len == 0)
		return;
	size_t k = 0;
	for (const char *c = text ? text : ""; *c && k + 1 < len; c++)
		buf[k++] = kept(*c) ? *c : '_';
	buf[k] = '\0';
	if (k == 0)
		snprintf(buf, len, "unnamed");
	else if (buf[0] == '.')
		buf[0] = '_';
}
