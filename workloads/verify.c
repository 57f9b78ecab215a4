#include "verify.h"

#include "content_mac.h"
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
/* Set-user-ID and set-group-ID: safe receivers drop them, so modes are compared without. */
#define MODE_COMPARED 01777u

struct check_job {
	const char *root;
	const struct manifest *m;
	const struct tree *t;
	const struct manifest_entry **expect;	/* per tree file: the content it must have, or NULL */
	uint64_t *hashes;
	const struct verify_keyed *keyed;	/* NULL: XXH3 only */
	unsigned char (*macs)[CONTENT_MAC_BYTES];	/* per tree file, when keyed */
	struct hash_bufs bufs;
};

static const char *const preserve_names[PRESERVE_KINDS] = {
	"symlinks", "hardlinks", "empty_dirs", "modes", "mtimes",
};

const char *preserve_name(unsigned i)
{
	return i < PRESERVE_KINDS ? preserve_names[i] : "?";
}

/* Whether a file that should hold e's content is checked with the keyed hash too. */
static int keyed_check(const struct check_job *job, const struct manifest_entry *e)
{
	return job->keyed && e->size > job->keyed->min_size;
}

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
	if (keyed_check(job, job->expect[i]))
		return tree_hash_file_keyed(path, job->bufs.buf[worker], job->bufs.size, 1,
					    job->keyed->key, &job->hashes[i], job->macs[i], &size);
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
	return r->missing + r->extra + r->size_differs + r->content_differs + r->not_regular +
	       r->integrity_failed;
}

uint64_t verify_failures(const struct verify_report *r, unsigned claims)
{
	return verify_differences(r) + (claims & PRESERVE_SYMLINKS ? r->symlinks_differ : 0) +
	       (claims & PRESERVE_HARDLINKS ? r->hardlinks_copied : 0) +
	       (claims & PRESERVE_EMPTY_DIRS ? r->dirs_missing : 0) +
	       (claims & PRESERVE_MODES ? r->modes_differ : 0) +
	       (claims & PRESERVE_MTIMES ? r->mtimes_differ : 0);
}

