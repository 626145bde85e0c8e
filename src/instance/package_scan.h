/*
 * package_scan: find the instances of a whole submission package, as
 * evaluators receive them.  An NGCC package holds
 * Reference_Implementation/<instance>/, Optimized_Implementation/<instance>/
 * and KAT folders (KAT/<instance>/, KAT_files/, Test_Vectors/ ...); a NIST
 * package holds Reference_Implementation/crypto_sign/<name>/,
 * Optimized_Implementation/crypto_sign/<name>/, maybe
 * Additional_Implementations/<variant>/crypto_sign/<name>/, and
 * KAT/<name>/PQCsignKAT_*.rsp.
 *
 * Every directory that holds an API header (SIG_AlgorithmInstance.h,
 * KEM_AlgorithmInstance.h or api.h) directly is one instance; the
 * implementation folder it sits in names its implementation version
 * ("reference", "optimized", "additional-avx2").  For each instance the scan
 * records why it decided what it did: which header chose the API, where
 * the instance name came from, which KAT file matched and by which rule,
 * or why none did.  Directories it passed over and KAT files no instance
 * uses are listed too.  A missing or ambiguous KAT file is a finding of
 * that instance, never an error of the scan.
 *
 * It only reads files; turning the result into a scheme descriptor is
 * campaign/package_desc.c's job.  Nothing here prints.
 */
#ifndef PQ_PACKAGE_SCAN_H
#define PQ_PACKAGE_SCAN_H

#include "core/pq_error.h"

#define PKG_MAX_INSTANCES 64
#define PKG_MAX_NOTES 128
#define PKG_NOTE_LEN 768

enum pkg_kat { PKG_KAT_MATCHED = 0, PKG_KAT_MISSING, PKG_KAT_AMBIGUOUS };

struct pkg_instance {
	char name[128];             /* instance name */
	char name_why[640];
	char implementation[64];    /* "reference", "optimized", "additional-avx2", ... */
	char tree[4096];            /* absolute */
	char rel[1024];             /* relative to the package */
	char api[8];                /* "ngcc" or "nist" */
	char kind[16];              /* "signature" or "kem" */
	char api_why[640];
	enum pkg_kat kat;
	char vectors[4096];         /* absolute path of the matched KAT file, or "" */
	char kat_rel[1024];         /* the same, relative to the package */
	char kat_why[1024];         /* the rule that matched, or why none did */
	char warning[1024];         /* a problem the build will meet, or "" */
};

struct pkg_scan {
	char root[4096];            /* the package, absolute */
	char layout[16];            /* "NGCC", "NIST" or "NGCC+NIST" */
	struct pkg_instance inst[PKG_MAX_INSTANCES];
	int ninst;
	/* Implementation and KAT folders found, and what was passed over. */
	char notes[PKG_MAX_NOTES][PKG_NOTE_LEN];
	int nnotes;
};

/* 1 when dir holds an implementation folder (Reference_Implementation, ...) one or two levels down. */
int package_is_package(const char *dir);

/*
 * Scan the package at dir.  Instance trees are checked as `pqprof build`
 * would (tree_scan) with their links inside `within` (NULL: the package);
 * a tree that would not build is kept, with a warning, so a campaign
 * gives it its build verdict.  Fails (PQ_EINPUT) when dir is not a
 * package or holds no instance.
 */
int package_scan(const char *dir, const char *within, struct pkg_scan *ps, pq_error *err);

#endif
