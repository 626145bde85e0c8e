/*
 * package_scan: find the instances of a whole submission package, as
 * evaluators receive them, by what its folders hold rather than by their
 * names.  An implementation tree is a folder with a build file of its own
 * (makefile; CMakeLists.txt or meson.build declaring a project) and a KAT
 * driver or an API header (SIG_AlgorithmInstance.h, KEM_AlgorithmInstance.h,
 * api.h, or its .h.in template) in it or a few folders below, or a folder
 * with an API header beside its C sources and no build file.  Trees are
 * looked for five folders deep, hidden folders and build outputs aside;
 * a tree is not searched for trees inside it unless it has no API header
 * of its own and folders below it are trees of their own (a makefile over
 * crypto_sign/<name>/ projects).  So NGCC packages
 * (Reference_Implementation/<instance>/, Implementations/<impl>_lvl1/
 * with a CMake project per level) and NIST packages
 * (Reference_Implementation/crypto_sign/<name>/,
 * Additional_Implementations/<variant>/crypto_sign/<name>/) read alike.
 *
 * Every tree gives its instances (several when its own build links
 * several KAT programs).  Folder names only label them: the implementation
 * version is "reference", "optimized", "additional-avx2" below the
 * classic implementation folders, else the tree's path in the package
 * ("implementations-x_lvl1").  For each instance the scan records why it
 * decided what it did: which header chose the API, where the instance
 * name came from, which KAT file matched and by which rule, or why none
 * did.  KAT files are matched by the generators' names first (anywhere
 * outside the trees, then inside the instance's own), then by content
 * (kat/kat_locate.h): any file in the package whose first record starts
 * the instance's seed sequence, tied to it by its names, by being the
 * only one, or by the public key the tree's own KAT program (run as its
 * observed build linked it) derives from the first seed.  Directories
 * passed over and KAT files no instance uses are listed too.  A missing
 * or ambiguous KAT file is a finding of that instance, never an error of
 * the scan.
 *
 * It reads files and runs nothing but what observing a tree runs (its
 * build, and its KAT program when only that can tie a file to it);
 * turning the result into a scheme descriptor is campaign/package_desc.c's
 * job.  Nothing here prints.
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
	char implementation[64];    /* "reference", "optimized", "additional-avx2", "implementations-x_lvl1" ... */
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

/*
 * 1 when dir is a package: it is not itself an implementation tree and
 * holds one, or it is a tree with no API header of its own over two or
 * more trees of their own.  Reads folders only (no build is run).
 */
int package_is_package(const char *dir);

/* 1 when dir is one implementation tree on its own (so never a package). */
int package_is_tree(const char *dir);

/*
 * 1 when a folder of this name belongs to one submission package: a
 * classic implementation folder (Reference_Implementation ...,
 * crypto_sign, crypto_kem), a KAT, test-vector or supporting-documentation
 * folder.  A folder holding one is a package,
 * never a round of packages (campaign/round.h).
 */
int package_classic_folder(const char *name);

/* 1 for the folders no scan looks into: hidden ones, build outputs. */
int package_passed_over(const char *dir, const char *name);

/*
 * Scan the package at dir.  Instance trees are checked as `pqprof build`
 * would (tree_scan) with their links inside `within` (NULL: the package);
 * a tree that would not build is kept, with a warning, so a campaign
 * gives it its build verdict.  Fails (PQ_EINPUT) when dir is not a
 * package or holds no instance.
 */
int package_scan(const char *dir, const char *within, struct pkg_scan *ps, pq_error *err);

#endif
