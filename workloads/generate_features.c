/* What workload_generate does for tree features: their directories, links, modes and mtimes. */
#define _GNU_SOURCE
#include "generate_features.h"

#include "err.h"
#include "fsutil.h"
#include "tree_features.h"

#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The links small file i brings (tree features): its symbolic link, and its
 * other names, made once the file (at file_path) is complete. Their
 * directories exist already; their mtimes are set at the end.
 */
static int write_links(const struct workload_spec *spec, const char *root, uint64_t i,
		       const char *file_path)
{
	char names[TREE_FEATURES_MAX_HARDLINKS][64], path[PATH_MAX];
	unsigned nnames = tree_features_hardlinks(spec, i, names);
	struct feature_link l;

	if (tree_features_symlink(spec, i, &l)) {
		if (fs_join(path, sizeof(path), root, l.path) < 0)
			return -1;
		if (symlink(l.target, path) < 0)
			return err_errno("cannot create symbolic link '%s'", path);
	}
	for (unsigned k = 0; k < nnames; k++) {
		if (fs_join(path, sizeof(path), root, names[k]) < 0)
			return -1;
		if (link(file_path, path) < 0)
			return err_errno("cannot create hard link '%s'", path);
	}
	return 0;
}

/*
 * Made read-only after its last file rather than at the end: a failure or
 * an interrupt later leaves 0555 directories behind, which the cleanup
 * must and does remove.
 */
int generate_features_after_file(const struct workload_spec *spec, const char *root, uint64_t i,
				 const char *file_path)
{
	uint64_t nsmall = workload_small_count(spec);
	char rodir[64], path[PATH_MAX];

	if (write_links(spec, root, i, file_path) < 0)
		return -1;
	if ((i % TREE_FEATURES_RODIR_FILES == TREE_FEATURES_RODIR_FILES - 1 || i + 1 == nsmall) &&
	    tree_features_rodir(spec, i, rodir, sizeof(rodir))) {
		if (fs_join(path, sizeof(path), root, rodir) < 0)
			return -1;
		if (chmod(path, 0555) < 0)
			return err_errno("cannot make '%s' read-only", path);
	}
	return 0;
}

int generate_features_dirs(const struct workload_spec *spec, const char *dir)
{
	uint64_t nsmall = workload_small_count(spec);

	for (uint64_t i = 0; i < nsmall; i++) {
		struct feature_dir dirs[TREE_FEATURES_MAX_DIRS];
		unsigned n = tree_features_dirs(spec, i, dirs);

		if (i % WORKLOAD_FILES_PER_DIR == 0 && generate_check_cancel() < 0)
			return -1;
		for (unsigned k = 0; k < n; k++) {
			char path[PATH_MAX];

			if (fs_join(path, sizeof(path), dir, dirs[k].path) < 0)
				return -1;
			if (mkdir(path, 0755) < 0)
				return err_errno("cannot create directory '%s'", path);
		}
	}
	return 0;
}

/*
 * Gives directory rel its final mode and mtime, and lists it in m. Called
 * once nothing more is created in it: a later entry would move its mtime.
 */
static int finish_dir(struct manifest *m, const char *root, const char *rel, uint32_t mode,
		      uint64_t seed)
{
	int64_t mtime = tree_features_mtime(seed, rel);
	struct timespec times[2] = { { .tv_sec = mtime }, { .tv_sec = mtime } };
	char path[PATH_MAX];

	if (fs_join(path, sizeof(path), root, rel) < 0)
		return -1;
	if (chmod(path, mode) < 0)
		return err_errno("cannot set the mode of '%s'", path);
	if (utimensat(AT_FDCWD, path, times, AT_SYMLINK_NOFOLLOW) < 0)
		return err_errno("cannot set the mtime of '%s'", path);
	return manifest_add_dir(m, rel, mode, mtime);
}

/*
 * Lists file i of a workload with tree features in m, with its other names:
 * as manifest_from_tree reads a hard-link group, the bytewise-first name is
 * the file (a file of a read-only directory "r..." sorts after its names
 * "h..." in the leaf), the others hard links to it.
 */
static int add_file_group(struct manifest *m, const struct workload_spec *spec, uint64_t i,
			  uint64_t hash)
{
	char names[TREE_FEATURES_MAX_HARDLINKS][64];
	unsigned nnames = i < workload_small_count(spec) ? tree_features_hardlinks(spec, i, names) : 0;
	struct workload_entry e;
	const char *primary;

	workload_entry(spec, i, &e);
	primary = e.path;
	for (unsigned k = 0; k < nnames; k++)
		if (strcmp(names[k], primary) < 0)
			primary = names[k];
	if (manifest_add_file(m, primary, e.size, e.mode, e.mtime, hash) < 0)
		return -1;
	if (primary != e.path && manifest_add_hardlink(m, e.path, primary) < 0)
		return -1;
	for (unsigned k = 0; k < nnames; k++)
		if (names[k] != primary && manifest_add_hardlink(m, names[k], primary) < 0)
			return -1;
	return 0;
}

int generate_features_manifest(const struct workload_spec *spec, const char *root,
			       const uint64_t *hashes, struct manifest *m)
{
	uint64_t n = workload_count(spec), nsmall = workload_small_count(spec);
	uint64_t ndirs = workload_dir_count(spec), per = workload_leaves_per_parent();

	for (uint64_t d = 0; d < ndirs; d++) {
		char rel[64];

		workload_dir_name(spec, d, rel, sizeof(rel));
		if (finish_dir(m, root, rel, 0755, spec->seed) < 0)
			return -1;
		/* a leaf dPPPP/dLL: its parent dPPPP, once, with its first leaf */
		if (d * WORKLOAD_FILES_PER_DIR < nsmall && d % per == 0) {
			*strchr(rel, '/') = '\0';
			if (finish_dir(m, root, rel, 0755, spec->seed) < 0)
				return -1;
		}
	}
	for (uint64_t i = 0; i < n; i++) {
		struct feature_dir dirs[TREE_FEATURES_MAX_DIRS];
		struct feature_link l;
		unsigned nd;

		if (i % WORKLOAD_FILES_PER_DIR == 0 && generate_check_cancel() < 0)
			return -1;
		if (add_file_group(m, spec, i, hashes[i]) < 0)
			return -1;
		if (i >= nsmall)
			continue;
		if (tree_features_symlink(spec, i, &l) && manifest_add_symlink(m, l.path, l.target) < 0)
			return -1;
		nd = tree_features_dirs(spec, i, dirs);
		for (unsigned k = 0; k < nd; k++)
			if (finish_dir(m, root, dirs[k].path, dirs[k].mode, spec->seed) < 0)
				return -1;
	}
	return 0;
}
