/* The manifest in memory: one sorted array per kind of node. */
#define _GNU_SOURCE
#include "manifest.h"

#include "err.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void manifest_init(struct manifest *m)
{
	memset(m, 0, sizeof(*m));
	m->version = MANIFEST_VERSION;
}

void manifest_release(struct manifest *m)
{
	for (size_t i = 0; i < m->count; i++)
		free(m->entries[i].path);
	for (size_t i = 0; i < m->ndirs; i++)
		free(m->dirs[i].path);
	for (size_t i = 0; i < m->nsymlinks; i++) {
		free(m->symlinks[i].path);
		free(m->symlinks[i].target);
	}
	for (size_t i = 0; i < m->nhardlinks; i++) {
		free(m->hardlinks[i].path);
		free(m->hardlinks[i].primary);
	}
	for (size_t i = 0; i < m->nspecials; i++)
		free(m->specials[i].path);
	free(m->entries);
	free(m->dirs);
	free(m->symlinks);
	free(m->hardlinks);
	free(m->specials);
	free(m->description);
	manifest_init(m);
}

/* Makes room for one more element in *arr (count used of *alloc); returns it zeroed or NULL (error set). */
static void *grow(void *arr_ptr, size_t count, size_t *alloc, size_t elem)
{
	void **arr = arr_ptr;

	if (count == *alloc) {
		size_t n = *alloc ? *alloc * 2 : 256;
		void *grown = realloc(*arr, n * elem);

		if (!grown) {
			err_set("out of memory for a manifest of %zu entries", n);
			return NULL;
		}
		*arr = grown;
		*alloc = n;
	}
	return memset((char *)*arr + count * elem, 0, elem);
}

static char *dup_or_fail(const char *s)
{
	char *d = strdup(s);

	if (!d)
		err_set("out of memory for manifest path");
	return d;
}

int manifest_add_file(struct manifest *m, const char *path, uint64_t size, uint32_t mode,
		      int64_t mtime, uint64_t xxh3)
{
	struct manifest_entry *e = grow(&m->entries, m->count, &m->alloc, sizeof(*e));

	if (!e || !(e->path = dup_or_fail(path)))
		return -1;
	e->size = size;
	e->mode = mode;
	e->mtime = mtime;
	e->xxh3 = xxh3;
	m->count++;
	m->total_bytes += size;
	return 0;
}

int manifest_add(struct manifest *m, const char *path, uint64_t size, uint32_t mode, uint64_t xxh3)
{
	return manifest_add_file(m, path, size, mode, MANIFEST_NO_MTIME, xxh3);
}

int manifest_add_dir(struct manifest *m, const char *path, uint32_t mode, int64_t mtime)
{
	struct manifest_dir *d = grow(&m->dirs, m->ndirs, &m->dirs_alloc, sizeof(*d));

	if (!d || !(d->path = dup_or_fail(path)))
		return -1;
	d->mode = mode;
	d->mtime = mtime;
	m->ndirs++;
	return 0;
}

int manifest_add_symlink(struct manifest *m, const char *path, const char *target)
{
	struct manifest_symlink *l = grow(&m->symlinks, m->nsymlinks, &m->symlinks_alloc, sizeof(*l));

	if (!l || !(l->path = dup_or_fail(path)))
		return -1;
	if (!(l->target = dup_or_fail(target))) {
		free(l->path);
		return -1;
	}
	m->nsymlinks++;
	return 0;
}

int manifest_add_hardlink(struct manifest *m, const char *path, const char *primary)
{
	struct manifest_hardlink *h = grow(&m->hardlinks, m->nhardlinks, &m->hardlinks_alloc,
					   sizeof(*h));

	if (!h || !(h->path = dup_or_fail(path)))
		return -1;
	if (!(h->primary = dup_or_fail(primary))) {
		free(h->path);
		return -1;
	}
	m->nhardlinks++;
	return 0;
}

int manifest_add_special(struct manifest *m, const char *path, char kind)
{
	struct manifest_special *s = grow(&m->specials, m->nspecials, &m->specials_alloc,
					  sizeof(*s));

	if (!s || !(s->path = dup_or_fail(path)))
		return -1;
	s->kind = kind;
	m->nspecials++;
	return 0;
}

/* Every node struct starts with its path: one comparison serves them all. */
static int node_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int key_cmp(const void *key, const void *node)
{
	return strcmp(key, *(char *const *)node);
}

/* qsort with an empty array: an array never grown is NULL, which qsort may not be given */
static void sort_nodes(void *arr, size_t n, size_t elem)
{
	if (n > 1)
		qsort(arr, n, elem, node_cmp);
}

