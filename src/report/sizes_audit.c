/* sizes_audit: read a sizes record as audit lines; see sizes_audit.h. */
#include "config.h"
#include "report/sizes_audit.h"

#include <stdio.h>

int sizes_audit(json_t *rec, char lines[][256], int max)
{
	static const char *const keys[] = { "pk", "sk", "sig", "ct", "ss" };
	static const char *const names[] = { "public key", "secret key", "signature", "ciphertext", "shared secret" };
	int n = 0;
	for (int i = 0; i < 5 && n < max; i++) {
		json_t *e = json_object_get(rec, keys[i]);
		if (!e)
			continue;
		json_int_t d = json_integer_value(json_object_get(e, "declared"));
		json_int_t mn = json_integer_value(json_object_get(e, "min"));
		json_int_t mx = json_integer_value(json_object_get(e, "max"));
		if (mx > d)
			snprintf(lines[n++], 256, "%s: produced up to %lld bytes, declared %lld (error: larger than declared)",
			         names[i], (long long)mx, (long long)d);
		else if (mn < d)
			snprintf(lines[n++], 256, "%s: produced %lld..%lld bytes, declared %lld (note: smaller than declared)",
			         names[i], (long long)mn, (long long)mx, (long long)d);
	}
	return n;
}
