/* Removing a tree with many removals in flight. See fs_remove.h. */
#define _GNU_SOURCE
#include "fs_remove.h"

#include "err.h"
#include "fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Walks of one directory found not empty at its removal, before it counts as a failure. */
#define MAX_PASSES 50
/* Entries handed out and not yet taken by a worker. */
#define QUEUE_CAP 4096

/*
 * A directory being emptied. pending counts what must go before it can:
 * its entries handed to the workers, its subdirectories, and one for the
 * walk while it lists it. The last to go removes it from its parent.
 */
struct rdir {
	int fd;
	struct rdir *parent;	/* NULL for the top */
	char *name;		/* in parent */
	char *rel;		/* below the top, for messages */
	atomic_long pending;
	unsigned passes;
	struct rdir *next_retry;
};

struct task {
	struct rdir *dir;
	char name[NAME_MAX + 1];
};

struct removal {
	dev_t dev;		/* the tree's file system: a mount inside is not entered */
	const char *skip;	/* an entry of the top left alone (a marker the caller removes last) */
	struct fs_remove_progress *progress, own_progress;
	pthread_mutex_t lock;
	pthread_cond_t more, room, changed;
	struct task *queue;
	size_t head, len;
	bool stop;
	long open_dirs;		/* under lock */
	bool top_done;		/* under lock */
	struct rdir *retry;	/* under lock: directories found not empty */
	int first_errno;	/* under lock */
	char first_path[PATH_MAX];
};

static void failed(struct removal *rm, const struct rdir *d, const char *name, int e)
{
	if (e == ENOENT)
		return;
	pthread_mutex_lock(&rm->lock);
	if (!rm->first_errno) {
		rm->first_errno = e;
		snprintf(rm->first_path, sizeof(rm->first_path), "%s%s%s", d ? d->rel : "",
			 d && d->rel[0] ? "/" : "", name);
	}
	pthread_mutex_unlock(&rm->lock);
}

static bool any_failure(struct removal *rm)
{
	bool f;

	pthread_mutex_lock(&rm->lock);
	f = rm->first_errno != 0;
	pthread_mutex_unlock(&rm->lock);
	return f;
}

/*
 * Makes d rwx for its owner when something in it was refused (fsutil.c's
 * rule); true when the refused call is worth one more try. Several workers
 * can be refused in d at once: one that finds d opened up already (by
 * another, which may have done it after this one's refusal) tries again
 * too. Before, only the first did (an opened_up flag, once per walk), and
 * another refused before its chmod failed the removal (test_fs_remove's
 * read-only directories as their owner: 6 of 40 runs failed, 0 of 60 now).
 */
static bool open_up(struct rdir *d)
{
	int refusal = errno;
	struct stat st;

	if (fstat(d->fd, &st) < 0)
		goto cannot;
	/* opened up already, by another worker or before: one more try costs one call */
	if ((st.st_mode & S_IRWXU) == S_IRWXU)
		return true;
	if (fchmod(d->fd, (st.st_mode & 07777) | S_IRWXU) == 0)
		return true;
cannot:
	/* the failure said is the refusal, not the chmod's (EPERM: not the owner) */
	errno = refusal;
	return false;
}

static bool refused(int e)
{
	return e == EACCES || e == EPERM;
}

static struct rdir *rdir_new(struct rdir *parent, const char *name, int fd)
{
	struct rdir *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->fd = fd;
	d->parent = parent;
	d->name = strdup(name);
	if (parent && asprintf(&d->rel, "%s%s%s", parent->rel, parent->rel[0] ? "/" : "", name) < 0)
		d->rel = NULL;
	else if (!parent)
		d->rel = strdup("");
	if (!d->name || !d->rel) {
		free(d->name);
		free(d->rel);
		free(d);
		return NULL;
	}
	atomic_init(&d->pending, 1);
	return d;
}

static void rdir_free(struct rdir *d)
{
	free(d->name);
	free(d->rel);
	free(d);
}

static void release(struct removal *rm, struct rdir *d);

/*
 * Every entry below d went: d goes from its parent. One found not empty
 * (an entry made meanwhile, or passed over) is walked again by the caller's
 * thread, its parent kept waiting.
 */