void manifest_sort(struct manifest *m)
{
	sort_nodes(m->entries, m->count, sizeof(*m->entries));
	sort_nodes(m->dirs, m->ndirs, sizeof(*m->dirs));
	sort_nodes(m->symlinks, m->nsymlinks, sizeof(*m->symlinks));
	sort_nodes(m->hardlinks, m->nhardlinks, sizeof(*m->hardlinks));
	sort_nodes(m->specials, m->nspecials, sizeof(*m->specials));
}

static const void *find(const void *arr, size_t n, size_t elem, const char *path)
{
	return n ? bsearch(path, arr, n, elem, key_cmp) : NULL;
}

const struct manifest_entry *manifest_find(const struct manifest *m, const char *path)
{
	return find(m->entries, m->count, sizeof(*m->entries), path);
}

const struct manifest_dir *manifest_find_dir(const struct manifest *m, const char *path)
{
	return find(m->dirs, m->ndirs, sizeof(*m->dirs), path);
}

const struct manifest_symlink *manifest_find_symlink(const struct manifest *m, const char *path)
{
	return find(m->symlinks, m->nsymlinks, sizeof(*m->symlinks), path);
}

const struct manifest_hardlink *manifest_find_hardlink(const struct manifest *m, const char *path)
{
	return find(m->hardlinks, m->nhardlinks, sizeof(*m->hardlinks), path);
}

/* Whether some node of a sorted array has a path starting with prefix (plen bytes). */
static int any_below(const void *arr, size_t n, size_t elem, const char *prefix, size_t plen)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(*(char *const *)((const char *)arr + mid * elem), prefix) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !strncmp(*(char *const *)((const char *)arr + lo * elem), prefix, plen);
}

int manifest_has_below(const struct manifest *m, const char *dir, int with_specials)
{
	char prefix[PATH_MAX];
	int n = snprintf(prefix, sizeof(prefix), "%s/", dir);

	/* No path of the manifest is that long, so nothing is below it. */
	if (n < 0 || (size_t)n >= sizeof(prefix))
		return 0;
	return any_below(m->entries, m->count, sizeof(*m->entries), prefix, (size_t)n) ||
	       any_below(m->dirs, m->ndirs, sizeof(*m->dirs), prefix, (size_t)n) ||
	       any_below(m->symlinks, m->nsymlinks, sizeof(*m->symlinks), prefix, (size_t)n) ||
	       any_below(m->hardlinks, m->nhardlinks, sizeof(*m->hardlinks), prefix, (size_t)n) ||
	       (with_specials &&
		any_below(m->specials, m->nspecials, sizeof(*m->specials), prefix, (size_t)n));
}

uint64_t manifest_nodes(const struct manifest *m)
{
	return (uint64_t)m->count + m->ndirs + m->nsymlinks + m->nhardlinks;
}

/* The kinds, for manifest_check: each array sorted, so a duplicate is a neighbour or in another kind. */
static int check_unique(const void *arr, size_t n, size_t elem, const struct manifest *m,
			const char *kind)
{
	for (size_t i = 0; i < n; i++) {
		const char *p = *(char *const *)((const char *)arr + i * elem);
		unsigned found = (manifest_find(m, p) != NULL) + (manifest_find_dir(m, p) != NULL) +
				 (manifest_find_symlink(m, p) != NULL) +
				 (manifest_find_hardlink(m, p) != NULL) +
				 (find(m->specials, m->nspecials, sizeof(*m->specials), p) != NULL);

		if (i > 0 && !strcmp(p, *(char *const *)((const char *)arr + (i - 1) * elem)))
			return err_set("manifest lists %s '%s' twice", kind, p);
		if (found > 1)
			return err_set("manifest lists '%s' as two kinds of node", p);
	}
	return 0;
}

int manifest_check(const struct manifest *m)
{
	if (check_unique(m->entries, m->count, sizeof(*m->entries), m, "file") < 0 ||
	    check_unique(m->dirs, m->ndirs, sizeof(*m->dirs), m, "directory") < 0 ||
	    check_unique(m->symlinks, m->nsymlinks, sizeof(*m->symlinks), m, "symbolic link") < 0 ||
	    check_unique(m->hardlinks, m->nhardlinks, sizeof(*m->hardlinks), m, "hard link") < 0 ||
	    check_unique(m->specials, m->nspecials, sizeof(*m->specials), m, "special file") < 0)
		return -1;
	for (size_t i = 0; i < m->nhardlinks; i++)
		if (!manifest_find(m, m->hardlinks[i].primary))
			return err_set("hard link '%s' names '%s', which is not a file of the manifest",
				       m->hardlinks[i].path, m->hardlinks[i].primary);
	return 0;
}
