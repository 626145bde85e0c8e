/* record_build: the pqprof.build/1 record; see records.h. */
#include "config.h"
#include "supervise/describe.h"
#include "record/records.h"

int record_build(const struct build_options *bo, const char *lib, const char *library, const char *profile,
                 const char *label, json_t **record, pq_error *err)
{
	json_t *r = json_pack("{s:s, s:s, s:s}", "schema", "pqprof.build/1", "profile", profile, "label", label);
	*record = r;
	int rc = 0;
	if (bo) {
		struct build_result br;
		if ((rc = instance_build(bo, &br, err)) < 0) {
			json_object_set_new(r, "status", json_string("failed"));
			json_object_set_new(r, "failure", json_string(err->msg));
			json_object_set_new(r, "source_dir", json_string(bo->src_dir));
			return rc;
		}
		json_object_set_new(r, "notes", json_string(br.notes));
		build_result_free(&br);
	}
	json_t *desc = NULL;
	if ((rc = instance_describe(lib, &desc, err)) < 0) {
		json_object_set_new(r, "status", json_string("failed"));
		json_object_set_new(r, "failure", json_string(err->msg));
	} else {
		json_object_set_new(r, "instance", desc);
		json_object_set_new(r, "status", json_string("complete"));
	}
	json_object_set_new(r, "library", json_string(library));
	return rc;
}
