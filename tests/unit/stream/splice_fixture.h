/*
 * What the splice tests share (test_splice.c, test_splice_tree.c,
 * test_splice_hostile.c): temp directories, a loopback TCP pair, sender and
 * receiver threads, tree-making helpers, and hand-built record streams fed to
 * frames_receive.
 */
#ifndef XFERCMP_TEST_SPLICE_FIXTURE_H
#define XFERCMP_TEST_SPLICE_FIXTURE_H

#include "testutil.h"
#include "seal_testutil.h"

#include "err.h"
#include "stream/frames.h"
#include "stream/frames_receiver.h"
#include "fsutil.h"
#include "stream/send_plan.h"
#include "stream/splice_sender.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

struct tmp {
	char root[64], src[96], dst[96];
};

static inline void tmp_make(struct tmp *t)
{
	test_mkdtemp(t->root, sizeof(t->root), "xfercmp-splice");
	snprintf(t->src, sizeof(t->src), "%s/src", t->root);
	snprintf(t->dst, sizeof(t->dst), "%s/dst", t->root);
	assert_int_equal(mkdir(t->dst, 0755), 0);
}

static inline void tmp_remove(struct tmp *t)
{
	assert_int_equal(fs_remove_tree(t->root), 0);
}

/* A connected loopback TCP pair: *a connects, *b is the accepted end. */
static inline void tcp_pair(int *a, int *b)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t len = sizeof(addr);
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(l >= 0);
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(l, (struct sockaddr *)&addr, sizeof(addr)), 0);
	assert_int_equal(listen(l, 4), 0);
	assert_int_equal(getsockname(l, (struct sockaddr *)&addr, &len), 0);
	*a = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(*a >= 0);
	assert_int_equal(connect(*a, (struct sockaddr *)&addr, sizeof(addr)), 0);
	*b = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	assert_true(*b >= 0);
	close(l);
}

struct rx {
	pthread_t thread;
	int sock;
	const char *dest;
	int rc;
	struct err_saved err;	/* the thread's message, for the joiner */
	struct recv_stats st;
};

static inline void *rx_main(void *arg)
{
	struct rx *r = arg;

	r->rc = frames_receive(r->sock, &test_opts, r->dest, &r->st);
	err_save(&r->err);
	close(r->sock);
	return NULL;
}

static inline void rx_start(struct rx *r, int sock, const char *dest)
{
	memset(r, 0, sizeof(*r));
	r->sock = sock;
	r->dest = dest;
	assert_int_equal(pthread_create(&r->thread, NULL, rx_main, r), 0);
}

struct tx {
	pthread_t thread;
	int sock;
	const char *src;
	const struct send_plan *plan;
	int rc;
	struct err_saved err;	/* the thread's message, for the joiner */
	struct send_stats st;
};

static inline void *tx_main(void *arg)
{
	struct tx *t = arg;

	t->rc = splice_send(t->sock, test_key, t->src, t->plan->items, t->plan->count, true, &t->st);
	err_save(&t->err);
	close(t->sock);
	return NULL;
}

static inline void tx_start(struct tx *t, int sock, const char *src, const struct send_plan *plan)
{
	memset(t, 0, sizeof(*t));
	t->sock = sock;
	t->src = src;
	t->plan = plan;
	assert_int_equal(pthread_create(&t->thread, NULL, tx_main, t), 0);
}

static inline void tree_path(char *buf, const char *root, const char *rel)
{
	assert_int_equal(fs_join(buf, 512, root, rel), 0);
}

static inline void tree_file(const char *root, const char *rel, size_t len, mode_t mode, time_t mtime)
{
	struct timespec ts[2] = { { .tv_sec = mtime }, { .tv_sec = mtime } };
	char p[512];
	unsigned char *data = malloc(len + 1);
	int fd;

	assert_non_null(data);
	for (size_t i = 0; i < len; i++)
		data[i] = (unsigned char)(i * 7 + strlen(rel));
	tree_path(p, root, rel);
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(fs_write_all(fd, data, len), 0);
	assert_int_equal(close(fd), 0);
	assert_int_equal(chmod(p, mode), 0);
	assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
	free(data);
}

