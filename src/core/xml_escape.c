/* xml_escape: text into HTML and XML; see xml_escape.h. */
#include "config.h"
#include "core/xml_escape.h"

void xml_escape(FILE *out, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		switch (*p) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default:
			if (*p < 0x20 && *p != '\n' && *p != '\t')
				fputc(' ', out);
			else
				fputc(*p, out);
		}
	}
}
