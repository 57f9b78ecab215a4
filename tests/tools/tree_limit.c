/*
 * tree_limit: the small-file limit of scripts/bench.sh's limits section (issue 24 item 1):
 * how fast this machine can read a tree cold and create the same tree in another file
 * system, with nothing of a copy tool in the way.
 *
 *   tree_limit read|create|both SRC CONTENT DST READERS WRITERS
 *
 * CONTENT is a copy of SRC (in /dev/shm) whose directories and file contents are loaded
 * into memory before the clock starts; the timed part is then
 *   - read: READERS threads open and read every file of SRC (the caller drops the caches
 *     first), each taking the next file of the list;
 *   - create: the directories made in DST, then WRITERS threads create every file
 *     (open O_CREAT|O_EXCL, one write, close), then syncfs of DST;
 *   - both: the two at once, until both have ended.
 * It prints the seconds, and exits non-zero with a one-line error on any failure.
 *
 * Why not `tar -x` from archives in /dev/shm, as the section did first: tar also sets
 * owners, modes and times, one syscall each, and in the limits run of 50aeb9c four of
 * them took 5.25-6.13 s for 120,000 files where splice's receiver created them in
 * 3.92-4.85 s: a "limit" the copy beat. This does the least any copy must do.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"

/* Read in pieces of this size: the files are small, a large one takes a few reads. */
#define READ_PIECE (1u << 20)
#define MAX_THREADS 256

struct entry {
	char *rel;	/* path below the tree's root */
	char *data;	/* the file's content (create, both), else NULL */
	size_t size;
};

struct list {
	struct entry *v;
	size_t n, cap;
};

static struct list files, dirs;
static size_t content_root_len;
static bool want_content;
static int src_fd = -1, dst_fd = -1;
static atomic_size_t next_read, next_create;
static char failure[512];
static atomic_bool failed;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	va_list ap;
	bool was = atomic_exchange(&failed, true);

	if (was)
		return;
	va_start(ap, fmt);
	vsnprintf(failure, sizeof(failure), fmt, ap);
	va_end(ap);
}

static int push(struct list *l, const char *rel, char *data, size_t size)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 1024;
		struct entry *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n].rel = strdup(rel);
	if (!l->v[l->n].rel)
		return -1;
	l->v[l->n].data = data;
	l->v[l->n].size = size;
	l->n++;
	return 0;
}

static char *slurp(const char *path, size_t size)
{
	char *buf = malloc(size ? size : 1);
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (!buf || fd < 0) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while (got < size) {
		ssize_t r = read(fd, buf + got, size - got);

		if (r <= 0) {
			close(fd);
			free(buf);
			return NULL;
		}
		got += (size_t)r;
	}
	close(fd);
	return buf;
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	const char *rel = path + content_root_len;
	char *data = NULL;

	(void)ftw;
	while (*rel == '/')
		rel++;
	if (type == FTW_D) {
		if (*rel && push(&dirs, rel, NULL, 0) < 0)
			return -1;
		return 0;
	}
	if (type != FTW_F || !S_ISREG(st->st_mode))
		return 0; /* the generated trees hold only files and directories */
	if (want_content && !(data = slurp(path, (size_t)st->st_size))) {
		fail("cannot read '%s': %s", path, strerror(errno ? errno : EIO));
		return -1;
	}
	if (push(&files, rel, data, (size_t)st->st_size) < 0) {
		free(data);
		fail("out of memory listing '%s'", path);
		return -1;
	}
	return 0;
}