static void finish(struct removal *rm, struct rdir *d)
{
	struct rdir *parent = d->parent;
	int rc, e;

	if (!parent) {
		pthread_mutex_lock(&rm->lock);
		rm->top_done = true;
		pthread_cond_broadcast(&rm->changed);
		pthread_mutex_unlock(&rm->lock);
		return;
	}
	close(d->fd);
	d->fd = -1;
	rc = unlinkat(parent->fd, d->name, AT_REMOVEDIR);
	if (rc < 0 && refused(errno) && open_up(parent))
		rc = unlinkat(parent->fd, d->name, AT_REMOVEDIR);
	e = rc < 0 ? errno : 0;
	pthread_mutex_lock(&rm->lock);
	rm->open_dirs--;
	if ((e == ENOTEMPTY || e == EEXIST) && d->passes < MAX_PASSES && !rm->first_errno) {
		d->next_retry = rm->retry;
		rm->retry = d;
		pthread_cond_broadcast(&rm->changed);
		pthread_mutex_unlock(&rm->lock);
		return;
	}
	pthread_cond_broadcast(&rm->changed);
	pthread_mutex_unlock(&rm->lock);
	if (e)
		failed(rm, parent, d->name, e);
	else
		atomic_fetch_add(&rm->progress->removed, 1);
	rdir_free(d);
	release(rm, parent);
}

static void release(struct removal *rm, struct rdir *d)
{
	if (atomic_fetch_sub(&d->pending, 1) == 1)
		finish(rm, d);
}

/* A worker's removal of one entry that is not a directory (one that is: d's next walk finds it). */
static void remove_entry(struct removal *rm, struct task *t)
{
	int rc = unlinkat(t->dir->fd, t->name, 0);

	if (rc < 0 && refused(errno) && open_up(t->dir))
		rc = unlinkat(t->dir->fd, t->name, 0);
	if (rc == 0)
		atomic_fetch_add(&rm->progress->removed, 1);
	else if (errno != EISDIR)
		failed(rm, t->dir, t->name, errno);
	release(rm, t->dir);
}

static void *worker(void *arg)
{
	struct removal *rm = arg;

	for (;;) {
		struct task t;

		pthread_mutex_lock(&rm->lock);
		while (rm->len == 0 && !rm->stop)
			pthread_cond_wait(&rm->more, &rm->lock);
		if (rm->len == 0) {
			pthread_mutex_unlock(&rm->lock);
			return NULL;
		}
		t = rm->queue[rm->head];
		rm->head = (rm->head + 1) % QUEUE_CAP;
		rm->len--;
		pthread_cond_signal(&rm->room);
		pthread_mutex_unlock(&rm->lock);
		remove_entry(rm, &t);
	}
}

static void hand_out(struct removal *rm, struct rdir *d, const char *name)
{
	struct task *t;

	atomic_fetch_add(&d->pending, 1);
	pthread_mutex_lock(&rm->lock);
	while (rm->len == QUEUE_CAP)
		pthread_cond_wait(&rm->room, &rm->lock);
	t = &rm->queue[(rm->head + rm->len) % QUEUE_CAP];
	t->dir = d;
	snprintf(t->name, sizeof(t->name), "%s", name);
	rm->len++;
	pthread_cond_signal(&rm->more);
	pthread_mutex_unlock(&rm->lock);
}

/* The names of d's subdirectories, gathered while listing it and walked after. */
struct names {
	char **v;
	size_t n, cap;
};

static int names_add(struct names *ns, const char *name)
{
	if (ns->n == ns->cap) {
		size_t cap = ns->cap ? 2 * ns->cap : 16;
		char **v = realloc(ns->v, cap * sizeof(*v));

		if (!v)
			return -1;
		ns->v = v;
		ns->cap = cap;
	}
	if (!(ns->v[ns->n] = strdup(name)))
		return -1;
	ns->n++;
	return 0;
}

static void names_free(struct names *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		free(ns->v[i]);
	free(ns->v);
}

static void walk(struct removal *rm, struct rdir *d, unsigned depth);

/* Waits while too many directories are open beyond the walk's own path. */
static void wait_for_room(struct removal *rm, unsigned depth)
{
	pthread_mutex_lock(&rm->lock);
	while (rm->open_dirs > FS_REMOVE_OPEN_DIRS + (long)depth)
		pthread_cond_wait(&rm->changed, &rm->lock);
	pthread_mutex_unlock(&rm->lock);
}

