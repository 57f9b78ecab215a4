/*
 * Shared by the receiver fuzzers: feeding one input through a socket, and
 * checking that a run wrote nothing outside its destination. See harness.h.
 */
#define _GNU_SOURCE
#include "harness.h"

#include "err.h"
#include "fsutil.h"
#include "stream/seal_stream.h"
#include "stream/wire_auth.h"
#include "../unit/seal_testutil.h"

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
 * Names seen per inode of a multi-link regular file, when links are
 * allowed: every name of such an inode must be inside the destination.
 */
struct inode_names {
	struct {
		dev_t dev;
		ino_t ino;
		nlink_t nlink, seen;
	} *v;
	size_t n, cap;
};

static void inode_seen(struct inode_names *in, const struct stat *st, const char *path)
{
	for (size_t i = 0; i < in->n; i++)
		if (in->v[i].dev == st->st_dev && in->v[i].ino == st->st_ino) {
			in->v[i].seen++;
			return;
		}
	if (in->n == in->cap) {
		size_t cap = in->cap ? in->cap * 2 : 16;
		void *grown = realloc(in->v, cap * sizeof(*in->v));

		if (!grown)
			die("out of memory for", path);
		in->v = grown;
		in->cap = cap;
	}
	in->v[in->n].dev = st->st_dev;
	in->v[in->n].ino = st->st_ino;
	in->v[in->n].nlink = st->st_nlink;
	in->v[in->n].seen = 1;
	in->n++;
}

/*
 * Walks the tree below the open directory dfd (named path, for messages).
 * Never follows a symbolic link; makes each directory searchable and
 * writable for its owner (a stream may give one mode 0) so it can be
 * walked and removed. links NULL: only directories and single-link regular
 * files may be there; else symbolic links too, and regular files with more
 * names, counted in links.
 */
static void walk(int dfd, const char *path, struct inode_names *links)
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
			if (st.st_nlink != 1 && !links)
				violation("regular file with more than one link", sub);
			if (st.st_nlink != 1)
				inode_seen(links, &st, sub);
			continue;
		}
		if (links && S_ISLNK(st.st_mode))
			continue;
		if (!S_ISDIR(st.st_mode))
			violation(links ? "neither a regular file, a directory nor a symbolic link" :
				  "neither a regular file nor a directory", sub);
		if (fchmodat(dirfd(d), de->d_name, (st.st_mode & 07777) | S_IRWXU, 0) < 0)
			die("cannot chmod", sub);
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			die("cannot open", sub);
		walk(fd, sub, links);
	}
	closedir(d);
}

static void dest_check(const char *dest, int fds_before, int allow_links)
{
	char dir[HARNESS_DEST_MAX];
	struct inode_names links = { 0 };
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
	walk(fd, dest, allow_links ? &links : NULL);
	for (size_t i = 0; i < links.n; i++)
		if (links.v[i].seen != links.v[i].nlink) {
			fprintf(stderr, "INVARIANT VIOLATED: a file in '%s' has %lu names, %lu of them "
				"inside it\n", dest, (unsigned long)links.v[i].nlink,
				(unsigned long)links.v[i].seen);
			abort();
		}
	free(links.v);
	if (fs_remove_tree(dest) < 0) {
		fprintf(stderr, "harness: %s\n", err_msg());
		abort();
	}
}

void harness_dest_check(const char *dest, int fds_before)
{
	dest_check(dest, fds_before, 0);
}

void harness_dest_check_links(const char *dest, int fds_before)
{
	dest_check(dest, fds_before, 1);
}

const struct recv_opts harness_opts = { .key = { 0xf0, 0x22, 0x2e, 0x5e, 0xed } };

uint8_t *harness_seal(const uint8_t *data, size_t size, size_t seg, size_t *len)
{
	uint8_t *out = test_seal_with(harness_opts.key, data, size,
				      seg < SEAL_SEG_MAX ? seg : SEAL_SEG_MAX, len);

	if (!out)
		die("cannot seal", "an input");
	return out;
}

uint8_t *harness_seal_records(const uint8_t *data, size_t size, size_t *len)
{
	uint8_t *out = test_seal_records_with(harness_opts.key, data, size, len);

	if (!out)
		die("cannot seal", "an input");
	return out;
}

void harness_session_key(unsigned char key[32])
{
	signal(SIGPIPE, SIG_IGN);
	if (wire_key_from_token("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
				key) < 0)
		die("cannot derive", "the session key");
}
