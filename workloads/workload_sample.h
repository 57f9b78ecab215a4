#ifndef XFERCMP_WORKLOAD_SAMPLE_H
#define XFERCMP_WORKLOAD_SAMPLE_H

/*
 * A sample of a workload with the whole's shape (--sample SIZE|PERCENT|COUNT),
 * drawn from the whole's manifest, reproducibly from a seed; and the tree
 * it is materialised as, which the strategies move instead of the whole.
 *
 * How it is drawn (workload_sample.c):
 *  - The fraction f: PERCENT/100, SIZE over the whole's bytes, COUNT over
 *    its regular files. The sample aims at f of the whole's files AND f of
 *    its bytes: one shape, scaled.
 *  - A large file (at least WORKLOAD_SAMPLE_CUT_MIN and more than 1/64 of
 *    the sample's bytes: taken whole it would be a lump, left out its class
 *    would be missing) gives f of its bytes as pieces spread evenly over it:
 *    n = f * size / WORKLOAD_SAMPLE_PIECE pieces (1 to 64, rounded), each a
 *    file of its own beside it (PATH~pieceKofN), at a random offset within
 *    its n-th of the file. A file is never taken whole from a hard-link
 *    group it is cut from: such files are taken whole.
 *  - The other files are strata: log2 size class x a name of compressed
 *    data (.gz, .zst, .jpg, ...: the compressibility a name tells) x in a
 *    hard-link group. Each stratum gets f of its files, rounded so the
 *    totals hold (systematic rounding from a random start).
 *  - Files are taken directory by directory, in clusters: runs of
 *    directories next to each other in the tree (each at most 1/16 of the
 *    files wanted), the clusters in an order drawn from the seed, so that
 *    the directories taken share their ancestors as the whole's do. Whole
 *    directories come first, each while it brings the count closer to the
 *    share (one too large is passed over), so the sample has about f of
 *    the directories that hold files, and directories about as full as the
 *    whole's; then a stratum over its share gives files back, and one
 *    still short takes them from the directories left that hold the most
 *    of it. A file's hard-link group comes whole with it.
 *  - Symbolic links: f of them (rounded), those of the directories taken
 *    first; empty directories: f of them. Every directory above what was
 *    taken comes too, with its mode and mtime. Special files: none.
 *
 * How it is moved: materialised as a tree of its own in a fresh scratch
 * directory on the source side (workload_sample_tree.c), whole files and
 * pieces copied there (holes kept as holes), modes and mtimes as the
 * whole's, links made there. Why a copy: every strategy then moves an
 * ordinary tree, our own and the real tools (tar, rsync, rclone, a cmd:
 * template) alike, with no notion of a byte range; the source is never
 * touched (a hard link to a source file would change its link count and
 * ctime, and cannot cross file systems; a symbolic link would not be
 * followed); the copy is hashed as it is written, so the sample's manifest
 * is exact even when the whole's was only listed (a dir: tree too large to
 * read whole). What it costs: the sample's bytes written once on the
 * source, and the copy lies fresh on the disk where the whole may be
 * scattered; the runner still reads it cold.
 */

#include "manifest.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WORKLOAD_SAMPLE_PIECE (8ull << 20)
#define WORKLOAD_SAMPLE_CUT_MIN (2 * WORKLOAD_SAMPLE_PIECE)
#define WORKLOAD_SAMPLE_MAX_PIECES 64
/*
 * The one-file tree's file is at most this (workload_sample_one): a page,
 * so that the fixed cost holds next to nothing of a file's own work, for
 * a one-file workload too (its sample's files are 8 MiB pieces).
 */
#define WORKLOAD_SAMPLE_ONE_MAX 4096ull
/* size classes: 0 empty, k >= 1 sizes in [2^(k-1), 2^k) */
#define WORKLOAD_SAMPLE_CLASSES 65

enum workload_sample_unit {
	WORKLOAD_SAMPLE_PERCENT,	/* value: 0 < percent < 100 */
	WORKLOAD_SAMPLE_BYTES,		/* value: bytes */
	WORKLOAD_SAMPLE_FILES,		/* value: regular files */
};

struct workload_sample_request {
	enum workload_sample_unit unit;
	double value;
	const char *text;	/* as given, for the report */
};