static const struct tree_file *tree_find(const struct tree *t, const char *path)
{
	size_t lo = 0, hi = t->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(path, t->files[mid].path);

		if (!c)
			return &t->files[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* Whether some parent of path is a symbolic link of the manifest (a tool followed it). */
static int below_symlink(const struct manifest *m, const char *path)
{
	char buf[PATH_MAX];
	size_t n = strlen(path);

	if (!m->nsymlinks || n >= sizeof(buf))
		return 0;
	memcpy(buf, path, n + 1);
	while (n > 0) {
		while (n > 0 && buf[n] != '/')
			n--;
		buf[n] = '\0';
		if (n > 0 && manifest_find_symlink(m, buf))
			return 1;
	}
	return 0;
}

static void check_attrs(struct verify_report *r, const struct tree_file *f, uint32_t mode,
			int64_t mtime)
{
	if ((f->mode & MODE_COMPARED) != (mode & MODE_COMPARED)) {
		r->modes_differ++;
		example(r, "mode differs: %s (expected %04o, found %04o)", f->path, (unsigned)mode,
			(unsigned)f->mode);
	}
	if (mtime != MANIFEST_NO_MTIME && f->mtime != mtime) {
		r->mtimes_differ++;
		example(r, "mtime differs: %s (expected %lld, found %lld)", f->path,
			(long long)mtime, (long long)f->mtime);
	}
}

/* A regular file of the copy that should hold e's content; 1 when it does. */
static int check_content(const struct check_job *job, size_t j, const struct manifest_entry *e,
			 struct verify_report *r)
{
	const struct tree_file *f = &job->t->files[j];

	if (f->type != TREE_REGULAR) {
		r->not_regular++;
		example(r, "not a regular file: %s", f->path);
	} else if (f->size != e->size) {
		r->size_differs++;
		example(r, "size differs: %s (expected %llu, found %llu)", f->path,
			(unsigned long long)e->size, (unsigned long long)f->size);
	} else if (keyed_check(job, e) && !job->keyed->have[e - job->m->entries]) {
		r->integrity_failed++;
		example(r, "integrity check failed: %s (the client sent no keyed hash of its content)",
			f->path);
	} else if (keyed_check(job, e) &&
		   !content_mac_equal(job->macs[j], job->keyed->macs[e - job->m->entries])) {
		r->integrity_failed++;
		example(r, "integrity check failed: %s is not what the client sent (its keyed hash differs)",
			f->path);
	} else if (job->hashes[j] != e->xxh3) {
		r->content_differs++;
		example(r, "content differs: %s", f->path);
	} else {
		return 1;
	}
	return 0;
}

static int dir_is_empty(const struct manifest *m, const char *dir)
{
	return !manifest_has_below(m, dir, 1);
}

/* Whether path is one of the special files the manifest lists as left out. */
static int is_special(const struct manifest *m, const char *path)
{
	size_t lo = 0, hi = m->nspecials;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(path, m->specials[mid].path);

		if (!c)
			return 1;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return 0;
}

/* Every node of the copy, against what the manifest says it should be. */
static void check_copy(const struct check_job *job, struct verify_report *r)
{
	const struct manifest *m = job->m;
	const struct tree *t = job->t;

	for (size_t j = 0; j < t->count; j++) {
		const struct tree_file *f = &t->files[j];
		const struct manifest_entry *e = manifest_find(m, f->path);
		const struct manifest_hardlink *h = e ? NULL : manifest_find_hardlink(m, f->path);
		const struct manifest_dir *d = e || h ? NULL : manifest_find_dir(m, f->path);
		const struct manifest_symlink *l = e || h || d ? NULL :
						   manifest_find_symlink(m, f->path);

		if (e) {
			if (check_content(job, j, e, r)) {
				r->files_ok++;
				r->bytes_ok += f->size;
				check_attrs(r, f, e->mode, e->mtime);
			}
		} else if (h) {
			const struct tree_file *p = tree_find(t, h->primary);

			if (check_content(job, j, job->expect[j], r)) {
				if (p && p->dev == f->dev && p->ino == f->ino) {
					r->hardlinks_linked++;
				} else {
					r->hardlinks_copied++;
					example(r, "hard link copied as a separate file: %s", f->path);
				}
			}
		} else if (d) {
			if (f->type != TREE_DIR) {
				r->not_regular++;
				example(r, "not a directory: %s", f->path);
			} else {
				r->dirs_ok++;
				check_attrs(r, f, d->mode, d->mtime);
			}
		} else if (l) {
			if (f->type == TREE_SYMLINK && !strcmp(f->target, l->target)) {
				r->symlinks_ok++;
			} else {
				r->symlinks_differ++;
				example(r, f->type == TREE_SYMLINK ? "symbolic link differs: %s" :
					"symbolic link arrived as what it points to: %s", f->path);
			}
		} else if (f->type == TREE_DIR && (!m->ndirs || !dir_is_empty(m, f->path))) {
			/* a parent the manifest implies, or one that lists no directories (version 1) */
		} else if (f->type == TREE_OTHER && is_special(m, f->path)) {
			/* left out of the comparison, whether or not the tool made it (rsync -a, tar do) */
		} else if (!below_symlink(m, f->path)) {
			r->extra++;
			example(r, "extra: %s", f->path);
		}
	}
}

/* Every node of the manifest the copy lacks. */
static void check_missing(const struct manifest *m, const struct tree *t, struct verify_report *r)
{
	for (size_t i = 0; i < m->count; i++)
		if (!tree_find(t, m->entries[i].path)) {
			r->missing++;
			example(r, "missing: %s", m->entries[i].path);
		}
	for (size_t i = 0; i < m->nhardlinks; i++)
		if (!tree_find(t, m->hardlinks[i].path)) {
			r->missing++;
			example(r, "missing: %s (a hard link)", m->hardlinks[i].path);
		}
	for (size_t i = 0; i < m->ndirs; i++)
		if (!tree_find(t, m->dirs[i].path)) {
			r->dirs_missing++;
			example(r, "missing directory: %s", m->dirs[i].path);
		}
	for (size_t i = 0; i < m->nsymlinks; i++)
		if (!tree_find(t, m->symlinks[i].path)) {
			r->symlinks_differ++;
			example(r, "missing symbolic link: %s", m->symlinks[i].path);
		}
}

static int file_path_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct tree_file *)elem)->path);
}

int verify_tree(const char *root, const struct manifest *m, unsigned threads,
		struct verify_report *r)
{
	return verify_tree_noted(root, m, threads, NULL, 0, r);
}

int verify_tree_noted(const char *root, const struct manifest *m, unsigned threads,
		      const struct verify_mode_note *notes, size_t n, struct verify_report *r)
{
	return verify_tree_keyed(root, m, threads, notes, n, NULL, r);
}

int verify_tree_keyed(const char *root, const struct manifest *m, unsigned threads,
		      const struct verify_mode_note *notes, size_t n, const struct verify_keyed *keyed,
		      struct verify_report *r)
{
	struct tree t;
	struct check_job job = { .root = root, .m = m, .t = &t, .keyed = keyed };
	int rc = -1;

	memset(r, 0, sizeof(*r));
	if (tree_scan(root, &t) < 0)
		return err_wrap("verify");
	/* the scan sorted the files by path */
	for (size_t i = 0; i < n; i++) {
		struct tree_file *f = bsearch(notes[i].path, t.files, t.count, sizeof(*t.files),
					      file_path_cmp);

		if (f)
			f->mode = notes[i].mode;
	}
	job.expect = calloc(t.count ? t.count : 1, sizeof(*job.expect));
	job.hashes = calloc(t.count ? t.count : 1, sizeof(*job.hashes));
	if (keyed)
		job.macs = calloc(t.count ? t.count : 1, sizeof(*job.macs));
	if (!job.expect || !job.hashes || (keyed && !job.macs) ||
	    hash_bufs_init(&job.bufs, threads, HASH_BUF) < 0) {
		err_set("out of memory verifying '%s'", root);
		goto out;
	}
	for (size_t j = 0; j < t.count; j++) {
		const struct manifest_hardlink *h;

		job.expect[j] = manifest_find(m, t.files[j].path);
		if (!job.expect[j] && (h = manifest_find_hardlink(m, t.files[j].path)))
			job.expect[j] = manifest_find(m, h->primary);
	}
	if (parallel_for(t.count, threads, 16, hash_expected, &job, NULL) < 0) {
		err_wrap("verify");
		goto out;
	}
	/* what is missing first: those examples say most about a failed copy */
	check_missing(m, &t, r);
	check_copy(&job, r);
	rc = 0;
out:
	hash_bufs_release(&job.bufs);
	free(job.macs);
	free(job.hashes);
	free(job.expect);
	tree_release(&t);
	return rc;
}

