/* record_path: where records are stored; see records.h. */
#include "config.h"
#include "record/records.h"
#include "core/fixed_str.h"

int record_path(char *buf, size_t len, const char *dir, const char *sub, const char *name, const char *op,
                const char *ext, pq_error *err)
{
	return path_fmt(buf, len, err, "%s%s%s/%s%s%s%s", dir, sub ? "/" : "", sub ? sub : "", name,
	                op ? "__" : "", op ? op : "", ext);
}