/* Opens d's subdirectory name, walks it and lets it go. */
static void walk_child(struct removal *rm, struct rdir *d, const char *name, unsigned depth)
{
	struct rdir *child;
	struct stat st;
	int rc = fstatat(d->fd, name, &st, AT_SYMLINK_NOFOLLOW), fd;

	if (rc < 0 && refused(errno) && open_up(d))
		rc = fstatat(d->fd, name, &st, AT_SYMLINK_NOFOLLOW);
	if (rc < 0) {
		failed(rm, d, name, errno);
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		/* it was replaced since it was listed: whatever it is now, it goes as a file */
		atomic_fetch_add(&rm->progress->found, 1);
		hand_out(rm, d, name);
		return;
	}
	if (st.st_dev != rm->dev) {
		failed(rm, d, name, EXDEV);
		return;
	}
	wait_for_room(rm, depth);
	fd = fs_open_dir_at(d->fd, name, st.st_mode);
	if (fd < 0 && refused(errno) && open_up(d))
		fd = fs_open_dir_at(d->fd, name, st.st_mode);
	if (fd < 0) {
		failed(rm, d, name, errno);
		return;
	}
	child = rdir_new(d, name, fd);
	if (!child) {
		close(fd);
		failed(rm, d, name, ENOMEM);
		return;
	}
	atomic_fetch_add(&rm->progress->found, 1);
	atomic_fetch_add(&d->pending, 1);
	pthread_mutex_lock(&rm->lock);
	rm->open_dirs++;
	pthread_mutex_unlock(&rm->lock);
	walk(rm, child, depth + 1);
	release(rm, child);
}

/*
 * Lists d: each entry that is not a directory goes to the workers, each
 * subdirectory is walked in turn once the listing ended. The caller holds
 * d (its pending count) until this returns.
 */
static void walk(struct removal *rm, struct rdir *d, unsigned depth)
{
	int rfd = fcntl(d->fd, F_DUPFD_CLOEXEC, 0);
	DIR *dir = rfd < 0 ? NULL : fdopendir(rfd);
	struct names subdirs = { 0 };
	struct dirent *de;

	if (!dir) {
		failed(rm, d, ".", errno);
		if (rfd >= 0)
			close(rfd);
		return;
	}
	errno = 0;
	while ((de = readdir(dir)) != NULL) {
		const char *name = de->d_name;

		if (!strcmp(name, ".") || !strcmp(name, "..") ||
		    (!d->parent && rm->skip && !strcmp(name, rm->skip))) {
			errno = 0;
			continue;
		}
		if (de->d_type == DT_DIR || de->d_type == DT_UNKNOWN) {
			if (names_add(&subdirs, name) < 0)
				failed(rm, d, name, ENOMEM);
		} else {
			atomic_fetch_add(&rm->progress->found, 1);
			hand_out(rm, d, name);
		}
		errno = 0;
	}
	if (errno)
		failed(rm, d, ".", errno);
	closedir(dir);
	for (size_t i = 0; i < subdirs.n; i++)
		walk_child(rm, d, subdirs.v[i], depth);
	names_free(&subdirs);
}

/* A directory found not empty at its removal: open it again and walk it once more. */
static void walk_again(struct removal *rm, struct rdir *d)
{
	struct rdir *parent = d->parent;
	int fd = fs_open_dir_at(parent->fd, d->name, 0700);

	if (fd < 0) {
		if (errno != ENOENT)
			failed(rm, parent, d->name, errno);
		rdir_free(d);
		release(rm, parent);
		return;
	}
	d->fd = fd;
	d->passes++;
	atomic_init(&d->pending, 1);
	pthread_mutex_lock(&rm->lock);
	rm->open_dirs++;
	pthread_mutex_unlock(&rm->lock);
	walk(rm, d, 1);
	release(rm, d);
}

/* Whether fd holds anything but skip. */
static bool holds_more(int fd, const char *skip)
{
	int rfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	DIR *dir = rfd < 0 ? NULL : fdopendir(rfd);
	struct dirent *de;
	bool more = false;

	if (!dir) {
		if (rfd >= 0)
			close(rfd);
		return false;
	}
	while (!more && (de = readdir(dir)) != NULL)
		more = strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		       !(skip && !strcmp(de->d_name, skip));
	closedir(dir);
	return more;
}

/*
 * Empties the open directory top (all but rm->skip) on `threads` workers.
 * Returns 0, or -1 with errno the first failure's (rm->first_path where).
 */
