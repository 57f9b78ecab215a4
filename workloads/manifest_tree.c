/* Building a manifest by reading an existing tree: the dir:PATH workload. */
#include "manifest.h"

#include "err.h"
#include "fsutil.h"
#include "hash_bufs.h"
#include "parallel.h"
#include "tree.h"

#include <limits.h>
#include <stdlib.h>

#define HASH_BUF (1u << 20)

struct hash_job {
	const char *root;
	struct tree *tree;
	uint64_t *hashes;
	struct hash_bufs bufs;
};

static int hash_one(void *ctx, unsigned worker, uint64_t i)
{
	struct hash_job *job = ctx;
	struct tree_file *f = &job->tree->files[i];
	char path[PATH_MAX];
	uint64_t size;

	if (f->type != TREE_REGULAR)
		return 0;
	if (fs_join(path, sizeof(path), job->root, f->path) < 0)
		return -1;
	if (tree_hash_file(path, job->bufs.buf[worker], job->bufs.size, 0, &job->hashes[i], &size) < 0)
		return -1;
	if (size != f->size)
		return err_set("'%s' changed while it was read (size %llu, then %llu)", path,
			       (unsigned long long)f->size, (unsigned long long)size);
	return 0;
}

int manifest_from_tree(struct manifest *m, const char *root, unsigned threads, uint64_t *skipped)
{
	struct tree t;
	struct hash_job job = { .root = root, .tree = &t };
	int rc = -1;

	manifest_init(m);
	*skipped = 0;
	if (tree_scan(root, &t) < 0)
		return -1;
	job.hashes = calloc(t.count ? t.count : 1, sizeof(*job.hashes));
	if (!job.hashes || hash_bufs_init(&job.bufs, threads, HASH_BUF) < 0) {
		err_set("out of memory hashing '%s'", root);
		goto out;
	}
	if (parallel_for(t.count, threads, 16, hash_one, &job, NULL) < 0)
		goto out;
	for (size_t i = 0; i < t.count; i++) {
		if (t.files[i].type != TREE_REGULAR) {
			(*skipped)++;
			continue;
		}
		if (manifest_add(m, t.files[i].path, t.files[i].size, t.files[i].mode, job.hashes[i]) < 0)
			goto out;
	}
	manifest_sort(m);
	rc = 0;
out:
	hash_bufs_release(&job.bufs);
	free(job.hashes);
	tree_release(&t);
	if (rc < 0)
		manifest_release(m);
	return rc;
}
