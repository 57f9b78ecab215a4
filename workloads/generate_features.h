#ifndef XFERCMP_GENERATE_FEATURES_H
#define XFERCMP_GENERATE_FEATURES_H

#include "manifest.h"
#include "workload.h"

#include <stdint.h>

/*
 * The parts of workload_generate (generate.c) that write tree features
 * (tree_features.h) into root, in its order: the directories before the
 * files, each file's links after it, the manifest once all is written.
 * Each returns 0 or -1 (error set); the caller removes the tree on failure.
 */

/* Creates every directory the features bring (read-only ones still writable). */
int generate_features_dirs(const struct workload_spec *spec, const char *root);

/*
 * After small file i is written at file_path: its symbolic link and other
 * names, and after the last file of a read-only directory, its 0555. Runs
 * on parallel_for's threads: a chunk is one leaf, written in index order by
 * one thread, so the directory's other files exist by then.
 */
int generate_features_after_file(const struct workload_spec *spec, const char *root, uint64_t i,
				 const char *file_path);

/*
 * Fills m with every node (hashes[i]: file i's xxh3), giving each directory
 * its final mode and mtime on the way. Called once nothing more is created:
 * a later entry would move a directory's mtime.
 */
int generate_features_manifest(const struct workload_spec *spec, const char *root,
			       const uint64_t *hashes, struct manifest *m);

/* -1 with "interrupted" set once workload_generate_cancel(true) was called; else 0. */
int generate_check_cancel(void);

#endif
