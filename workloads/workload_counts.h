#ifndef XFERCMP_WORKLOAD_COUNTS_H
#define XFERCMP_WORKLOAD_COUNTS_H

/*
 * What the model's forecast knows of a tree before anything moves: its
 * counts (docs/MODEL.md, "Inputs"). Made from a manifest alone, so the same
 * numbers describe the whole and a sample of it.
 */

#include "manifest.h"

#include <stdint.h>

/*
 * A file of at most this many bytes is small: its cost is per file (an
 * open, a create) more than per byte. It is the size the source open probe
 * samples (probe/probes.h, PROBE_OPEN_MAX_SIZE) and the create probe writes
 * less than, so the two ceilings measure exactly such files. Defined here
 * and nowhere else.
 */
#define WORKLOAD_SMALL_FILE_BYTES (64u << 10)

/* log2 size classes: class k holds sizes in [2^(k-1), 2^k), class 0 the empty files */
#define WORKLOAD_SIZE_CLASSES 48

struct workload_counts {
	uint64_t files;		/* regular files */
	uint64_t bytes;		/* their content */
	uint64_t dirs, symlinks, hardlinks;
	uint64_t small_files, small_bytes;	/* files of at most WORKLOAD_SMALL_FILE_BYTES */
	uint64_t small_bytes_in_pages;		/* theirs rounded up to 4 KiB pages, file by file */
	uint64_t large_files, large_bytes;	/* the rest */
	uint64_t nonempty_files;
	uint64_t name_bytes;	/* the paths of every name (files, links, directories) */
	/* content rounded up to 512-byte blocks, file by file: what a tar stream carries */
	uint64_t bytes_in_blocks;
	uint64_t size_class[WORKLOAD_SIZE_CLASSES];	/* files per class */
};

/* The counts of m. */
void workload_counts_of(const struct manifest *m, struct workload_counts *out);

/* Files, symlinks and hard links: the names a receiver makes besides directories. */
uint64_t workload_counts_nodes(const struct workload_counts *c);

/* The size class of a file of size bytes (0 for an empty one). */
unsigned workload_size_class(uint64_t size);

#endif
