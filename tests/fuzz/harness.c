/*
 * Shared by the receiver fuzzers: feeding one input through a socket, and
 * checking that a run wrote nothing outside its destination. See harness.h.
 */
#define _GNU_SOURCE
#include "harness.h"

#include "err.h"
#include "fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define SOCKBUF (8u << 20)		/* holds any input up to -max_len without a thread */
#define FILE_SIZE_CAP (64ull << 20)	/* a file larger than this fails with EFBIG */

static char jail[HARNESS_DEST_MAX - 64];

static void die(const char *what, const char *subject)
{
	fprintf(stderr, "harness: %s '%s': %s\n", what, subject, strerror(errno));
	abort();
}

static void violation(const char *what, const char *subject)
{
	fprintf(stderr, "INVARIANT VIOLATED: %s: '%s'\n", what, subject);
	abort();
}

/* Waits until the receiver has read everything written, or has returned. */
static void wait_drained(struct harness_feed *f)
{
	int queued;

	while (!f->stop && ioctl(f->rd, SIOCINQ, &queued) == 0 && queued > 0)
		sched_yield();
}

static void *writer_main(void *arg)
{
	struct harness_feed *f = arg;

	/* once the receiver returns, harness_feed_finish shuts its end down: send fails */
	while (f->rest_len > 0 && !f->stop) {
		size_t want = f->chunk && f->chunk < f->rest_len ? f->chunk : f->rest_len;
		ssize_t n = send(f->wr, f->rest, want, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		f->rest += n;
		f->rest_len -= (size_t)n;
		if (f->chunk && f->rest_len > 0)
			wait_drained(f);
	}
	close(f->wr);
	return NULL;
}

static void start_writer(struct harness_feed *f, const uint8_t *data, size_t size)
{
	if (fcntl(f->wr, F_SETFL, 0) < 0)
		die("cannot make blocking", "socketpair");
	f->rest = data;
	f->rest_len = size;
	if (pthread_create(&f->thread, NULL, writer_main, f) != 0)
		die("cannot start", "writer thread");
	f->threaded = 1;
}

void harness_feed_start(struct harness_feed *f, const uint8_t *data, size_t size, size_t chunk)
{
	int sv[2], big = SOCKBUF;

	memset(f, 0, sizeof(*f));
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		die("cannot make", "socketpair");
	f->rd = sv[0];
	f->wr = sv[1];
	f->chunk = chunk;
	/* root may exceed wmem_max; anyone else gets at most wmem_max */
	if (setsockopt(f->wr, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big)) < 0)
		setsockopt(f->wr, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	if (chunk) {
		start_writer(f, data, size);
		return;
	}
	if (fcntl(f->wr, F_SETFL, O_NONBLOCK) < 0)
		die("cannot make non-blocking", "socketpair");
	while (size > 0) {
		ssize_t n = send(f->wr, data, size, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0)
			die("cannot write", "socketpair");
		data += n;
		size -= (size_t)n;
	}
	if (size == 0) {
		close(f->wr);
		f->wr = -1;
		return;
	}
	start_writer(f, data, size);
}

void harness_feed_finish(struct harness_feed *f)
{
	if (f->threaded) {
		f->stop = 1;
		shutdown(f->rd, SHUT_RDWR);
		pthread_join(f->thread, NULL);
	}
	close(f->rd);
}

void harness_jail_cleanup(void)
{
	if (jail[0])
		fs_remove_tree(jail);
}

void harness_jail_init(const char *name)
{
	const char *scratch = getenv("XFERCMP_FUZZ_SCRATCH");
	struct rlimit cap = { FILE_SIZE_CAP, FILE_SIZE_CAP };
	char sub[sizeof(jail) + 8];

	if (!scratch || !*scratch)
		scratch = "/dev/shm";
	if ((size_t)snprintf(jail, sizeof(jail), "%s/xfercmp-fuzz-%s.XXXXXX", scratch, name) >= sizeof(jail)) {
		errno = ENAMETOOLONG;
		die("cannot make the jail in", scratch);
	}
	if (!mkdtemp(jail))
		die("cannot make the jail", jail);
	snprintf(sub, sizeof(sub), "%s/a", jail);
	if (mkdir(sub, 0755) < 0)
		die("cannot make", sub);
	snprintf(sub, sizeof(sub), "%s/a/b", jail);
	if (mkdir(sub, 0755) < 0)
		die("cannot make", sub);
	atexit(harness_jail_cleanup);
	/* a zstd stream a few KiB long can expand to gigabytes: tmpfs is memory */
	if (setrlimit(RLIMIT_FSIZE, &cap) < 0)
		die("cannot cap the file size for", name);
	/* the same umask every run: the frames receiver takes its path from it */
	umask(022);
}

void harness_dest_make(char dest[HARNESS_DEST_MAX])
{
	/* libFuzzer sets its own SIGXFSZ handler after LLVMFuzzerInitialize */
	signal(SIGXFSZ, SIG_IGN);
	snprintf(dest, HARNESS_DEST_MAX, "%s/a/b/d.XXXXXX", jail);
	if (!mkdtemp(dest))
		die("cannot make", dest);
}

int harness_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (!d)
		die("cannot open", "/proc/self/fd");
	while ((de = readdir(d)) != NULL)
		n++;
	closedir(d);
	return n;
}