static int empty_top(struct removal *rm, int top_fd, unsigned threads)
{
	pthread_t *tids = calloc(threads, sizeof(*tids));
	struct rdir *top = rdir_new(NULL, ".", top_fd);
	unsigned started = 0;

	rm->queue = calloc(QUEUE_CAP, sizeof(*rm->queue));
	if (!tids || !top || !rm->queue) {
		free(tids);
		if (top)
			rdir_free(top);
		free(rm->queue);
		errno = ENOMEM;
		return -1;
	}
	pthread_mutex_init(&rm->lock, NULL);
	pthread_cond_init(&rm->more, NULL);
	pthread_cond_init(&rm->room, NULL);
	pthread_cond_init(&rm->changed, NULL);
	while (started < threads && pthread_create(&tids[started], NULL, worker, rm) == 0)
		started++;
	if (started == 0) {
		rm->first_errno = EAGAIN;
		snprintf(rm->first_path, sizeof(rm->first_path), "(no thread could be started)");
	}
	for (unsigned pass = 0; started && pass < MAX_PASSES; pass++) {
		walk(rm, top, 1);
		release(rm, top);
		for (;;) {
			struct rdir *again;

			pthread_mutex_lock(&rm->lock);
			while (!rm->top_done && !rm->retry)
				pthread_cond_wait(&rm->changed, &rm->lock);
			again = rm->retry;
			if (again)
				rm->retry = again->next_retry;
			pthread_mutex_unlock(&rm->lock);
			if (!again)
				break;
			walk_again(rm, again);
		}
		/* another pass only for what was made meanwhile, and not after a failure */
		if (any_failure(rm) || !holds_more(top_fd, rm->skip))
			break;
		rm->top_done = false;
		atomic_init(&top->pending, 1);
	}
	atomic_store(&rm->progress->walked, 1);
	pthread_mutex_lock(&rm->lock);
	rm->stop = true;
	pthread_cond_broadcast(&rm->more);
	pthread_mutex_unlock(&rm->lock);
	for (unsigned i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	free(tids);
	rdir_free(top);
	free(rm->queue);
	pthread_cond_destroy(&rm->changed);
	pthread_cond_destroy(&rm->room);
	pthread_cond_destroy(&rm->more);
	pthread_mutex_destroy(&rm->lock);
	if (rm->first_errno) {
		errno = rm->first_errno;
		return -1;
	}
	return 0;
}

static void removal_init(struct removal *rm, dev_t dev, const char *skip,
			 struct fs_remove_progress *progress)
{
	memset(rm, 0, sizeof(*rm));
	rm->dev = dev;
	rm->skip = skip;
	rm->progress = progress ? progress : &rm->own_progress;
}

int fs_remove_tree_parallel(int dirfd, const char *name, const char *label, unsigned threads,
			    struct fs_remove_progress *progress)
{
	struct removal rm;
	struct stat st;
	int fd, rc;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : err_errno("cannot remove '%s'", label);
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dirfd, name, 0) < 0 && errno != ENOENT ?
		       err_errno("cannot remove '%s'", label) : 0;
	fd = fs_open_dir_at(dirfd, name, st.st_mode);
	if (fd < 0)
		return errno == ENOENT ? 0 : err_errno("cannot remove '%s'", label);
	removal_init(&rm, st.st_dev, NULL, progress);
	atomic_fetch_add(&rm.progress->found, 1);
	rc = empty_top(&rm, fd, threads ? threads : 1);
	close(fd);
	if (rc < 0)
		return err_errno("cannot remove '%s' (first at '%s')", label, rm.first_path);
	if (unlinkat(dirfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		return err_errno("cannot remove '%s'", label);
	atomic_fetch_add(&rm.progress->removed, 1);
	return 0;
}

int fs_empty_dir_parallel(int fd, const char *keep, const char *label, unsigned threads,
			  struct fs_remove_progress *progress)
{
	struct removal rm;
	struct stat st;
	int dup_fd, rc;

	if (fstat(fd, &st) < 0)
		return err_errno("cannot remove '%s'", label);
	/*
	 * The walk's top is closed by no one but this call: its own descriptor,
	 * and its own open file, read from the start. A dup would share fd's
	 * offset, at the end after one walk: the agent's retry walked nothing,
	 * said the root was empty and removed its marker (security.t).
	 */
	dup_fd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dup_fd < 0)
		return err_errno("cannot remove '%s'", label);
	removal_init(&rm, st.st_dev, keep, progress);
	rc = empty_top(&rm, dup_fd, threads ? threads : 1);
	close(dup_fd);
	if (rc < 0)
		return err_errno("cannot remove '%s' (first at '%s')", label, rm.first_path);
	return 0;
}
