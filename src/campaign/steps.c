/* steps: campaign steps built on other modules; see steps.h. */
#include "config.h"
#include "campaign/steps.h"
#include "measure/elf_size.h"
#include "report/report.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void steps_add_elf_sizes(json_t *record, const char *lib)
{
	struct elf_size es;
	pq_error err = { 0 };
	if (elf_size_analyze(lib, &es, &err) < 0) {
		json_object_set_new(record, "elf_error", json_string(err.msg));
		return;
	}
	json_object_set_new(record, "elf", elf_size_to_json(&es, 10));
	json_object_set_new(record, "static_image_bytes", json_integer((json_int_t)es.image_memsz));
	elf_size_free(&es);
}

static void empty_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char p[PATH_MAX];
		snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
		unlink(p);
	}
	closedir(d);
}

void steps_forget(const char *dir)
{
	static const char *const subs[] = { "lib", "build", "kat", "records", "memory", "sizes", "profile",
	                                    "traces", "flame", NULL };
	for (int i = 0; subs[i]; i++) {
		char p[PATH_MAX];
		snprintf(p, sizeof p, "%s/%s", dir, subs[i]);
		empty_dir(p);
	}
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/campaign.json", dir);
	unlink(p);
}

int steps_profile(const char *dir, const char *label, const char *lib, json_t *desc, const char *op,
                  const struct scheme_desc *scheme, double timeout_s)
{
	(void)dir; (void)label; (void)lib; (void)desc; (void)op; (void)scheme; (void)timeout_s;
	return -PQ_EINTERNAL; /* wired to the profiler below */
}

int steps_report(const char *dir, pq_error *err)
{
	return report_write_all(dir, err);
}