/* Aborts unless dir holds exactly one entry, named only. */
static void expect_only(const char *dir, const char *only)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		die("cannot open", dir);
	while ((de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") || !strcmp(de->d_name, only))
			continue;
		fprintf(stderr, "INVARIANT VIOLATED: '%s' appeared in '%s', outside the destination\n",
			de->d_name, dir);
		abort();
	}
	closedir(d);
}

/*
 * Regular files with more than one name, and how many of their names the
 * walk found: a hard link is allowed only when all of an inode's names are
 * inside the destination (one made to a file outside would leave a name
 * there uncounted).
 */
struct multi_link {
	dev_t dev;
	ino_t ino;
	nlink_t nlink, seen;
	char example[256];
};

static struct multi_link *multi;
static size_t nmulti, multi_alloc;

static void count_link(const struct stat *st, const char *path)
{
	for (size_t i = 0; i < nmulti; i++)
		if (multi[i].dev == st->st_dev && multi[i].ino == st->st_ino) {
			multi[i].seen++;
			return;
		}
	if (nmulti == multi_alloc) {
		multi_alloc = multi_alloc ? multi_alloc * 2 : 16;
		multi = realloc(multi, multi_alloc * sizeof(*multi));
		if (!multi)
			die("out of memory counting links of", path);
	}
	multi[nmulti] = (struct multi_link){ .dev = st->st_dev, .ino = st->st_ino,
					     .nlink = st->st_nlink, .seen = 1 };
	snprintf(multi[nmulti].example, sizeof(multi[nmulti].example), "%s", path);
	nmulti++;
}

/*
 * Walks the tree below the open directory dfd (named path, for messages).
 * Never follows a symbolic link (links are allowed: their text is data);
 * makes each directory searchable and writable for its owner (a stream may
 * give one mode 0) so it can be walked and removed.
 */
static void walk(int dfd, const char *path)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;

	if (!d)
		die("cannot list", path);
	while ((de = readdir(d)) != NULL) {
		char sub[8192];
		struct stat st;
		int fd;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			die("cannot stat", sub);
		if (st.st_mode & (S_ISUID | S_ISGID))
			violation("set-user-ID or set-group-ID bit", sub);
		if (S_ISREG(st.st_mode)) {
			if (st.st_nlink != 1)
				count_link(&st, sub);
			continue;
		}
		if (S_ISLNK(st.st_mode))
			continue;
		if (!S_ISDIR(st.st_mode))
			violation("neither a regular file, a symbolic link nor a directory", sub);
		if (fchmodat(dirfd(d), de->d_name, (st.st_mode & 07777) | S_IRWXU, 0) < 0)
			die("cannot chmod", sub);
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			die("cannot open", sub);
		walk(fd, sub);
	}
	closedir(d);
}

void harness_dest_check(const char *dest, int fds_before)
{
	char dir[HARNESS_DEST_MAX];
	int fd, fds_after = harness_count_fds();

	if (fds_after != fds_before) {
		fprintf(stderr, "INVARIANT VIOLATED: %d file descriptors open before the run, %d after\n",
			fds_before, fds_after);
		abort();
	}
	expect_only(jail, "a");
	snprintf(dir, sizeof(dir), "%s/a", jail);
	expect_only(dir, "b");
	snprintf(dir, sizeof(dir), "%s/a/b", jail);
	expect_only(dir, strrchr(dest, '/') + 1);
	fd = open(dest, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		die("cannot open", dest);
	nmulti = 0;
	walk(fd, dest);
	for (size_t i = 0; i < nmulti; i++)
		if (multi[i].seen != multi[i].nlink)
			violation("a hard link to a file outside the destination", multi[i].example);
	if (fs_remove_tree(dest) < 0) {
		fprintf(stderr, "harness: %s\n", err_msg());
		abort();
	}
}
