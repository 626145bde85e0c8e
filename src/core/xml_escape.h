/*
 * xml_escape: untrusted text (instance names, failure reasons, symbol
 * names) written into HTML or XML/SVG so that it stays text.  The five
 * special characters become character references (&amp; &lt; &gt; &quot;
 * &#39;, valid in both), control characters other than newline and tab
 * become spaces.
 */
#ifndef PQ_XML_ESCAPE_H
#define PQ_XML_ESCAPE_H

#include <stdio.h>

/* NULL is written as nothing. */
void xml_escape(FILE *out, const char *s);

#endif
