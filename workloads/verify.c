#include "verify.h"

#include "err.h"
#include "fsutil.h"
#include "hash_bufs.h"
#include "parallel.h"
#include "tree.h"
#include "units.h"

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define HASH_BUF (1u << 20)

struct check_job {
	const char *root;
	const struct manifest *m;
	const struct tree *t;
	const struct manifest_entry **expect;	/* per tree file, NULL when extra */
	uint64_t *hashes;
	struct hash_bufs bufs;
};

static int hash_expected(void *ctx, unsigned worker, uint64_t i)
{
	struct check_job *job = ctx;
	const struct tree_file *f = &job->t->files[i];
	char path[PATH_MAX];
	uint64_t size;

	if (!job->expect[i] || f->type != TREE_REGULAR || f->size != job->expect[i]->size)
		return 0;
	if (fs_join(path, sizeof(path), job->root, f->path) < 0)
		return -1;
	/* the copy is read once and removed: its pages need not fill the cache */
	return tree_hash_file(path, job->bufs.buf[worker], job->bufs.size, 1, &job->hashes[i], &size);
}

static void example(struct verify_report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void example(struct verify_report *r, const char *fmt, ...)
{
	va_list ap;

	if (r->nexamples >= VERIFY_EXAMPLES)
		return;
	va_start(ap, fmt);
	vsnprintf(r->examples[r->nexamples++], sizeof(r->examples[0]), fmt, ap);
	va_end(ap);
}

uint64_t verify_differences(const struct verify_report *r)
{
	return r->missing + r->extra + r->size_differs + r->content_differs + r->not_regular;
}

static void compare(const struct check_job *job, struct verify_report *r)
{
	const struct manifest *m = job->m;
	const struct tree *t = job->t;
	size_t i = 0, j = 0;

	/* both lists are sorted by path: merge them */
	while (i < m->count || j < t->count) {
		int c = i == m->count ? 1 : j == t->count ? -1 :
			strcmp(m->entries[i].path, t->files[j].path);

		if (c < 0) {
			r->missing++;
			example(r, "missing: %s", m->entries[i].path);
			i++;
		} else if (c > 0) {
			r->extra++;
			example(r, "extra: %s", t->files[j].path);
			j++;
		} else {
			const struct manifest_entry *e = &m->entries[i];
			const struct tree_file *f = &t->files[j];

			if (f->type != TREE_REGULAR) {
				r->not_regular++;
				example(r, "not a regular file: %s", f->path);
			} else if (f->size != e->size) {
				r->size_differs++;
				example(r, "size differs: %s (expected %llu, found %llu)", f->path,
					(unsigned long long)e->size, (unsigned long long)f->size);
			} else if (job->hashes[j] != e->xxh3) {
				r->content_differs++;
				example(r, "content differs: %s", f->path);
			} else {
				r->files_ok++;
				r->bytes_ok += f->size;
			}
			i++;
			j++;
		}
	}
}

int verify_tree(const char *root, const struct manifest *m, unsigned threads,
		struct verify_report *r)
{
	struct tree t;
	struct check_job job = { .root = root, .m = m, .t = &t };
	int rc = -1;

	memset(r, 0, sizeof(*r));
	if (tree_scan(root, &t) < 0)
		return err_wrap("verify");
	job.expect = calloc(t.count ? t.count : 1, sizeof(*job.expect));
	job.hashes = calloc(t.count ? t.count : 1, sizeof(*job.hashes));
	if (!job.expect || !job.hashes || hash_bufs_init(&job.bufs, threads, HASH_BUF) < 0) {
		err_set("out of memory verifying '%s'", root);
		goto out;
	}
	for (size_t j = 0; j < t.count; j++)
		job.expect[j] = manifest_find(m, t.files[j].path);
	if (parallel_for(t.count, threads, 16, hash_expected, &job, NULL) < 0) {
		err_wrap("verify");
		goto out;
	}
	compare(&job, r);
	rc = 0;
out:
	hash_bufs_release(&job.bufs);
	free(job.hashes);
	free(job.expect);
	tree_release(&t);
	return rc;
}

void verify_summary(const struct verify_report *r, char *buf, size_t len)
{
	char bytes[32];
	uint64_t d = verify_differences(r);

	if (!d) {
		snprintf(buf, len, "%llu files, %s verified", (unsigned long long)r->files_ok,
			 units_format_bytes(r->bytes_ok, bytes, sizeof(bytes)));
		return;
	}
	snprintf(buf, len,
		 "%llu difference%s: %llu missing, %llu extra, %llu size, %llu content, %llu not regular",
		 (unsigned long long)d, d == 1 ? "" : "s", (unsigned long long)r->missing,
		 (unsigned long long)r->extra, (unsigned long long)r->size_differs,
		 (unsigned long long)r->content_differs, (unsigned long long)r->not_regular);
}
