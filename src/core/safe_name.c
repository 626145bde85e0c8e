/* safe_name: one rule for file names made from free text; see safe_name.h. */
#include "config.h"
#include "core/safe_name.h"

#include <stdio.h>
#include <string.h>

static int kept(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
	       c == '_' || c == '.' || c == '+';
}

void safe_name(char *buf, size_t len, const char *text)
{
	if (len == 0)
		return;
	size_t max = len < SAFE_NAME_MAX ? len : SAFE_NAME_MAX;
	size_t k = 0;
	for (const char *c = text ? text : ""; *c && k + 1 < max; c++)
		buf[k++] = kept(*c) ? *c : '_';
	buf[k] = '\0';
	if (k == 0)
		snprintf(buf, max, "unnamed");
	else if (buf[0] == '.')
		buf[0] = '_';
}

int safe_name_ok(const char *name)
{
	size_t n = name ? strlen(name) : 0;
	if (n == 0 || n >= SAFE_NAME_MAX || name[0] == '.')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!kept(name[i]))
			return 0;
	return 1;
}
