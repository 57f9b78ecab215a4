/*
 * The sample as a tree of its own on the source side: why a copy, see
 * workload_sample.h. Only reads the whole; writes only below the fresh
 * directory it makes, and removes it again when it fails.
 */
#define _GNU_SOURCE
#include "workload_sample.h"

#include "err.h"
#include "fs_remove.h"
#include "fsutil.h"
#include "hash_bufs.h"
#include "parallel.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t on the stack */
#include <xxhash.h>

#define COPY_BUF (1u << 20)

/* A relative path that stays below its root: no "..", no leading '/', no empty component. */
static bool plain_path(const char *path)
{
	if (!*path || *path == '/')
		return false;
	for (const char *c = path; *c;) {
		size_t n = strcspn(c, "/");

		if (n == 0 || (n == 2 && !strncmp(c, "..", 2)) || (n == 1 && *c == '.'))
			return false;
		c += n;
		if (*c == '/')
			c++;
	}
	return true;
}

/* Makes the missing directories above path (0700; their modes are set at the end). */
static int make_parents(int rootfd, const char *path)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);

	if (len >= sizeof(buf))
		return err_set("sample path too long: '%.64s...'", path);
	memcpy(buf, path, len + 1);
	for (char *p = buf; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		if (mkdirat(rootfd, buf, 0700) < 0 && errno != EEXIST)
			return err_errno("cannot create sample directory '%s'", buf);
		*p = '/';
	}
	return 0;
}

