/*
 * observe_name: what each observed instance is called.  Its name is what
 * its library will report (the header's ALGORITHM_INSTANCE or
 * CRYPTO_ALGNAME, preprocessed with the driver's flags); its label, the
 * -D value that tells it from its siblings.  The plan_instance_* functions
 * of observe.h match and list instances by both.
 */
#include "config.h"
#include "instance/observe.h"
#include "instance/observe_int.h"
#include "core/atomic_file.h"
#include "core/contain.h"
#include "core/fixed_str.h"
#include "core/interrupt.h"
#include "instance/tool_run.h"
#include "instance/flag_list.h"
#include "core/text_buf.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

/* The string literal(s) after `key` in preprocessed text, concatenated; 0 when absent or not a string. */
static int string_after(const char *text, const char *key, char *out, size_t len)
{
	const char *p = strstr(text, key);
	if (!p)
		return 0;
	p += strlen(key);
	size_t k = 0;
	int any = 0;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '"')
			break;
		any = 1;
		for (p++; *p && *p != '"'; p++) {
			if (*p == '\\' && p[1])
				p++;
			if (k + 1 < len)
				out[k++] = *p;
		}
		if (*p == '"')
			p++;
	}
	out[k] = '\0';
	return any && k > 0;
}

/* What the instance's library will report: its header's name macro, preprocessed with the driver's flags. */
void obs_name_instance(struct obs *ob, struct plan_instance *pi)
{
	if (!ob->o->header || !ob->o->header[0])
		return;
	char src[PATH_MAX], out[PATH_MAX], log[PATH_MAX];
	snprintf(src, sizeof src, "%s/pqprof-name.c", ob->root);
	snprintf(out, sizeof out, "%s/pqprof-name.i", ob->root);
	snprintf(log, sizeof log, "%s/pqprof-name.log", ob->root);
	struct text_buf text = { 0 };
	/* NIST: the driver's own includes name the API it was built against; NGCC: the instance header. */
	if (!(ob->o->api == TREE_API_NIST && pi->nincludes))
		text_printf(&text, "#include \"%s/%s\"\n", ob->copy, ob->o->header);
	for (int i = 0; i < pi->nincludes; i++)
		text_printf(&text, "#include \"%s\"\n", pi->includes[i]);
	text_printf(&text, "pqprof_instance_name_is ALGORITHM_INSTANCE\npqprof_nist_name_is CRYPTO_ALGNAME\n");
	/* Without the whole probe there is no name to read (as when it cannot be written). */
	int wrote = !text.oom && atomic_write(src, text.s, text.n, NULL) == 0;
	if (text.oom)
		obs_model_note_out_of_memory();
	text_free(&text);
	if (!wrote)
		return;
	chmod(src, 0644);
	struct argv_buf av = { 0 };
	av_push(&av, ob->o->cc && *ob->o->cc ? ob->o->cc : "cc");
	av_push(&av, "-E");
	av_push(&av, "-P");
	for (int i = 0; i < pi->driver_flags.n; i++)
		if (strncmp(pi->driver_flags.v[i].flag, "-D", 2) == 0 || strncmp(pi->driver_flags.v[i].flag, "-U", 2) == 0 ||
		    strncmp(pi->driver_flags.v[i].flag, "-I", 2) == 0 || strncmp(pi->driver_flags.v[i].flag, "-std=", 5) == 0)
			av_push(&av, pi->driver_flags.v[i].flag);
	av_pushf(&av, "-I%s", ob->copy);
	av_push(&av, src);
	struct cc_limits lim = { .timeout_s = 60, .as_limit = CC_DEFAULT_AS_LIMIT, .as_user = 0 };
	struct contained ct;
	if (av.oom) {
		av_free(&av);
		obs_model_note_out_of_memory();
		return;
	}
	pid_t pid = spawn_logged(&ct, av.v, log, &lim);
	av_free(&av);
	if (pid < 0)
		return;
	int st = 0, to = 0;
	wait_limited(&ct, &lim, &st, &to);
	interrupt_untrack_pid(pid);
	contain_finish(&ct);
	char *pre = NULL;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || obs_read_file(log, &pre, NULL, 64u << 20) < 0) {
		free(pre);
		return;
	}
	if (!string_after(pre, "pqprof_instance_name_is", pi->name, sizeof pi->name))
		string_after(pre, "pqprof_nist_name_is", pi->name, sizeof pi->name);
	free(pre);
}

static int labels_collide(const struct build_plan *p)
{
	for (int a = 0; a < p->ninst; a++)
		for (int b = a + 1; b < p->ninst; b++)
			if (strcmp(p->inst[a].label, p->inst[b].label) == 0)
				return 1;
	return 0;
}

/* Does every instance's driver compile carry this flag? */
static int flag_everywhere(const struct build_plan *p, const char *flag)
{
	for (int k = 0; k < p->ninst; k++) {
		int found = 0;
		for (int j = 0; j < p->inst[k].driver_flags.n && !found; j++)
			found = strcmp(p->inst[k].driver_flags.v[j].flag, flag) == 0;
		if (!found)
			return 0;
	}
	return 1;
}

