#ifndef XFERCMP_MANIFEST_H
#define XFERCMP_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * The manifest describes a tree: what verification checks against. Text
 * form, version 2, one node a line, tab-separated, after the header
 * "# xfercmp-manifest 2" (and an optional "# workload DESCRIPTION"):
 *
 *   f  XXH3  SIZE  MODE  MTIME  PATH   a regular file (the first path of its inode)
 *   h  PRIMARY  PATH                   a hard link: PATH is another name of the f PRIMARY
 *   l  TARGET  PATH                    a symbolic link whose text is TARGET (never followed)
 *   d  MODE  MTIME  PATH               a directory below the root (empty or not)
 *   s  KIND  PATH                      a special file left out: KIND c, b, p or s
 *
 * XXH3 is 16 hex digits, MODE octal (<= 07777), MTIME signed decimal seconds.
 * Paths are relative to the root; in paths and targets a backslash, tab or
 * newline is escaped as \\, \t, \n. Version 1 files (lines "XXH3 SIZE MODE
 * PATH", regular files only) still load: their mtimes are unknown.
 *
 * In memory every kind has its own array, each sorted by path: entries[] are
 * the regular files whose content travels (what every strategy sends and
 * what send plans split), and the others say how the tree around them looks.
 */

#define MANIFEST_VERSION 2
/* mtime of a version-1 entry: not known, not checked */
#define MANIFEST_NO_MTIME INT64_MIN

struct manifest_entry {
	char *path;
	uint64_t size;
	uint64_t xxh3;
	uint32_t mode;
	int64_t mtime;		/* seconds; MANIFEST_NO_MTIME when unknown */
};

struct manifest_dir {
	char *path;
	uint32_t mode;
	int64_t mtime;
};

struct manifest_symlink {
	char *path;
	char *target;		/* the link's text: data, never resolved */
};

struct manifest_hardlink {
	char *path;
	char *primary;		/* a path in entries[]: the same inode */
};

struct manifest_special {
	char *path;
	char kind;		/* 'c' char device, 'b' block device, 'p' fifo, 's' socket */
};

struct manifest {
	struct manifest_entry *entries;	/* regular files */
	size_t count, alloc;
	uint64_t total_bytes;		/* sum of entries[].size */
	struct manifest_dir *dirs;
	size_t ndirs, dirs_alloc;
	struct manifest_symlink *symlinks;
	size_t nsymlinks, symlinks_alloc;
	struct manifest_hardlink *hardlinks;
	size_t nhardlinks, hardlinks_alloc;
	struct manifest_special *specials;	/* left out: listed so the report can name them */
	size_t nspecials, specials_alloc;
	int version;			/* of the text it was parsed from; MANIFEST_VERSION when built */
	char *description;	/* free text from the "# workload" line, may be NULL */
};

void manifest_init(struct manifest *m);
void manifest_release(struct manifest *m);

/* Each appends copies of its strings; returns 0 or -1 (error set). */
int manifest_add(struct manifest *m, const char *path, uint64_t size, uint32_t mode, uint64_t xxh3);
int manifest_add_file(struct manifest *m, const char *path, uint64_t size, uint32_t mode,
		      int64_t mtime, uint64_t xxh3);
int manifest_add_dir(struct manifest *m, const char *path, uint32_t mode, int64_t mtime);
int manifest_add_symlink(struct manifest *m, const char *path, const char *target);
int manifest_add_hardlink(struct manifest *m, const char *path, const char *primary);
int manifest_add_special(struct manifest *m, const char *path, char kind);

/* Sorts every array by path (bytewise) so lookups can bisect. Call after the last add. */
void manifest_sort(struct manifest *m);

/*
 * Checks a sorted manifest is one tree: no path twice (in any array), every
 * hard link's primary a regular file of entries[]. Returns 0 or -1 (error set).
 */
int manifest_check(const struct manifest *m);

/* Finds path in a sorted manifest; NULL if absent. */
const struct manifest_entry *manifest_find(const struct manifest *m, const char *path);
const struct manifest_dir *manifest_find_dir(const struct manifest *m, const char *path);
const struct manifest_symlink *manifest_find_symlink(const struct manifest *m, const char *path);
const struct manifest_hardlink *manifest_find_hardlink(const struct manifest *m, const char *path);

/*
 * Whether a sorted manifest has a node below directory dir (a path starting
 * "dir/"); special files count only when with_specials.
 */
int manifest_has_below(const struct manifest *m, const char *dir, int with_specials);

/* Number of nodes of every kind but specials: files, hard links, symlinks, directories. */
uint64_t manifest_nodes(const struct manifest *m);

/* Writes the text form; returns 0 or -1 (error set). */
int manifest_write(const struct manifest *m, FILE *f);
int manifest_save(const struct manifest *m, const char *file);

/* Parses the text form from memory (len bytes) or a file; sorts and checks. Returns 0 or -1 (error set). */
int manifest_parse(struct manifest *m, const char *text, size_t len);
int manifest_load(struct manifest *m, const char *file);

/* The default manifest of a tree: DIR.manifest beside DIR, so it never travels with the tree. */
int manifest_default_path(const char *dir, char *buf, size_t len);

/* Serializes into a malloc'd buffer (*out, *len) for sending; returns 0 or -1. */
int manifest_to_buffer(const struct manifest *m, char **out, size_t *len);

/*
 * Builds the manifest of an existing tree by reading every regular file
 * (dir:PATH workloads): directories, symbolic links (their text), hard-link
 * groups (the bytewise-first path is the entry, the others hard links),
 * modes and mtimes. Special files are listed in specials[] and left out.
 * Only reads; never modifies the tree.
 */
int manifest_from_tree(struct manifest *m, const char *root, unsigned threads);

/*
 * manifest_from_tree without reading the files: every hash is 0 (not
 * known). For a tree only part of which is moved (--sample without
 * --check): listing 5 TB takes a walk, hashing it a read of 5 TB.
 */
int manifest_list_tree(struct manifest *m, const char *root);

/*
 * Whether root still holds m's files: each a regular file of its size
 * (lstat only, no reading). A --source-dir whose manifest is left but
 * whose tree was removed or changed in part is generated again, not
 * reused (cmd/compare_session.c).
 */
bool manifest_tree_holds(const struct manifest *m, const char *root);

#endif