static int pwrite_all(int fd, const unsigned char *buf, size_t len, off_t at)
{
	while (len > 0) {
		ssize_t n = pwrite(fd, buf, len, at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
		at += n;
	}
	return 0;
}

struct copy_job {
	struct workload_sample *s;
	const struct manifest *whole;
	int srcfd, rootfd;	/* the whole's root, the sample's */
	struct hash_bufs bufs;
};

/*
 * Copies bytes [off, off + len) of src to dst at 0, holes kept as holes
 * (read as zeros: hashed, not written), into *hash.
 */
static int copy_range(int src, int dst, uint64_t off, uint64_t len, unsigned char *buf, size_t cap,
		      const char *path, uint64_t *hash)
{
	XXH3_state_t st;
	uint64_t pos = off, end = off + len;

	XXH3_64bits_reset(&st);
	while (pos < end) {
		off_t data = lseek(src, (off_t)pos, SEEK_DATA), hole;
		uint64_t upto;

		if (data < 0 && errno != ENXIO)
			return err_errno("cannot read '%s'", path);
		if (data < 0 || (uint64_t)data > end)
			data = (off_t)end;	/* a hole to the end */
		/* the hole before the data: zeros in the hash, nothing written */
		if (pos < (uint64_t)data)
			memset(buf, 0, cap);
		while (pos < (uint64_t)data) {
			size_t n = (uint64_t)data - pos < cap ? (size_t)((uint64_t)data - pos) : cap;

			XXH3_64bits_update(&st, buf, n);
			pos += n;
		}
		if (pos >= end)
			break;
		hole = lseek(src, (off_t)pos, SEEK_HOLE);
		upto = hole < 0 || (uint64_t)hole > end ? end : (uint64_t)hole;
		while (pos < upto) {
			size_t want = upto - pos < cap ? (size_t)(upto - pos) : cap;
			ssize_t n = pread(src, buf, want, (off_t)pos);

			if (n <= 0)
				return n < 0 ? err_errno("cannot read '%s'", path) :
				       err_set("'%s' is shorter than listed: it changed since", path);
			XXH3_64bits_update(&st, buf, (size_t)n);
			if (pwrite_all(dst, buf, (size_t)n, (off_t)(pos - off)) < 0)
				return err_errno("cannot write the sample's copy of '%s'", path);
			pos += (uint64_t)n;
		}
	}
	if (ftruncate(dst, (off_t)len) < 0)
		return err_errno("cannot write the sample's copy of '%s'", path);
	/* read once for the copy: neither tree stays in the page cache for it */
	posix_fadvise(src, (off_t)off, (off_t)len, POSIX_FADV_DONTNEED);
	*hash = XXH3_64bits_digest(&st);
	return 0;
}

static int copy_one(void *ctx, unsigned worker, uint64_t i)
{
	struct copy_job *job = ctx;
	struct manifest_entry *e = &job->s->m.entries[i];
	const struct workload_sample_source *src = &job->s->sources[i];
	const struct manifest_entry *from = &job->whole->entries[src->entry];
	struct timespec times[2] = { { 0, UTIME_OMIT }, { e->mtime, 0 } };
	struct stat st;
	uint64_t hash = 0;
	int in, out, rc;

	in = openat(job->srcfd, from->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (in < 0)
		return err_errno("cannot read source file '%s'", from->path);
	if (fstat(in, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size != from->size) {
		close(in);
		return err_set("source file '%s' changed since it was listed (size %llu, listed %llu): sample it again",
			       from->path, (unsigned long long)st.st_size, (unsigned long long)from->size);
	}
	out = openat(job->rootfd, e->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0) {
		close(in);
		return err_errno("cannot create the sample's '%s'", e->path);
	}
	rc = copy_range(in, out, src->offset, src->len, job->bufs.buf[worker], job->bufs.size, from->path,
			&hash);
	close(in);
	if (rc == 0 && !src->piece && from->xxh3 && hash != from->xxh3)
		rc = err_set("source file '%s' changed since it was listed (its content differs): sample it again",
			     from->path);
	if (rc == 0 && (fchmod(out, e->mode & 07777) < 0 ||
			(e->mtime != MANIFEST_NO_MTIME && futimens(out, times) < 0)))
		rc = err_errno("cannot set the mode and time of the sample's '%s'", e->path);
	if (close(out) < 0 && rc == 0)
		rc = err_errno("cannot write the sample's '%s'", e->path);
	e->xxh3 = hash;
	return rc;
}

/* Every node's parents, then the files, hard links and symbolic links, last the directories' modes. */
static int fill(struct workload_sample *s, const struct manifest *whole, const char *whole_root,
		int rootfd, unsigned threads)
{
	struct manifest *m = &s->m;
	struct copy_job job = { .s = s, .whole = whole, .rootfd = rootfd };
	int rc;

	for (size_t k = 0; k < m->ndirs; k++)
		if (!plain_path(m->dirs[k].path) || make_parents(rootfd, m->dirs[k].path) < 0 ||
		    (mkdirat(rootfd, m->dirs[k].path, 0700) < 0 && errno != EEXIST))
			return err_errno("cannot create the sample's directory '%s'", m->dirs[k].path);
	for (size_t i = 0; i < m->count; i++)
		if (!plain_path(m->entries[i].path) || make_parents(rootfd, m->entries[i].path) < 0)
			return err_set("cannot place the sample's '%s'", m->entries[i].path);
	job.srcfd = open(whole_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (job.srcfd < 0)
		return err_errno("cannot read the workload '%s'", whole_root);
	rc = hash_bufs_init(&job.bufs, threads, COPY_BUF);
	if (rc == 0)
		rc = parallel_for(m->count, threads, 16, copy_one, &job, NULL);
	hash_bufs_release(&job.bufs);
	close(job.srcfd);
	if (rc < 0)
		return -1;
	for (size_t h = 0; h < m->nhardlinks; h++)
		if (!plain_path(m->hardlinks[h].path) || make_parents(rootfd, m->hardlinks[h].path) < 0 ||
		    linkat(rootfd, m->hardlinks[h].primary, rootfd, m->hardlinks[h].path, 0) < 0)
			return err_errno("cannot link the sample's '%s'", m->hardlinks[h].path);
	/* links last: no path made above can pass through one */
	for (size_t l = 0; l < m->nsymlinks; l++)
		if (!plain_path(m->symlinks[l].path) || make_parents(rootfd, m->symlinks[l].path) < 0 ||
		    symlinkat(m->symlinks[l].target, rootfd, m->symlinks[l].path) < 0)
			return err_errno("cannot make the sample's link '%s'", m->symlinks[l].path);
	/* deepest first: setting a directory's time changes nothing above it */
	for (size_t k = m->ndirs; k-- > 0;) {
		const struct manifest_dir *d = &m->dirs[k];
		struct timespec times[2] = { { 0, UTIME_OMIT }, { d->mtime, 0 } };

		if (fchmodat(rootfd, d->path, d->mode & 07777, 0) < 0 ||
		    (d->mtime != MANIFEST_NO_MTIME && utimensat(rootfd, d->path, times, AT_SYMLINK_NOFOLLOW) < 0))
			return err_errno("cannot set the mode and time of the sample's '%s'", d->path);
	}
	return 0;
}

int workload_sample_materialise(struct workload_sample *s, const struct manifest *whole,
				const char *whole_root, const char *parent, unsigned threads)
{
	int rootfd, rc;

	if (snprintf(s->dir, sizeof(s->dir), "%s/xfercmp-sample.XXXXXX", parent) >= (int)sizeof(s->dir))
		return err_set("scratch directory '%s' is too long", parent);
	if (!mkdtemp(s->dir)) {
		s->dir[0] = '\0';
		return err_errno("cannot create the sample's directory under %s", parent);
	}
	rootfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		rc = err_errno("cannot open '%s'", s->dir);
	} else {
		rc = fill(s, whole, whole_root, rootfd, threads ? threads : 1);
		close(rootfd);
	}
	if (rc < 0) {
		struct err_saved why;

		err_save(&why);
		fs_remove_tree_parallel(AT_FDCWD, s->dir, s->dir, FS_REMOVE_THREADS, NULL);
		s->dir[0] = '\0';
		return err_restore(&why);
	}
	return 0;
}

uint64_t workload_sample_disk_bytes(const struct workload_sample *s)
{
	uint64_t bytes = 4096ull * (s->m.ndirs + s->m.nsymlinks + 1);

	for (size_t i = 0; i < s->m.count; i++)
		bytes += (s->m.entries[i].size + 4095) / 4096 * 4096;
	return bytes;
}
