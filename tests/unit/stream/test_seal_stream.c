/*
 * Every byte of a data stream authenticated (stream/seal_stream.c, issue
 * 43 finding 2): a record stream in segments reaches the receiver whole,
 * and a byte changed on the way, a segment dropped, repeated, swapped,
 * forged or cut off, a wrong key or bytes after the end all fail the
 * receive with "integrity check failed" before the altered bytes are
 * written. The old receiver wrote an injected FILE record and took a
 * changed byte into the file (only verify noticed).
 */
#define _GNU_SOURCE
#include "testutil.h"
#include "seal_testutil.h"

#include "err.h"
#include "fsutil.h"
#include "stream/frames.h"
#include "stream/frames_receiver.h"
#include "stream/tar_stream.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static int dir_setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/var/tmp/xfercmp-seal-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int dir_teardown(void **state)
{
	(void)state;
	return fs_remove_tree(dir);
}

/* A plain record stream: one file "secret" of len bytes of 'a', then the end record. */
static unsigned char *records(size_t len, size_t *out)
{
	struct frame f = { .type = FRAME_FILE, .path_len = 6, .mode = 0644, .length = len };
	struct frame end = { .type = FRAME_END, .offset = 1, .length = len };
	unsigned char *p = malloc(2 * FRAME_HEADER + 6 + len);

	assert_non_null(p);
	frame_encode(&f, p);
	memcpy(p + FRAME_HEADER, "secret", 6);
	memset(p + FRAME_HEADER + 6, 'a', len);
	frame_encode(&end, p + FRAME_HEADER + 6 + len);
	*out = 2 * FRAME_HEADER + 6 + len;
	return p;
}

struct feeder {
	int sock;
	const unsigned char *p;
	size_t len;
	pthread_t tid;
};

static void *feed_main(void *arg)
{
	struct feeder *f = arg;

	fs_write_all(f->sock, f->p, f->len);
	close(f->sock);
	return NULL;
}

/* Feeds bytes as they are to frames_receive into a fresh DIR/name; returns its result. */
static int receive(const unsigned char *p, size_t len, const char *name, const struct recv_opts *o)
{
	struct feeder f = { .p = p, .len = len };
	char dest[128];
	int sv[2], rc;

	snprintf(dest, sizeof(dest), "%s/%s", dir, name);
	assert_int_equal(mkdir(dest, 0755), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	f.sock = sv[0];
	assert_int_equal(pthread_create(&f.tid, NULL, feed_main, &f), 0);
	err_clear();
	rc = frames_receive(sv[1], o, dest, NULL);
	close(sv[1]);
	pthread_join(f.tid, NULL);
	return rc;
}

/* What DIR/name/secret holds: -1 when absent, else its size, with whether all is 'a'. */
static long written(const char *name, int *intact)
{
	char path[160], buf[4096];
	long n = 0;
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), "%s/%s/secret", dir, name);
	fd = open(path, O_RDONLY);
	*intact = 1;
	if (fd < 0)
		return -1;
	while ((r = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < r; i++)
			*intact &= buf[i] == 'a';
		n += r;
	}
	close(fd);
	return n;
}

static void expect_integrity_failure(const unsigned char *p, size_t len, const char *name,
				     const char *why)
{
	int intact;
	long n;

	assert_int_equal(receive(p, len, name, &test_opts), -1);
	assert_contains(err_msg(), "integrity check failed");
	assert_contains(err_msg(), why);
	/* nothing altered was written: the file is absent or holds only checked bytes */
	n = written(name, &intact);
	assert_true(n < 0 || intact);
}

/* Sealed, it arrives whole; in segments of 100 bytes too. */
static void test_sealed_stream_arrives(void **state)
{
	size_t plain_len, len;
	unsigned char *plain = records(1000, &plain_len), *sealed;
	int intact;

	(void)state;
	sealed = test_seal(plain, plain_len, 0, &len);
	assert_int_equal(receive(sealed, len, "whole", &test_opts), 0);
	assert_int_equal(written("whole", &intact), 1000);
	assert_true(intact);
	free(sealed);
	sealed = test_seal(plain, plain_len, 100, &len);
	assert_int_equal(receive(sealed, len, "pieces", &test_opts), 0);
	assert_int_equal(written("pieces", &intact), 1000);
	assert_true(intact);
	free(sealed);
	free(plain);
}

/* One byte flipped anywhere: in the content, a record header, a segment header, a tag. */
static void test_flipped_byte(void **state)
{
	size_t plain_len, len;
	unsigned char *plain = records(1000, &plain_len), *sealed = test_seal(plain, plain_len, 100, &len);
	const size_t at[] = { 2 * (SEAL_SEG_HEADER + SEAL_TAG_BYTES) + 250, SEAL_SEG_HEADER + 4,
			      SEAL_SEG_HEADER + 100 + SEAL_TAG_BYTES + 1, SEAL_SEG_HEADER + 100 + 3 };

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(at); i++) {
		char name[16];

		snprintf(name, sizeof(name), "flip%zu", i);
		sealed[at[i]] ^= 0x20;
		expect_integrity_failure(sealed, len, name, i == 2 ? "" : "changed on the way");
		sealed[at[i]] ^= 0x20;
	}
	free(sealed);
	free(plain);
}

