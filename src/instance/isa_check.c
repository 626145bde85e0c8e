/* isa_check: instruction sets a build asks for against this CPU's; see isa_check.h. */
#include "config.h"
#include "instance/isa_check.h"
#include "core/atomic_file.h"
#include "core/text_buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* -m flag -> the /proc/cpuinfo names of what it needs. */
static const struct {
	const char *flag;
	const char *needs;
} table[] = {
	{ "-msse3", "pni" }, { "-mssse3", "ssse3" }, { "-msse4.1", "sse4_1" }, { "-msse4.2", "sse4_2" },
	{ "-msse4", "sse4_1 sse4_2" }, { "-mpopcnt", "popcnt" }, { "-mavx", "avx" }, { "-mavx2", "avx2" },
	{ "-mfma", "fma" }, { "-mf16c", "f16c" }, { "-mbmi", "bmi1" }, { "-mbmi2", "bmi2" }, { "-mlzcnt", "abm" },
	{ "-madx", "adx" }, { "-maes", "aes" }, { "-mpclmul", "pclmulqdq" }, { "-msha", "sha_ni" },
	{ "-mvaes", "vaes" }, { "-mvpclmulqdq", "vpclmulqdq" }, { "-mgfni", "gfni" }, { "-mrdrnd", "rdrand" },
	{ "-mrdseed", "rdseed" }, { "-mmovbe", "movbe" }, { "-mavxvnni", "avx_vnni" },
	{ "-mavx512f", "avx512f" }, { "-mavx512cd", "avx512cd" }, { "-mavx512bw", "avx512bw" },
	{ "-mavx512dq", "avx512dq" }, { "-mavx512vl", "avx512vl" }, { "-mavx512ifma", "avx512ifma" },
	{ "-mavx512vbmi", "avx512vbmi" }, { "-mavx512vbmi2", "avx512_vbmi2" }, { "-mavx512vnni", "avx512_vnni" },
	{ "-mavx512bitalg", "avx512_bitalg" }, { "-mavx512vpopcntdq", "avx512_vpopcntdq" },
	{ "-mavx512bf16", "avx512_bf16" }, { "-mavx512fp16", "avx512_fp16" },
	{ "-mavx512vp2intersect", "avx512_vp2intersect" }, { "-mavx512er", "avx512er" }, { "-mavx512pf", "avx512pf" },
	{ "-mamx-tile", "amx_tile" }, { "-mamx-int8", "amx_int8" }, { "-mamx-bf16", "amx_bf16" },
	{ "-msha512", "sha512" }, { "-msm3", "sm3" }, { "-msm4", "sm4" },
	{ "-march=x86-64-v2", "cx16 lahf_lm popcnt pni sse4_1 sse4_2 ssse3" },
	{ "-march=x86-64-v3", "cx16 lahf_lm popcnt pni sse4_1 sse4_2 ssse3 avx avx2 bmi1 bmi2 f16c fma abm movbe" },
	{ "-march=x86-64-v4", "cx16 lahf_lm popcnt pni sse4_1 sse4_2 ssse3 avx avx2 bmi1 bmi2 f16c fma abm movbe "
	                      "avx512f avx512bw avx512cd avx512dq avx512vl" },
	{ NULL, NULL },
};

int isa_needs(const char *flag, char *out, size_t len)
{
	out[0] = '\0';
	for (int i = 0; table[i].flag; i++)
		if (strcmp(flag, table[i].flag) == 0) {
			snprintf(out, len, "%s", table[i].needs);
			return 1;
		}
	return 0;
}

/* The CPU's feature list (space-separated, with spaces around for word search). */
static char *cpu_features(const char **source)
{
	const char *env = getenv("PQPROF_CPU_FLAGS");
	char *text = NULL;
	if (env) {
		*source = "$PQPROF_CPU_FLAGS";
		size_t n = strlen(env);
		text = malloc(n + 3);
		if (text)
			snprintf(text, n + 3, " %s ", env);
		return text;
	}
	*source = "/proc/cpuinfo";
	if (read_whole_file("/proc/cpuinfo", &text, NULL, 16u << 20, NULL) < 0)
		return NULL;
	char *line = strstr(text, "\nflags");
	if (!line && strncmp(text, "flags", 5) == 0)
		line = text;
	char *out = NULL;
	if (line) {
		char *colon = strchr(line, ':'), *nl = colon ? strchr(colon, '\n') : NULL;
		if (colon) {
			size_t n = nl ? (size_t)(nl - colon - 1) : strlen(colon + 1);
			out = malloc(n + 3);
			if (out)
				snprintf(out, n + 3, " %.*s ", (int)n, colon + 1);
		}
	}
	free(text);
	return out;
}

int isa_missing(const char *flag, char *missing, size_t len, const char **source)
{
	char needs[512];
	missing[0] = '\0';
	*source = "/proc/cpuinfo";
	if (!isa_needs(flag, needs, sizeof needs))
		return 0;
	char *have = cpu_features(source);
	if (!have)
		return 0; /* nothing to check against (not Linux on x86): the compiler and the run will say */
	int n = 0;
	char *save = NULL;
	for (char *f = strtok_r(needs, " ", &save); f; f = strtok_r(NULL, " ", &save)) {
		char word[64];
		snprintf(word, sizeof word, " %s ", f);
		for (char *t = have; *t; t++)
			if (*t == '\t')
				*t = ' ';
		if (!strstr(have, word)) {
			/* Feature names in a message: whole, then "…" when there are more than it holds. */
			text_add_item(missing, len, " ", f, " \u2026");
			n++;
		}
	}
	free(have);
	return n;
}

void isa_cpu_name(char *out, size_t len)
{
	out[0] = '\0';
	char *text = NULL;
	if (read_whole_file("/proc/cpuinfo", &text, NULL, 16u << 20, NULL) < 0)
		return;
	char *l = strstr(text, "model name");
	if (l) {
		char *colon = strchr(l, ':'), *nl = colon ? strchr(colon, '\n') : NULL;
		if (colon) {
			colon++;
			while (*colon == ' ' || *colon == '\t')
				colon++;
			snprintf(out, len, "%.*s", (int)(nl ? nl - colon : (long)strlen(colon)), colon);
		}
	}
	free(text);
}
