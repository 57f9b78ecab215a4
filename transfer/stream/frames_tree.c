/*
 * The end of a record-stream receive (frames_tree.h): hard links, file
 * mtimes, directory modes and mtimes, applied once every stream has ended.
 */
#define _GNU_SOURCE
#include "stream/frames_tree.h"

#include "err.h"
#include "stream/beneath.h"
#include "stream/frames.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum later_kind {
	LATER_HARDLINK,
	LATER_MTIME,
	LATER_DIR,
};

struct frames_later_item {
	enum later_kind kind;
	int has_mtime;
	mode_t mode;
	int64_t mtime;
	char *path;
	char *primary;		/* LATER_HARDLINK */
};

struct frames_tree {
	const char *dest;	/* for messages */
	int dirfd;		/* the destination, opened once: everything is resolved beneath it */
	pthread_mutex_t lock;
	struct frames_later all;
};

static struct frames_later_item *later_next(struct frames_later *l, size_t more)
{
	if (l->n + more > l->alloc) {
		size_t n = l->alloc ? l->alloc * 2 : 256;
		struct frames_later_item *grown;

		while (n < l->n + more)
			n *= 2;
		grown = realloc(l->v, n * sizeof(*grown));
		if (!grown) {
			err_set("out of memory noting %zu links and times", n);
			return NULL;
		}
		l->v = grown;
		l->alloc = n;
	}
	return &l->v[l->n];
}

static int later_add(struct frames_later *l, enum later_kind kind, const char *path,
		     const char *primary, mode_t mode, int has_mtime, int64_t mtime)
{
	struct frames_later_item *it = later_next(l, 1);

	if (!it)
		return -1;
	*it = (struct frames_later_item){
		.kind = kind, .has_mtime = has_mtime, .mode = mode, .mtime = mtime,
		.path = strdup(path), .primary = primary ? strdup(primary) : NULL,
	};
	if (!it->path || (primary && !it->primary)) {
		free(it->path);
		free(it->primary);
		return err_set("out of memory noting '%s'", path);
	}
	l->n++;
	return 0;
}

int frames_later_hardlink(struct frames_later *l, const char *path, const char *primary)
{
	return later_add(l, LATER_HARDLINK, path, primary, 0, 0, 0);
}

int frames_later_mtime(struct frames_later *l, const char *path, int64_t mtime)
{
	return later_add(l, LATER_MTIME, path, NULL, 0, 1, mtime);
}

int frames_later_dir(struct frames_later *l, const char *path, mode_t mode, int has_mtime,
		     int64_t mtime)
{
	return later_add(l, LATER_DIR, path, NULL, mode, has_mtime, mtime);
}

void frames_later_release(struct frames_later *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].primary);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

struct frames_tree *frames_tree_new_at(int dirfd, const char *dest)
{
	struct frames_tree *t = calloc(1, sizeof(*t));

	if (!t) {
		err_set("out of memory");
		return NULL;
	}
	t->dest = dest;
	t->dirfd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	if (t->dirfd < 0) {
		err_errno("cannot duplicate the descriptor of '%s'", dest);
		free(t);
		return NULL;
	}
	pthread_mutex_init(&t->lock, NULL);
	return t;
}