/* Segments dropped, repeated or swapped; the stream cut at a segment's end; a wrong key. */
static void test_segments_moved_or_cut(void **state)
{
	size_t plain_len, len, seg = SEAL_SEG_HEADER + 100 + SEAL_TAG_BYTES;
	unsigned char *plain = records(1000, &plain_len), *sealed = test_seal(plain, plain_len, 100, &len);
	unsigned char *moved = malloc(len + seg);
	struct recv_opts other = test_opts;

	(void)state;
	assert_non_null(moved);
	/* segment 2 dropped */
	memcpy(moved, sealed, 2 * seg);
	memcpy(moved + 2 * seg, sealed + 3 * seg, len - 3 * seg);
	expect_integrity_failure(moved, len - seg, "dropped", "changed on the way");
	/* segment 1 twice */
	memcpy(moved, sealed, 2 * seg);
	memcpy(moved + 2 * seg, sealed + seg, len - seg);
	expect_integrity_failure(moved, len + seg, "repeated", "changed on the way");
	/* segments 1 and 2 swapped */
	memcpy(moved, sealed, len);
	memcpy(moved + seg, sealed + 2 * seg, seg);
	memcpy(moved + 2 * seg, sealed + seg, seg);
	expect_integrity_failure(moved, len, "swapped", "changed on the way");
	/* cut after a whole segment, before the sealed end */
	expect_integrity_failure(sealed, 5 * seg, "cut", "cut");
	/* made with another key */
	other.key[0] ^= 1;
	assert_int_equal(receive(sealed, len, "other-key", &other), -1);
	assert_contains(err_msg(), "integrity check failed");
	free(moved);
	free(sealed);
	free(plain);
}

/*
 * A forged FILE record (what the relay of the finding injected, and the old
 * agent wrote) in a segment of its own without the key: refused, nothing
 * written; bytes after the sealed end: refused.
 */
static void test_injected_record_and_bytes_after_the_end(void **state)
{
	size_t plain_len, len, forged_len;
	unsigned char *plain = records(10, &plain_len), *sealed = test_seal(plain, plain_len, 0, &len);
	struct frame f = { .type = FRAME_FILE, .path_len = 6, .mode = 0755, .length = 4 };
	unsigned char forged[SEAL_SEG_HEADER + FRAME_HEADER + 10 + SEAL_TAG_BYTES] = { 0 }, *both;
	int intact;

	(void)state;
	seal_segment_header(forged, FRAME_HEADER + 10, 0);
	frame_encode(&f, forged + SEAL_SEG_HEADER);
	memcpy(forged + SEAL_SEG_HEADER + FRAME_HEADER, "evil.sh#!/b", 10);
	forged_len = sizeof(forged);
	both = malloc(forged_len + len);
	assert_non_null(both);
	memcpy(both, forged, forged_len);
	memcpy(both + forged_len, sealed, len);
	expect_integrity_failure(both, forged_len + len, "injected", "changed on the way");
	assert_int_equal(written("injected", &intact), -1);
	/* the genuine stream, then more after its end */
	memcpy(both, sealed, len);
	memcpy(both + len, forged, forged_len);
	assert_int_equal(receive(both, len + forged_len, "after", &test_opts), -1);
	assert_contains(err_msg(), "integrity check failed: bytes after the sealed end");
	free(both);
	free(sealed);
	free(plain);
}

/* The tar receiver checks its stream the same way. */
static void test_tar_stream_checked(void **state)
{
	char dest[128];
	unsigned char tar[1024] = { 0 }, *sealed;
	size_t len;
	int sv[2];
	struct recv_stats st;
	struct feeder f;

	(void)state;
	/* two zero blocks: an empty archive, sealed, with one byte of it flipped */
	sealed = test_seal(tar, sizeof(tar), 0, &len);
	sealed[SEAL_SEG_HEADER + 100] ^= 1;
	snprintf(dest, sizeof(dest), "%s/tar", dir);
	assert_int_equal(mkdir(dest, 0755), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	f = (struct feeder){ .sock = sv[0], .p = sealed, .len = len };
	assert_int_equal(pthread_create(&f.tid, NULL, feed_main, &f), 0);
	assert_int_equal(tar_stream_extract(sv[1], &test_opts, dest, &st), -1);
	assert_contains(err_msg(), "integrity check failed");
	close(sv[1]);
	pthread_join(f.tid, NULL);
	free(sealed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sealed_stream_arrives, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(test_flipped_byte, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(test_segments_moved_or_cut, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(test_injected_record_and_bytes_after_the_end, dir_setup,
						dir_teardown),
		cmocka_unit_test_setup_teardown(test_tar_stream_checked, dir_setup, dir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
