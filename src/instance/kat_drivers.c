/* kat_drivers: the official KAT drivers' names; see kat_drivers.h. */
#include "config.h"
#include "instance/kat_drivers.h"
#include "core/text_buf.h"

#include <stdio.h>
#include <string.h>

const char *const kat_driver_stems[] = {
	"KAT_SIG", "KAT_KEM", "KAT_KEX", "KAT_CryptHash", "PQCgenKAT_sign", "PQCgenKAT_kem", NULL,
};

/* C, or C++ in some trees. */
static const char *const source_exts[] = { ".c", ".cpp", ".cc", ".cxx", NULL };

int kat_driver_is(const char *base)
{
	const char *dot = strrchr(base, '.');
	if (!dot)
		return 0;
	int ext = 0;
	for (int i = 0; source_exts[i] && !ext; i++)
		ext = strcmp(dot, source_exts[i]) == 0;
	size_t stem_len = (size_t)(dot - base);
	for (int i = 0; ext && kat_driver_stems[i]; i++)
		if (strlen(kat_driver_stems[i]) == stem_len && strncmp(base, kat_driver_stems[i], stem_len) == 0)
			return 1;
	return 0;
}

void kat_driver_names(char *buf, size_t len)
{
	if (!len)
		return;
	/* pqprof's own few stems: a buffer too small for them ends in "…". */
	buf[0] = '\0';
	for (int i = 0; kat_driver_stems[i]; i++)
		if (text_appendf(buf, len, "%s%s.c", i ? ", " : "", kat_driver_stems[i]) < 0) {
			text_mark_cut(buf, len);
			break;
		}
}
