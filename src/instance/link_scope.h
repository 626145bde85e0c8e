/*
 * link_scope: how calls inside an instance library bind.  The submitters'
 * own KAT and benchmark programs are static executables, where a call from
 * one scheme function to another is a direct call the compiler may inline.
 * A shared library built with plain -fPIC keeps every exported function
 * interposable: calls to it go through the PLT and cannot be inlined, which
 * makes schemes with small exported helpers (field arithmetic) several
 * times slower than their own programs.  pqprof therefore builds instance
 * libraries in the "local" form by default (calls inside the library bind
 * locally) and keeps the "plain-pic" form for comparisons with reports
 * made by harnesses that measured it.  This file names the flags of each
 * form; it is not the builder and runs nothing.
 */
#ifndef PQ_LINK_SCOPE_H
#define PQ_LINK_SCOPE_H

enum link_scope {
	LINK_SCOPE_LOCAL = 0,      /* -fno-semantic-interposition, -Wl,-Bsymbolic-functions */
	LINK_SCOPE_PLAIN_PIC = 1,  /* -fPIC alone: what reference reports' harness measured */
};

/* Flags added to every compile command (NULL-terminated, may be empty). */
const char *const *link_scope_cflags(enum link_scope s);
/* Flags added to the link command (NULL-terminated, may be empty). */
const char *const *link_scope_ldflags(enum link_scope s);
/* "local" or "plain-pic": the form's name in records and reports. */
const char *link_scope_name(enum link_scope s);
/* One line for build notes and report section 2. */
const char *link_scope_summary(enum link_scope s);
/* All the form's flags as one string ("" for plain-pic). */
const char *link_scope_flags(enum link_scope s);

#endif
