/* record_path: where records are stored; see records.h. */
#include "config.h"
#include "record/records.h"

#include <stdio.h>

int record_path(char *buf, size_t len, const char *dir, const char *sub, const char *name, const char *op,
                const char *ext, pq_error *err)
{
	int n = snprintf(buf, len, "%s%s%s/%s%s%s%s", dir, sub ? "/" : "", sub ? sub : "", name, op ? "__" : "",
	                 op ? op : "", ext);
	if (n < 0 || (size_t)n >= len)
		return pq_fail(err, PQ_EINPUT, "%s: path of the %s record too long", dir, name);
	return 0;
}