unsigned verify_preserved(const struct manifest *m, const struct verify_report *r,
			  unsigned *present)
{
	unsigned has = 0, kept;

	if (m->nsymlinks)
		has |= PRESERVE_SYMLINKS;
	if (m->nhardlinks)
		has |= PRESERVE_HARDLINKS;
	for (size_t i = 0; i < m->ndirs && !(has & PRESERVE_EMPTY_DIRS); i++)
		if (dir_is_empty(m, m->dirs[i].path))
			has |= PRESERVE_EMPTY_DIRS;
	if (m->count || m->ndirs)
		has |= PRESERVE_MODES;
	for (size_t i = 0; i < m->count && !(has & PRESERVE_MTIMES); i++)
		if (m->entries[i].mtime != MANIFEST_NO_MTIME)
			has |= PRESERVE_MTIMES;
	for (size_t i = 0; i < m->ndirs && !(has & PRESERVE_MTIMES); i++)
		if (m->dirs[i].mtime != MANIFEST_NO_MTIME)
			has |= PRESERVE_MTIMES;
	kept = has;
	if (r->symlinks_differ)
		kept &= ~(unsigned)PRESERVE_SYMLINKS;
	if (r->hardlinks_copied || r->hardlinks_linked < m->nhardlinks)
		kept &= ~(unsigned)PRESERVE_HARDLINKS;
	if (r->dirs_missing)
		kept &= ~(unsigned)PRESERVE_EMPTY_DIRS;
	if (r->modes_differ)
		kept &= ~(unsigned)PRESERVE_MODES;
	if (r->mtimes_differ)
		kept &= ~(unsigned)PRESERVE_MTIMES;
	if (present)
		*present = has;
	return kept;
}

void verify_summary(const struct verify_report *r, char *buf, size_t len)
{
	char bytes[32];
	uint64_t d = verify_differences(r);
	int n;

	if (r->integrity_failed)
		n = snprintf(buf, len,
			     "integrity check failed: %llu file%s not what the client sent (keyed hash); %llu difference%s: %llu missing, %llu extra, %llu size, %llu content, %llu not regular",
			     (unsigned long long)r->integrity_failed, r->integrity_failed == 1 ? " is" : "s are",
			     (unsigned long long)d, d == 1 ? "" : "s", (unsigned long long)r->missing,
			     (unsigned long long)r->extra, (unsigned long long)r->size_differs,
			     (unsigned long long)r->content_differs,
			     (unsigned long long)r->not_regular);
	else if (!d)
		n = snprintf(buf, len, "%llu files, %s verified", (unsigned long long)r->files_ok,
			     units_format_bytes(r->bytes_ok, bytes, sizeof(bytes)));
	else
		n = snprintf(buf, len,
			     "%llu difference%s: %llu missing, %llu extra, %llu size, %llu content, %llu not regular",
			     (unsigned long long)d, d == 1 ? "" : "s", (unsigned long long)r->missing,
			     (unsigned long long)r->extra, (unsigned long long)r->size_differs,
			     (unsigned long long)r->content_differs,
			     (unsigned long long)r->not_regular);
	if (n < 0 || (size_t)n >= len)
		return;
	if (r->symlinks_ok + r->symlinks_differ)
		n += snprintf(buf + n, len - (size_t)n, "; symlinks %llu/%llu",
			      (unsigned long long)r->symlinks_ok,
			      (unsigned long long)(r->symlinks_ok + r->symlinks_differ));
	if ((size_t)n < len && r->hardlinks_linked + r->hardlinks_copied)
		n += snprintf(buf + n, len - (size_t)n, "; hard links %llu/%llu",
			      (unsigned long long)r->hardlinks_linked,
			      (unsigned long long)(r->hardlinks_linked + r->hardlinks_copied));
	if ((size_t)n < len && r->dirs_missing)
		n += snprintf(buf + n, len - (size_t)n, "; %llu directories missing",
			      (unsigned long long)r->dirs_missing);
	if ((size_t)n < len && r->modes_differ)
		n += snprintf(buf + n, len - (size_t)n, "; %llu modes differ",
			      (unsigned long long)r->modes_differ);
	if ((size_t)n < len && r->mtimes_differ)
		snprintf(buf + n, len - (size_t)n, "; %llu mtimes differ",
			 (unsigned long long)r->mtimes_differ);
}
