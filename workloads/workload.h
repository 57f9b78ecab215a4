#ifndef XFERCMP_WORKLOAD_H
#define XFERCMP_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

/*
 * A workload is a description (kind, counts, seed, compressibility) from which
 * every file's path, size and content follow deterministically; or, for
 * dir:PATH, the user's own tree, which is only ever read.
 */

enum workload_kind {
	WORKLOAD_LARGEFILE,
	WORKLOAD_SMALLFILES,
	WORKLOAD_MIXED,
	WORKLOAD_DIR,
};

struct workload_spec {
	enum workload_kind kind;
	uint64_t files;		/* small files (smallfiles, mixed) */
	uint64_t size;		/* largefile size; total of the large files in mixed */
	uint64_t seed;
	double compressibility;	/* 0 = random bytes .. 1 = trivially compressible */
	const char *dir;	/* WORKLOAD_DIR only: the user's tree */
};

/* One generated file. */
struct workload_entry {
	char path[64];		/* relative to the workload root */
	uint64_t size;
	uint32_t mode;
};

#define WORKLOAD_DEFAULT_LARGE_SIZE (20ull << 30)
#define WORKLOAD_DEFAULT_FILES 120000ull
#define WORKLOAD_DEFAULT_MIXED_FILES 20000ull
#define WORKLOAD_DEFAULT_MIXED_SIZE (2ull << 30)
#define WORKLOAD_MIXED_LARGE_FILES 4
#define WORKLOAD_FILES_PER_DIR 1000
#define WORKLOAD_SMALL_CAP (1ull << 20)
#define WORKLOAD_MAX_FILES 100000000ull

/*
 * Parses "largefile", "smallfiles", "mixed" or "dir:PATH" into spec->kind (and
 * spec->dir, pointing into name). Returns 0 or -1 (error set).
 */
int workload_parse_name(const char *name, struct workload_spec *spec);

/* Sets defaults for the kind where files/size are 0. */
void workload_apply_defaults(struct workload_spec *spec);

const char *workload_kind_name(enum workload_kind kind);

/* Number of files a generated workload has. */
uint64_t workload_count(const struct workload_spec *spec);

/* Fills *e for file index (0 <= index < workload_count); index order is path order. */
void workload_entry(const struct workload_spec *spec, uint64_t index, struct workload_entry *e);

/* Number of distinct directories (relative paths) the workload needs; their names by index. */
uint64_t workload_dir_count(const struct workload_spec *spec);
void workload_dir_name(const struct workload_spec *spec, uint64_t index, char *buf, unsigned len);

/* Size of small file number i: log-normal, median 2 KiB, mean about 4 KiB, capped at 1 MiB. */
uint64_t workload_small_size(uint64_t seed, uint64_t index);

/*
 * Fills buf with the content of file index at byte offset off (a multiple of
 * WORKLOAD_BLOCK). Content depends only on (seed, index, offset, compressibility).
 */
#define WORKLOAD_BLOCK (1u << 20)
void workload_fill(const struct workload_spec *spec, uint64_t index, uint64_t off, void *buf,
		   uint64_t len);

#endif