static inline mode_t mode_of(const char *root, const char *rel)
{
	char p[512];
	struct stat sb;

	tree_path(p, root, rel);
	assert_int_equal(lstat(p, &sb), 0);
	return sb.st_mode & 07777;
}

/* ---- hand-built record streams ---- */

struct stream {
	unsigned char *p;
	size_t len, cap;
};

static inline void put(struct stream *s, const void *p, size_t len)
{
	if (s->len + len > s->cap) {
		s->cap = (s->len + len) * 2;
		s->p = realloc(s->p, s->cap);
		assert_non_null(s->p);
	}
	memcpy(s->p + s->len, p, len);
	s->len += len;
}

/* A record with content of `len` bytes of 'x' (only `send` of them written when smaller). */
static inline void put_record(struct stream *s, enum frame_type type, const char *path, uint32_t mode,
		       uint64_t offset, uint64_t len, uint64_t send)
{
	struct frame f = { .type = type, .path_len = (uint16_t)strlen(path), .mode = mode,
			   .offset = offset, .length = len };
	unsigned char hdr[FRAME_HEADER];
	unsigned char *content = malloc((size_t)send + 1);

	assert_non_null(content);
	memset(content, 'x', (size_t)send);
	frame_encode(&f, hdr);
	put(s, hdr, sizeof(hdr));
	put(s, path, strlen(path));
	put(s, content, (size_t)send);
	free(content);
}

/* Any record: the header as given (path_len and length from path and content), then both. */
static inline void put_frame(struct stream *s, struct frame f, const char *path, const char *content,
		      size_t len)
{
	unsigned char hdr[FRAME_HEADER];

	f.path_len = (uint16_t)strlen(path);
	f.length = len;
	frame_encode(&f, hdr);
	put(s, hdr, sizeof(hdr));
	put(s, path, strlen(path));
	put(s, content, len);
}

static inline void put_link(struct stream *s, enum frame_type type, const char *path, const char *text)
{
	put_frame(s, (struct frame){ .type = type }, path, text, strlen(text));
}

static inline void put_dir(struct stream *s, const char *path, uint32_t mode, int64_t mtime)
{
	put_frame(s, (struct frame){ .type = FRAME_DIR, .flags = FRAME_F_MTIME, .mode = mode,
				     .mtime = mtime }, path, "", 0);
}

static inline void put_end(struct stream *s, uint64_t records, uint64_t bytes)
{
	struct frame f = { .type = FRAME_END, .offset = records, .length = bytes };
	unsigned char hdr[FRAME_HEADER];

	frame_encode(&f, hdr);
	put(s, hdr, sizeof(hdr));
}

struct feeder {
	pthread_t thread;
	int sock;
	const struct stream *s;
};

static inline void *feed_main(void *arg)
{
	struct feeder *f = arg;

	size_t len;
	unsigned char *sealed = test_seal_records(f->s->p, f->s->len, &len);

	if (!sealed)
		abort();
	/* the receiver may stop reading early: a failed write is expected then */
	fs_write_all(f->sock, sealed, len);
	free(sealed);
	close(f->sock);
	return NULL;
}

/* Feeds the bytes to frames_receive over a socketpair; returns its result. */
static inline int feed(const struct stream *s, const char *dest, struct recv_stats *st)
{
	struct feeder f = { .s = s };
	int sv[2], rc;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	f.sock = sv[0];
	assert_int_equal(pthread_create(&f.thread, NULL, feed_main, &f), 0);
	err_clear();
	rc = frames_receive(sv[1], &test_opts, dest, st);
	close(sv[1]);
	pthread_join(f.thread, NULL);
	return rc;
}

static inline void expect_reject(const struct stream *s, const char *dest, const char *want)
{
	struct recv_stats st;
	int rc = feed(s, dest, &st);

	if (rc != -1 || !strstr(err_msg(), want))
		print_error("rc %d, error '%s', wanted -1 with '%s'\n", rc, err_msg(), want);
	assert_int_equal(rc, -1);
	assert_true(err_msg()[0] != '\0');
	assert_contains(err_msg(), want);
}

static inline int exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

#endif
