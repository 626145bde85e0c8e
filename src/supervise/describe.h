/*
 * describe: what an instance library says about itself, asked in a runner
 * child (the "info" job) so that loading a broken library cannot harm the
 * caller.  The descriptor (api, kind, name, build, seedable, declared
 * sizes, plus "library") is what records carry as "instance".
 */
#ifndef PQ_DESCRIBE_H
#define PQ_DESCRIBE_H

#include <jansson.h>

#include "core/pq_error.h"

/*
 * Load the instance in a runner child and return its descriptor as JSON
 * (the "info" job), or an error naming the library and the reason
 * (PQ_ELOAD when it does not load).
 */
int instance_describe(const char *lib, json_t **desc, pq_error *err);

/*
 * The time limit of instance_describe: the command's --timeout S, at most
 * DESCRIBE_LIMIT_S (loading a library and asking its descriptor takes
 * milliseconds; a constructor that loops is stopped at the limit).
 */
#define DESCRIBE_LIMIT_S 120.0
void instance_describe_limit(double timeout_s);

#endif
