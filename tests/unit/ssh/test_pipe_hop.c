/*
 * Unit tests for transfer/ssh/pipe_hop.c: bytes cross the pipe whole and in
 * order, reach the next sink in writes of at least 256 KiB (an SSH channel
 * wants large writes), and the next sink's failure, not the broken pipe, is
 * the error the writer sees.
 */
#define _GNU_SOURCE
#include "testutil.h"

#include "err.h"
#include "ssh/pipe_hop.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#define KIB (1u << 10)
#define MIB (1u << 20)

/* The next sink: keeps what it is given, or fails once it has taken fail_after bytes. */
struct recorder {
	unsigned char *data;
	size_t len, cap;
	size_t writes, below_256k, largest, last;
	int closes;
	size_t fail_after;	/* 0: never fails */
	int fail_close;
};

static int recorder_write(void *ctx, const void *buf, size_t len)
{
	struct recorder *r = ctx;

	if (r->fail_after && r->len + len > r->fail_after)
		return err_set("remote command failed (exit 2): tar: Cannot write: No space left on device");
	if (r->len + len > r->cap) {
		r->cap = (r->len + len) * 2;
		r->data = realloc(r->data, r->cap);
		if (!r->data)
			return err_set("out of memory");
	}
	memcpy(r->data + r->len, buf, len);
	r->len += len;
	if (len < 256 * 1024)
		r->below_256k++;
	if (len > r->largest)
		r->largest = len;
	r->last = len;
	r->writes++;
	return 0;
}

static int recorder_close(void *ctx)
{
	struct recorder *r = ctx;

	r->closes++;
	return r->fail_close ? err_set("remote command failed (exit 2): tar: Unexpected EOF") : 0;
}

/* Starts h in front of r; in is the sink to write into. */
static void start_hop(struct pipe_hop *h, struct recorder *r, struct byte_sink *next,
		      struct byte_sink *in)
{
	next->write = recorder_write;
	next->close = recorder_close;
	next->ctx = r;
	assert_int_equal(pipe_hop_start(h, next, "ssh", PIPE_HOP_SSH), 0);
	pipe_hop_sink(h, in);
}

/* The next sink, held in its first write until the test lets it go. */
struct held {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int entered, released;
	size_t len;
};

static int held_write(void *ctx, const void *buf, size_t len)
{
	struct held *h = ctx;

	(void)buf;
	pthread_mutex_lock(&h->lock);
	h->entered = 1;
	pthread_cond_broadcast(&h->cond);
	while (!h->released)
		pthread_cond_wait(&h->cond, &h->lock);
	h->len += len;
	pthread_mutex_unlock(&h->lock);
	return 0;
}

static int held_close(void *ctx)
{
	(void)ctx;
	return 0;
}

/*
 * What the writer may put into the pipe while the hop hands its first write
 * on and the next sink does not return: the pipe's room, counted with the
 * writer's end made non-blocking.
 */
static size_t room_while_held(enum pipe_hop_buffer buffer)
{
	struct held held = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };
	struct byte_sink next = { .write = held_write, .close = held_close, .ctx = &held }, in;
	struct pipe_hop h;
	static char buf[256 * KIB];
	size_t room = 0;
	int flags;

	assert_int_equal(pipe_hop_start(&h, &next, "ssh", buffer), 0);
	pipe_hop_sink(&h, &in);
	assert_int_equal(in.write(in.ctx, buf, sizeof(buf)), 0);
	pthread_mutex_lock(&held.lock);
	while (!held.entered)
		pthread_cond_wait(&held.cond, &held.lock);
	pthread_mutex_unlock(&held.lock);

	flags = fcntl(h.wfd, F_GETFL);
	assert_int_equal(fcntl(h.wfd, F_SETFL, flags | O_NONBLOCK), 0);
	for (;;) {
		ssize_t n = write(h.wfd, buf, sizeof(buf));

		if (n < 0) {
			assert_int_equal(errno, EAGAIN);
			break;
		}
		room += (size_t)n;
		assert_true(room <= 64 * MIB);
	}
	assert_int_equal(fcntl(h.wfd, F_SETFL, flags), 0);

	pthread_mutex_lock(&held.lock);
	held.released = 1;
	pthread_cond_broadcast(&held.cond);
	pthread_mutex_unlock(&held.lock);
	assert_int_equal(in.close(in.ctx), 0);
	pipe_hop_release(&h);
	/* everything written reached the sink */
	assert_int_equal(held.len, sizeof(buf) + room);
	return room;
}

/*
 * ssh reads its stdin into the channel while it sends (up to the peer's
 * window, 2 MiB from sshd): the writer goes on while the hop hands a write
 * on, by a whole 1 MiB chunk of our tar writer. A shell pipe in front of
 * zstd takes 64 KiB. Behind a 64 KiB pipe to ssh, tar waited 0.33 s of a
 * 2.08 s run on 20,000 files at 2 ms (pipe_hop.h).
 */
static void test_ssh_reads_ahead_while_it_sends(void **state)
{
	long max = 0;
	FILE *f = fopen("/proc/sys/fs/pipe-max-size", "r");

	(void)state;
	if (f) {
		if (fscanf(f, "%ld", &max) != 1)
			max = 0;
		fclose(f);
	}
	if (max < (long)MIB)
		skip();	/* the kernel gives no pipe of 1 MiB here */
	assert_true(room_while_held(PIPE_HOP_SSH) >= MIB);
	assert_int_equal(room_while_held(PIPE_HOP_SHELL), 64 * KIB);
}