/* The -D switches instance k has and some other lacks, as "V" for -DX=V and "X" for -DX, joined by '-'. */
static void own_switches(const struct build_plan *p, int k, char *out, size_t len)
{
	out[0] = '\0';
	const struct flag_list *fl = &p->inst[k].driver_flags;
	for (int j = 0; j < fl->n; j++) {
		const char *f = fl->v[j].flag;
		if (strncmp(f, "-D", 2) != 0 || flag_everywhere(p, f))
			continue;
		const char *eq = strchr(f, '='), *w = eq ? eq + 1 : f + 2;
		while (!eq && *w == '_')
			w++;
		/* Whole switches only; a label that collides for want of room is numbered below. */
		text_add_item(out, len, "-", w, "");
	}
}

/* The -D value that tells each instance from the others (XXX_INSTANCE=XXX_160F gives XXX_160F). */
void obs_label_instances(struct build_plan *p)
{
	if (p->ninst < 2)
		return;
	const struct flag_list *f0 = &p->inst[0].driver_flags;
	char best[128] = "";
	int best_score = -1;
	for (int i = 0; i < f0->n; i++) {
		char mac[128];
		define_macro_name(f0->v[i].flag, mac, sizeof mac);
		if (!mac[0] || strncmp(f0->v[i].flag, "-D", 2) != 0)
			continue;
		int differs = 0;
		for (int k = 1; k < p->ninst && !differs; k++) {
			int found = 0;
			const struct flag_list *fk = &p->inst[k].driver_flags;
			for (int j = 0; j < fk->n && !found; j++)
				found = strcmp(fk->v[j].flag, f0->v[i].flag) == 0;
			differs = !found;
		}
		if (!differs)
			continue;
		int score = strstr(mac, "NAME") ? 0 : (strstr(mac, "INSTANCE") || strstr(mac, "PARAM") || strstr(mac, "LEVEL")) ? 2 : 1;
		if (score > best_score) {
			best_score = score;
			str_copy(best, sizeof best, mac);
		}
	}
	for (int k = 0; k < p->ninst; k++) {
		struct plan_instance *pi = &p->inst[k];
		if (best[0]) {
			for (int j = 0; j < pi->driver_flags.n; j++) {
				char mac[128];
				define_macro_name(pi->driver_flags.v[j].flag, mac, sizeof mac);
				const char *eq = strchr(pi->driver_flags.v[j].flag, '=');
				if (strcmp(mac, best) == 0 && eq) {
					char v[128];
					str_copy(v, sizeof v, eq + 1);
					size_t n = strlen(v);
					if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
						memmove(v, v + 1, n - 2);
						v[n - 2] = '\0';
					}
					str_copy(pi->label, sizeof pi->label, v);
				}
			}
		}
		if (!pi->label[0])
			str_copy(pi->label, sizeof pi->label, path_base(pi->program));
	}
	/* A switch that does not tell every instance apart is no label: the programs' names do. */
	if (labels_collide(p)) {
		for (int k = 0; k < p->ninst; k++)
			str_copy(p->inst[k].label, sizeof p->inst[k].label, path_base(p->inst[k].program));
		/* One program linked once per parameter set (a KAT script): the switches only it has. */
		if (labels_collide(p))
			for (int k = 0; k < p->ninst; k++)
				own_switches(p, k, p->inst[k].label, sizeof p->inst[k].label);
		if (labels_collide(p))
			for (int k = 0; k < p->ninst; k++) {
				char *l = p->inst[k].label;
				size_t cap = sizeof p->inst[k].label;
				/* The number always goes in whole, over the label's end if need be: labels stay distinct. */
				int w = snprintf(NULL, 0, "-%d", k + 1);
				if (strlen(l) + (size_t)w >= cap)
					l[cap - 1 - (size_t)w] = '\0';
				text_appendf(l, cap, "%s%d", l[0] ? "-" : "", k + 1);
			}
	}
}

/* ---- finding an instance by its name ---- */

/* Equal but for case, '-' and '_'. */
static int loose_equal(const char *a, const char *b)
{
	for (;; a++, b++) {
		while (*a == '-' || *a == '_')
			a++;
		while (*b == '-' || *b == '_')
			b++;
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return 0;
		if (!*a)
			return 1;
	}
}

int plan_instance_matches(const struct plan_instance *pi, const char *want)
{
	char both[sizeof pi->name + sizeof pi->label + 2];
	snprintf(both, sizeof both, "%s-%s", pi->name, pi->label);
	return want && *want && ((pi->name[0] && loose_equal(pi->name, want)) || (pi->label[0] && loose_equal(pi->label, want)) ||
	                         (pi->name[0] && pi->label[0] && loose_equal(both, want)));
}

void plan_instance_unique_name(const struct build_plan *p, int v, char *out, size_t len)
{
	const struct plan_instance *pi = &p->inst[v];
	int shared = 0;
	for (int i = 0; i < p->ninst && !shared; i++)
		shared = i != v && pi->name[0] && loose_equal(p->inst[i].name, pi->name);
	if (!pi->name[0])
		snprintf(out, len, "%s", pi->label);
	else if (shared && pi->label[0])
		snprintf(out, len, "%s-%s", pi->name, pi->label);
	else
		snprintf(out, len, "%s", pi->name);
}

void plan_instance_list(const struct build_plan *p, struct text_buf *out)
{
	for (int i = 0; i < p->ninst; i++) {
		const struct plan_instance *pi = &p->inst[i];
		const char *sep = i ? ", " : "";
		if (pi->label[0] && pi->name[0] && strcmp(pi->label, pi->name) != 0)
			text_printf(out, "%s%s (%s)", sep, pi->name, pi->label);
		else
			text_printf(out, "%s%s", sep, pi->name[0] ? pi->name : pi->label);
	}
}