/*
 * "5%" (or "0.5%"), "2G" (K/M/G/T, powers of 1024; a bare number with a
 * suffix), "10000" (files). Returns 0 or -1 (error set: what was expected).
 */
int workload_sample_parse(const char *text, struct workload_sample_request *req);

/* What a forecast scales by, for the whole and for a sample. */
struct workload_sample_counts {
	uint64_t files;		/* regular files (their first names) */
	uint64_t bytes;		/* their content */
	uint64_t dirs;		/* directories below the root */
	uint64_t dirs_with_files;	/* of them, those holding a regular file directly (+1: the root) */
	uint64_t symlinks, hardlinks;	/* hardlinks: the extra names */
	uint64_t compressed_files;	/* named as compressed data */
	uint64_t class_files[WORKLOAD_SAMPLE_CLASSES];
	uint64_t class_bytes[WORKLOAD_SAMPLE_CLASSES];
};

/* The size class of a file of size bytes. */
unsigned workload_sample_class(uint64_t size);

/* Whether a path names compressed data by its extension (.gz, .xz, .zst, .jpg, .mp4, .zip, ...). */
bool workload_sample_compressed_name(const char *path);

/* Counts m (sorted). */
void workload_sample_count(const struct manifest *m, struct workload_sample_counts *c);

/* Where the bytes of one file of the sample come from: a file of the whole, or a range of one. */
struct workload_sample_source {
	size_t entry;		/* index in the whole's entries[] */
	uint64_t offset, len;	/* the range; the whole file when it is not a piece */
	bool piece;
};

struct workload_sample {
	struct workload_sample_request request;
	uint64_t seed;
	double fraction;	/* f, as drawn for */
	/*
	 * The sample's tree: its manifest (paths as in the whole, pieces beside
	 * their files), sources[i] for m.entries[i]. Hashes are the whole's
	 * (0 where it was only listed) until materialised, then the copies'.
	 */
	struct manifest m;
	struct workload_sample_source *sources;
	uint64_t cut_files, pieces;	/* large files given as pieces, and how many */
	struct workload_sample_counts whole, sample;
	char method[640];	/* how it was drawn, one paragraph for the report */
	char dir[4096];		/* the materialised tree; "" until made */
};

/*
 * Draws a sample of whole (sorted, checked) as asked, from seed. The
 * sample is the whole (fraction 1) when it asks for all of it or more.
 * Returns 0 or -1 (error set). Release with workload_sample_release.
 */
int workload_sample_draw(const struct manifest *whole, const struct workload_sample_request *req,
			 uint64_t seed, struct workload_sample *out);

/* Whether the sample is the whole workload (nothing to materialise: the whole is moved). */
bool workload_sample_is_whole(const struct workload_sample *s);

/*
 * Materialises s as a tree in a fresh directory parent/xfercmp-sample.XXXXXX
 * (s->dir), reading whole_root only; sets the sample manifest's hashes to
 * the copies'. A file whose size or (known) hash differs from the whole's
 * manifest fails it: the source changed since it was listed. threads
 * copy at once. Returns 0 or -1 (error set; nothing left behind).
 */
int workload_sample_materialise(struct workload_sample *s, const struct manifest *whole,
				const char *whole_root, const char *parent, unsigned threads);

/*
 * A tree of one file of sample (drawn, not yet materialised or after): its
 * smallest file that is not empty (a piece, if that is what it is), cut to
 * its first WORKLOAD_SAMPLE_ONE_MAX bytes when larger, with the directories
 * above it, for out to be materialised from the same
 * whole. What a run of it costs is what any run costs, nearly all: the
 * fixed cost per run (--sample, model/sample_forecast.h). Its fraction is
 * one file of the whole's (of a one-file whole: its share of the bytes). Returns 0 or -1
 * (error set; out released). Release with workload_sample_release.
 */
int workload_sample_one(const struct workload_sample *sample, struct workload_sample *out);

/* The bytes the materialised tree takes on the source's disk, about: for the space check. */
uint64_t workload_sample_disk_bytes(const struct workload_sample *s);

void workload_sample_release(struct workload_sample *s);

#endif