/* Deterministic bytes, so that order and loss both show. */
static unsigned char pattern(size_t i)
{
	return (unsigned char)((i * 2654435761u) >> 13);
}

/* Writes total bytes in pieces of piece bytes; returns the first failure's rc. */
static int write_pattern(struct byte_sink *s, size_t total, size_t piece)
{
	unsigned char *buf = malloc(piece);
	size_t off = 0;
	int rc = 0;

	assert_non_null(buf);
	while (off < total && rc == 0) {
		size_t n = total - off < piece ? total - off : piece;

		for (size_t i = 0; i < n; i++)
			buf[i] = pattern(off + i);
		rc = s->write(s->ctx, buf, n);
		off += n;
	}
	free(buf);
	return rc;
}

static void test_bytes_cross_whole_in_large_writes(void **state)
{
	/* GNU tar's 10 KiB records, and a tail that is not a multiple of anything */
	const size_t total = 5 * MIB + 123;
	struct recorder r = { 0 };
	struct byte_sink next, in;
	struct pipe_hop h;

	(void)state;
	start_hop(&h, &r, &next, &in);
	assert_int_equal(write_pattern(&in, total, 10 * KIB), 0);
	assert_int_equal(in.close(in.ctx), 0);
	pipe_hop_release(&h);

	assert_int_equal(r.len, total);
	for (size_t i = 0; i < total; i++)
		if (r.data[i] != pattern(i))
			fail_msg("byte %zu differs", i);
	assert_int_equal(r.closes, 1);
	/* every write but the stream's last is at least 256 KiB, none above 1 MiB */
	assert_true(r.writes >= 5);
	assert_true(r.largest <= MIB);
	assert_true(r.below_256k == 0 || (r.below_256k == 1 && r.last < 256 * KIB));
	free(r.data);
}

static void test_empty_stream_only_closes(void **state)
{
	struct recorder r = { 0 };
	struct byte_sink next, in;
	struct pipe_hop h;

	(void)state;
	start_hop(&h, &r, &next, &in);
	assert_int_equal(in.close(in.ctx), 0);
	pipe_hop_release(&h);
	assert_int_equal(r.writes, 0);
	assert_int_equal(r.closes, 1);
}

static void test_next_failure_reaches_the_writer(void **state)
{
	struct recorder r = { .fail_after = 2 * MIB };
	struct byte_sink next, in;
	struct pipe_hop h;

	(void)state;
	start_hop(&h, &r, &next, &in);
	/* the writer goes on until the pipe breaks; then it has the host's reason */
	assert_int_equal(write_pattern(&in, 64 * MIB, MIB), -1);
	assert_string_equal(err_msg(),
			    "remote command failed (exit 2): tar: Cannot write: No space left on device");
	/* closing after the failure says the same, and nothing was closed downstream */
	assert_int_equal(in.close(in.ctx), -1);
	assert_contains(err_msg(), "No space left on device");
	pipe_hop_release(&h);
	assert_int_equal(r.closes, 0);
	assert_true(r.len <= 2 * MIB);
	free(r.data);
}

static void test_next_close_failure_is_the_close_result(void **state)
{
	struct recorder r = { .fail_close = 1 };
	struct byte_sink next, in;
	struct pipe_hop h;

	(void)state;
	start_hop(&h, &r, &next, &in);
	assert_int_equal(write_pattern(&in, 300 * KIB, 10 * KIB), 0);
	assert_int_equal(in.close(in.ctx), -1);
	assert_string_equal(err_msg(), "remote command failed (exit 2): tar: Unexpected EOF");
	pipe_hop_release(&h);
	assert_int_equal(r.len, 300 * KIB);
	free(r.data);
}

static void test_release_without_close_and_twice(void **state)
{
	struct recorder r = { 0 };
	struct byte_sink next, in;
	struct pipe_hop h, zero;

	(void)state;
	memset(&zero, 0, sizeof(zero));
	zero.wfd = zero.rfd = -1;
	pipe_hop_release(&zero);

	start_hop(&h, &r, &next, &in);
	assert_int_equal(write_pattern(&in, 100 * KIB, 10 * KIB), 0);
	/* a writer that failed on its own side releases without closing: the stream is cut */
	pipe_hop_release(&h);
	pipe_hop_release(&h);
	assert_int_equal(r.closes, 0);
	assert_true(r.len < 100 * KIB);
	assert_int_equal(in.write(in.ctx, "x", 1), -1);
	assert_contains(err_msg(), "after the end");
	free(r.data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes_cross_whole_in_large_writes),
		cmocka_unit_test(test_empty_stream_only_closes),
		cmocka_unit_test(test_next_failure_reaches_the_writer),
		cmocka_unit_test(test_next_close_failure_is_the_close_result),
		cmocka_unit_test(test_release_without_close_and_twice),
		cmocka_unit_test(test_ssh_reads_ahead_while_it_sends),
	};

	/* as the client does: a broken pipe is an error return, not a signal */
	signal(SIGPIPE, SIG_IGN);
	return test_run("pipe_hop", tests, ARRAY_LEN(tests), NULL, 0);
}