static void *reader(void *arg)
{
	char *buf = malloc(READ_PIECE);

	(void)arg;
	if (!buf) {
		fail("out of memory for a read buffer");
		return NULL;
	}
	for (size_t i; !atomic_load(&failed) && (i = atomic_fetch_add(&next_read, 1)) < files.n;) {
		int fd = openat(src_fd, files.v[i].rel, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		ssize_t r;

		if (fd < 0) {
			fail("cannot open '%s' in the source: %s", files.v[i].rel, strerror(errno));
			break;
		}
		while ((r = read(fd, buf, READ_PIECE)) > 0)
			;
		if (r < 0)
			fail("cannot read '%s' in the source: %s", files.v[i].rel, strerror(errno));
		close(fd);
	}
	free(buf);
	return NULL;
}

static void *writer(void *arg)
{
	(void)arg;
	for (size_t i; !atomic_load(&failed) && (i = atomic_fetch_add(&next_create, 1)) < files.n;) {
		const struct entry *e = &files.v[i];
		int fd = openat(dst_fd, e->rel, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
		size_t put = 0;

		if (fd < 0) {
			fail("cannot create '%s' in the destination: %s", e->rel, strerror(errno));
			break;
		}
		while (put < e->size) {
			ssize_t w = write(fd, e->data + put, e->size - put);

			if (w <= 0) {
				fail("cannot write '%s' in the destination: %s", e->rel,
				     w < 0 ? strerror(errno) : "no progress");
				break;
			}
			put += (size_t)w;
		}
		if (close(fd) < 0)
			fail("cannot close '%s' in the destination: %s", e->rel, strerror(errno));
	}
	return NULL;
}

/* The directories (in nftw's order: each after its parent), then the writers, then syncfs. */
static void *creator(void *arg)
{
	unsigned writers = *(const unsigned *)arg;
	pthread_t t[MAX_THREADS];
	unsigned started = 0;

	for (size_t i = 0; i < dirs.n && !atomic_load(&failed); i++)
		if (mkdirat(dst_fd, dirs.v[i].rel, 0755) < 0 && errno != EEXIST)
			fail("cannot make directory '%s' in the destination: %s", dirs.v[i].rel,
			     strerror(errno));
	for (; started < writers && !atomic_load(&failed); started++)
		if (pthread_create(&t[started], NULL, writer, NULL) != 0) {
			fail("cannot start writer thread %u", started + 1);
			break;
		}
	for (unsigned k = 0; k < started; k++)
		pthread_join(t[k], NULL);
	if (!atomic_load(&failed) && syncfs(dst_fd) < 0)
		fail("syncfs of the destination failed: %s", strerror(errno));
	return NULL;
}

static unsigned threads_arg(const char *s, const char *what)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < 1 || v > MAX_THREADS) {
		fprintf(stderr, "tree_limit: %s: expected 1 to %d, got '%s'\n", what, MAX_THREADS, s);
		exit(2);
	}
	return (unsigned)v;
}

int main(int argc, char **argv)
{
	bool do_read, do_create;
	unsigned readers, writers, started = 0;
	pthread_t rt[MAX_THREADS], ct;
	bool creating = false;
	clock_ns t0, t1;

	if (argc != 7 || (strcmp(argv[1], "read") && strcmp(argv[1], "create") && strcmp(argv[1], "both"))) {
		fprintf(stderr, "usage: tree_limit read|create|both SRC CONTENT DST READERS WRITERS\n");
		return 2;
	}
	do_read = strcmp(argv[1], "create") != 0;
	do_create = strcmp(argv[1], "read") != 0;
	readers = threads_arg(argv[5], "READERS");
	writers = threads_arg(argv[6], "WRITERS");
	want_content = do_create;
	content_root_len = strlen(argv[3]);
	if (nftw(argv[3], visit, 64, FTW_PHYS) != 0) {
		fprintf(stderr, "tree_limit: cannot load '%s': %s\n", argv[3],
			failure[0] ? failure : strerror(errno));
		return 1;
	}
	src_fd = open(argv[2], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dst_fd = open(argv[4], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (src_fd < 0 || dst_fd < 0) {
		fprintf(stderr, "tree_limit: cannot open '%s': %s\n", src_fd < 0 ? argv[2] : argv[4],
			strerror(errno));
		return 1;
	}

	t0 = clock_now();
	if (do_create) {
		if (pthread_create(&ct, NULL, creator, &writers) != 0) {
			fprintf(stderr, "tree_limit: cannot start the creator thread\n");
			return 1;
		}
		creating = true;
	}
	for (; do_read && started < readers; started++)
		if (pthread_create(&rt[started], NULL, reader, NULL) != 0) {
			fail("cannot start reader thread %u", started + 1);
			break;
		}
	for (unsigned k = 0; k < started; k++)
		pthread_join(rt[k], NULL);
	if (creating)
		pthread_join(ct, NULL);
	t1 = clock_now();

	if (atomic_load(&failed)) {
		fprintf(stderr, "tree_limit: %s\n", failure);
		return 1;
	}
	printf("%.3f\n", clock_seconds(t0, t1));
	return 0;
}
