#ifndef XFERCMP_MANIFEST_H
#define XFERCMP_MANIFEST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * The manifest is what verification checks against: one line per regular
 * file, "xxh3<TAB>size<TAB>mode<TAB>path", sorted by path, after a header
 * line "# xfercmp-manifest 1". Paths are relative to the workload root; a
 * backslash, tab or newline in a path is escaped as \\, \t, \n.
 */

#define MANIFEST_VERSION 1

struct manifest_entry {
	char *path;
	uint64_t size;
	uint64_t xxh3;
	uint32_t mode;
};

struct manifest {
	struct manifest_entry *entries;
	size_t count, alloc;
	uint64_t total_bytes;
	char *description;	/* free text from the "# workload" line, may be NULL */
};

void manifest_init(struct manifest *m);
void manifest_release(struct manifest *m);

/* Appends a copy of path; returns 0 or -1 (error set). */
int manifest_add(struct manifest *m, const char *path, uint64_t size, uint32_t mode, uint64_t xxh3);

/* Sorts by path (bytewise) so lookups can bisect. Call after the last add. */
void manifest_sort(struct manifest *m);

/* Finds path in a sorted manifest; NULL if absent. */
const struct manifest_entry *manifest_find(const struct manifest *m, const char *path);

/* Writes the text form; returns 0 or -1 (error set). */
int manifest_write(const struct manifest *m, FILE *f);
int manifest_save(const struct manifest *m, const char *file);

/* Parses the text form from memory (len bytes) or a file; sorts. Returns 0 or -1 (error set). */
int manifest_parse(struct manifest *m, const char *text, size_t len);
int manifest_load(struct manifest *m, const char *file);

/* The default manifest of a tree: DIR.manifest beside DIR, so it never travels with the tree. */
int manifest_default_path(const char *dir, char *buf, size_t len);

/* Serializes into a malloc'd buffer (*out, *len) for sending; returns 0 or -1. */
int manifest_to_buffer(const struct manifest *m, char **out, size_t *len);

/*
 * Builds the manifest of an existing tree by reading every regular file
 * (dir:PATH workloads). Only reads; never modifies the tree. Symbolic links
 * and special files are counted in *skipped and left out.
 */
int manifest_from_tree(struct manifest *m, const char *root, unsigned threads, uint64_t *skipped);

#endif
