/* Building a manifest by reading an existing tree: the dir:PATH workload. */
#include "manifest.h"

#include "err.h"
#include "fsutil.h"
#include "hash_bufs.h"
#include "parallel.h"
#include "tree.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define HASH_BUF (1u << 20)

struct hash_job {
	const char *root;
	struct tree *tree;
	uint64_t *hashes;
	const char **skip;	/* non-NULL: a hard link, hashed as its primary */
	struct hash_bufs bufs;
};

static int hash_one(void *ctx, unsigned worker, uint64_t i)
{
	struct hash_job *job = ctx;
	struct tree_file *f = &job->tree->files[i];
	char path[PATH_MAX];
	uint64_t size;

	if (f->type != TREE_REGULAR || job->skip[i])
		return 0;
	if (fs_join(path, sizeof(path), job->root, f->path) < 0)
		return -1;
	/*
	 * With drop-behind (common/cache_behind.c): a 4 GiB file's manifest took
	 * 9.6-14.1 s before the probes began without it, 4.2 s with it (testbed
	 * VM, caches dropped, two runs each); each run drops the source anyway.
	 */
	if (tree_hash_file(path, job->bufs.buf[worker], job->bufs.size, 1, &job->hashes[i], &size) < 0)
		return -1;
	if (size != f->size)
		return err_set("'%s' changed while it was read (size %llu, then %llu)", path,
			       (unsigned long long)f->size, (unsigned long long)size);
	return 0;
}

/* Orders tree files by inode, then path: the first of each inode group is its primary. */
static int inode_cmp(const void *a, const void *b)
{
	const struct tree_file *x = *(const struct tree_file *const *)a;
	const struct tree_file *y = *(const struct tree_file *const *)b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return strcmp(x->path, y->path);
}

/*
 * Regular files with more than one link inside the tree: all but the
 * bytewise-first path of each inode become hard links (primary[i] names it);
 * primary[i] is NULL for a file that is its own entry.
 */
static int group_hardlinks(struct tree *t, const char **primary)
{
	struct tree_file **linked;
	size_t n = 0;

	for (size_t i = 0; i < t->count; i++)
		if (t->files[i].type == TREE_REGULAR && t->files[i].nlink > 1)
			n++;
	if (!n)
		return 0;
	linked = malloc(n * sizeof(*linked));
	if (!linked)
		return err_set("out of memory grouping hard links");
	n = 0;
	for (size_t i = 0; i < t->count; i++)
		if (t->files[i].type == TREE_REGULAR && t->files[i].nlink > 1)
			linked[n++] = &t->files[i];
	qsort(linked, n, sizeof(*linked), inode_cmp);
	for (size_t i = 1; i < n; i++)
		if (linked[i]->dev == linked[i - 1]->dev && linked[i]->ino == linked[i - 1]->ino) {
			const char *first = primary[linked[i - 1] - t->files];

			primary[linked[i] - t->files] = first ? first : linked[i - 1]->path;
		}
	free(linked);
	return 0;
}

static int add_node(struct manifest *m, const struct tree_file *f, const char *primary,
		    uint64_t hash)
{
	switch (f->type) {
	case TREE_REGULAR:
		if (primary)
			return manifest_add_hardlink(m, f->path, primary);
		return manifest_add_file(m, f->path, f->size, f->mode, f->mtime, hash);
	case TREE_DIR:
		return manifest_add_dir(m, f->path, f->mode, f->mtime);
	case TREE_SYMLINK:
		return manifest_add_symlink(m, f->path, f->target);
	case TREE_OTHER:
		return manifest_add_special(m, f->path, f->kind);
	}
	return 0;
}

/* manifest_from_tree, or with hash false manifest_list_tree. */
static int from_tree(struct manifest *m, const char *root, unsigned threads, bool hash)
{
	struct tree t;
	struct hash_job job = { .root = root, .tree = &t };
	const char **primary = NULL;
	int rc = -1;

	manifest_init(m);
	if (tree_scan(root, &t) < 0)
		return -1;
	job.hashes = calloc(t.count ? t.count : 1, sizeof(*job.hashes));
	primary = calloc(t.count ? t.count : 1, sizeof(*primary));
	if (!job.hashes || !primary || hash_bufs_init(&job.bufs, threads, HASH_BUF) < 0) {
		err_set("out of memory hashing '%s'", root);
		goto out;
	}
	if (group_hardlinks(&t, primary) < 0)
		goto out;
	job.skip = primary;
	if (hash && parallel_for(t.count, threads, 16, hash_one, &job, NULL) < 0)
		goto out;
	for (size_t i = 0; i < t.count; i++)
		if (add_node(m, &t.files[i], primary[i], job.hashes[i]) < 0)
			goto out;
	manifest_sort(m);
	rc = 0;
out:
	hash_bufs_release(&job.bufs);
	free(job.hashes);
	free(primary);
	tree_release(&t);
	if (rc < 0)
		manifest_release(m);
	return rc;
}

int manifest_from_tree(struct manifest *m, const char *root, unsigned threads)
{
	return from_tree(m, root, threads, true);
}

int manifest_list_tree(struct manifest *m, const char *root)
{
	return from_tree(m, root, 1, false);
}

bool manifest_tree_holds(const struct manifest *m, const char *root)
{
	for (size_t i = 0; i < m->count; i++) {
		char path[PATH_MAX];
		struct stat st;

		if (fs_join(path, sizeof(path), root, m->entries[i].path) < 0 || lstat(path, &st) < 0 ||
		    !S_ISREG(st.st_mode) || (uint64_t)st.st_size != m->entries[i].size) {
			err_clear();
			return false;
		}
	}
	return true;
}
