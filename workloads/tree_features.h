#ifndef XFERCMP_TREE_FEATURES_H
#define XFERCMP_TREE_FEATURES_H

#include "workload.h"

#include <stddef.h>
#include <stdint.h>

/*
 * Tree features: what a real tree holds besides regular files, added to the
 * small files of a generated workload (--tree-features, workload
 * "realistic"), every choice a pure function of (seed, file index) like the
 * files themselves. For small file index i, in its leaf directory
 * dPPPP/dLL:
 *
 *   dPPPP/dLL/lIIIIIIII        a symbolic link (symlinks share): to a file of
 *                              the leaf, to a file of a sibling leaf (../dLL/..),
 *                              absolute to a fixed system file outside the tree
 *                              (TREE_FEATURES_ABSOLUTE_TARGETS), dangling, or to an
 *                              empty directory of the leaf
 *   dPPPP/dLL/hIIIIIIII.1 (.2) one or two more names of file i (hardlinks share)
 *   dPPPP/eIIIIIIII, dPPPP/dLL/eIIIIIIII, dPPPP/dLL/eIIIIIIII/sub/empty
 *                              an empty directory at depth 2, 3 or 5 (emptydirs)
 *   dPPPP/dLL/rIIIIIIII/fJJJJJJJJ
 *                              files i..i+4 in a 0555 directory (rodirs share)
 *   mode 0755, 0444 or 0600    instead of 0644 (modes share)
 *
 * and every file and directory gets an mtime within ten years before
 * 2023-11-14, from a hash of its path. Each kind is chosen by strata: one
 * file in every 10000/share (a random one of each stratum), so the counts
 * are exact to a stratum and each kind is present once the workload has
 * 10000/share files (500 at the default shares, read-only directories the
 * rarest).
 */

/* Each share is at most 50%: at more a stratum is one file and nothing is left to choose. */
#define TREE_FEATURES_MAX_SHARE 5000
/* Files in one read-only directory. */
#define TREE_FEATURES_RODIR_FILES 5
/* At most two more names, a group of three: the groups of 2 and 3 a system tree has. */
#define TREE_FEATURES_MAX_HARDLINKS 2
/* At most three directories per file: an empty directory at depth 5 and its two parents. */
#define TREE_FEATURES_MAX_DIRS 4

/* Sets the default shares (in features.c, with where they come from) and on. */
void tree_features_default(struct workload_features *f);

/*
 * Parses "symlinks=5%,hardlinks=1%,..." (also links= for symlinks; a share
 * is a percentage with up to two decimals, '%' optional) over the defaults,
 * and sets on. NULL or "" is the defaults. Returns 0 or -1 (error set,
 * starting with the part it refuses).
 */
int tree_features_parse(const char *list, struct workload_features *f);

/* The canonical list, as features_parse reads it: "symlinks=5%,hardlinks=1%,...". */
void tree_features_format(const struct workload_features *f, char *buf, size_t len);

/* For small file index (features on): its path (read-only directory), mode and mtime. */
void tree_features_apply(const struct workload_spec *spec, uint64_t index, struct workload_entry *e);

/* The mtime of path in a workload with features: fixed by seed and path. */
int64_t tree_features_mtime(uint64_t seed, const char *path);

struct feature_link {
	char path[64];		/* relative to the workload root */
	char target[96];	/* the link's text */
};

/* Fills *l and returns 1 if small file index brings a symbolic link; else 0. */
int tree_features_symlink(const struct workload_spec *spec, uint64_t index, struct feature_link *l);

/* Fills names with the other names of small file index (hard links); returns how many (0..2). */
unsigned tree_features_hardlinks(const struct workload_spec *spec, uint64_t index,
			    char names[TREE_FEATURES_MAX_HARDLINKS][64]);

/*
 * Sets buf to the read-only directory small file index lives in and returns
 * 1; 0 if it lives in its leaf.
 */
int tree_features_rodir(const struct workload_spec *spec, uint64_t index, char *buf, size_t len);

struct feature_dir {
	char path[64];
	uint32_t mode;
};

/*
 * Fills dirs with the directories small file index brings (its read-only
 * directory if it is the group's first file, its empty directory and that
 * one's parents), each parent before its children; returns how many.
 */
unsigned tree_features_dirs(const struct workload_spec *spec, uint64_t index,
		       struct feature_dir dirs[TREE_FEATURES_MAX_DIRS]);

#endif