struct frames_tree *frames_tree_new(const char *dest)
{
	int fd = open(dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct frames_tree *t;

	if (fd < 0) {
		err_errno("cannot open destination directory '%s'", dest);
		return NULL;
	}
	t = frames_tree_new_at(fd, dest);
	close(fd);
	return t;
}

int frames_tree_dirfd(const struct frames_tree *t)
{
	return t->dirfd;
}

int frames_tree_add(struct frames_tree *t, struct frames_later *l)
{
	int rc = 0;

	pthread_mutex_lock(&t->lock);
	if (t->all.n == 0) {
		/* the usual case (one stream, or the first): no copy */
		struct frames_later empty = t->all;

		t->all = *l;
		*l = empty;
	} else if (l->n > 0) {
		if (!later_next(&t->all, l->n)) {
			rc = -1;
		} else {
			memcpy(&t->all.v[t->all.n], l->v, l->n * sizeof(*l->v));
			t->all.n += l->n;
			l->n = 0;
		}
	}
	pthread_mutex_unlock(&t->lock);
	frames_later_release(l);
	return rc;
}

static struct timespec mtime_of(int64_t sec)
{
	return (struct timespec){ .tv_sec = (time_t)sec, .tv_nsec = 0 };
}

/*
 * A hard link: the primary must be a regular file beneath dest (opened
 * without following a link, so a symbolic link as primary is refused);
 * the new name's directory is made if missing.
 */
static int apply_hardlink(int dirfd, const char *dest, const struct frames_later_item *it)
{
	struct stat st;
	char proc[32];
	const char *base;
	int fd, pfd, rc = 0;

	fd = beneath_open(dirfd, it->primary, O_PATH | O_CLOEXEC, 0);
	if (fd < 0)
		return err_errno("cannot link '%s/%s' to '%s'", dest, it->path, it->primary);
	if (fstat(fd, &st) < 0)
		rc = err_errno("cannot link '%s/%s' to '%s'", dest, it->path, it->primary);
	else if (!S_ISREG(st.st_mode))
		rc = err_set("cannot link '%s/%s' to '%s': not a regular file", dest, it->path,
			     it->primary);
	if (rc < 0) {
		close(fd);
		return -1;
	}
	pfd = beneath_parent(dirfd, dest, it->path, &base);
	if (pfd < 0) {
		close(fd);
		return -1;
	}
	/* linkat with AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; the /proc name does not */
	beneath_proc_name(fd, proc);
	if (linkat(AT_FDCWD, proc, pfd, base, AT_SYMLINK_FOLLOW) < 0)
		rc = err_errno("cannot link '%s/%s' to '%s'", dest, it->path, it->primary);
	close(pfd);
	close(fd);
	return rc;
}

/* The descriptor of the directory last used for a file's mtime: files come grouped by directory. */
struct dir_cache {
	int fd;
	size_t len;
	char path[FRAME_PATH_MAX + 1];
};

static int apply_mtime(int dirfd, const char *dest, struct dir_cache *dc,
		       const struct frames_later_item *it)
{
	const char *slash = strrchr(it->path, '/');
	size_t len = slash ? (size_t)(slash - it->path) : 0;
	struct timespec ts[2] = { { .tv_nsec = UTIME_OMIT }, mtime_of(it->mtime) };

	if (dc->fd < 0 || len != dc->len || memcmp(dc->path, it->path, len)) {
		if (dc->fd >= 0)
			close(dc->fd);
		memcpy(dc->path, it->path, len);
		dc->path[len] = '\0';
		dc->len = len;
		dc->fd = len ? beneath_open(dirfd, dc->path, O_PATH | O_DIRECTORY | O_CLOEXEC, 0)
			     : fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
		if (dc->fd < 0)
			return err_errno("cannot set the mtime of '%s/%s'", dest, it->path);
	}
	/* one component below a directory opened safely, and a link there is not followed */
	if (utimensat(dc->fd, slash ? slash + 1 : it->path, ts, AT_SYMLINK_NOFOLLOW) < 0)
		return err_errno("cannot set the mtime of '%s/%s'", dest, it->path);
	return 0;
}

static int apply_dir(int dirfd, const char *dest, const struct frames_later_item *it)
{
	struct timespec ts[2] = { { .tv_nsec = UTIME_OMIT }, mtime_of(it->mtime) };
	char proc[32];
	int fd = beneath_open(dirfd, it->path, O_PATH | O_DIRECTORY | O_CLOEXEC, 0), rc = 0;

	if (fd < 0)
		return err_errno("cannot open directory '%s/%s'", dest, it->path);
	beneath_proc_name(fd, proc);
	if (chmod(proc, it->mode) < 0)
		rc = err_errno("cannot set the mode of '%s/%s'", dest, it->path);
	else if (it->has_mtime && utimensat(AT_FDCWD, proc, ts, 0) < 0)
		rc = err_errno("cannot set the mtime of '%s/%s'", dest, it->path);
	close(fd);
	return rc;
}

/* Directories deepest first: a path sorts after every prefix of it, so descending order does it. */
static int dir_deeper_first(const void *a, const void *b)
{
	const struct frames_later_item *x = *(struct frames_later_item *const *)a;
	const struct frames_later_item *y = *(struct frames_later_item *const *)b;

	return strcmp(y->path, x->path);
}

static int apply_all(struct frames_tree *t, int dirfd)
{
	struct frames_later *l = &t->all;
	struct dir_cache dc = { .fd = -1 };
	struct frames_later_item **dirs;
	size_t ndirs = 0;
	int rc = 0;

	for (size_t i = 0; i < l->n && rc == 0; i++)
		if (l->v[i].kind == LATER_HARDLINK)
			rc = apply_hardlink(dirfd, t->dest, &l->v[i]);
	for (size_t i = 0; i < l->n && rc == 0; i++)
		if (l->v[i].kind == LATER_MTIME)
			rc = apply_mtime(dirfd, t->dest, &dc, &l->v[i]);
	if (dc.fd >= 0)
		close(dc.fd);
	if (rc < 0)
		return -1;
	dirs = malloc((l->n ? l->n : 1) * sizeof(*dirs));
	if (!dirs)
		return err_set("out of memory ordering %zu directories", l->n);
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].kind == LATER_DIR)
			dirs[ndirs++] = &l->v[i];
	if (ndirs > 1)
		qsort(dirs, ndirs, sizeof(*dirs), dir_deeper_first);
	/* a directory named twice is set once (the first of them in the sort) */
	for (size_t i = 0; i < ndirs && rc == 0; i++)
		if (i == 0 || strcmp(dirs[i]->path, dirs[i - 1]->path))
			rc = apply_dir(dirfd, t->dest, dirs[i]);
	free(dirs);
	return rc;
}

int frames_tree_finish(struct frames_tree *t, int ok)
{
	int rc = 0;

	/* the descriptor opened at the start: a path swapped since leads nowhere else */
	if (ok && t->all.n > 0)
		rc = apply_all(t, t->dirfd);
	close(t->dirfd);
	frames_later_release(&t->all);
	pthread_mutex_destroy(&t->lock);
	free(t);
	return rc;
}
