/*
 * Bounds on what a receive may take (stream/recv_opts.h, issue 43 findings
 * 3 and 7): from the manifest, a receive takes no more directory, mtime or
 * hard-link records than it lists (200,000 DIR records took the old
 * receiver to 796 MB, none of it counted against the session's cap), no
 * more bytes than it accounts for, no more tar bytes out of a zstd stream,
 * no zstd window beyond 8 MiB, and no sender that goes silent. The old
 * receiver took all of these.
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
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

static char dir[64];

static int dir_setup(void **state)
{
	(void)state;
	/* a receiver that stops early makes the feeder's writes fail, not kill the test */
	signal(SIGPIPE, SIG_IGN);
	snprintf(dir, sizeof(dir), "/var/tmp/xfercmp-bounds-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int dir_teardown(void **state)
{
	(void)state;
	return fs_remove_tree(dir);
}

struct feeder {
	int sock;
	const unsigned char *p;
	size_t len;
	int stall;	/* stop writing halfway and wait, the socket open */
	pthread_t tid;
};

static void *feed_main(void *arg)
{
	struct feeder *f = arg;

	fs_write_all(f->sock, f->p, f->stall ? f->len / 2 : f->len);
	if (f->stall)
		sleep(2);
	close(f->sock);
	return NULL;
}

/* Feeds sealed bytes to the receiver (tar: the extractor) with bounds b into a fresh DIR/name. */
static int receive(const unsigned char *p, size_t len, const char *name, struct recv_bounds *b,
		   int tar, int stall, struct recv_stats *st)
{
	struct feeder f = { .p = p, .len = len, .stall = stall };
	struct recv_opts o = test_opts;
	char dest[128];
	int sv[2], rc;

	o.bounds = b;
	snprintf(dest, sizeof(dest), "%s/%s", dir, name);
	assert_int_equal(mkdir(dest, 0755), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	f.sock = sv[0];
	assert_int_equal(pthread_create(&f.tid, NULL, feed_main, &f), 0);
	err_clear();
	rc = tar ? tar_stream_extract(sv[1], &o, dest, st) : frames_receive(sv[1], &o, dest, st);
	/* the receiver may stop early: the feeder's writes fail, it ends */
	shutdown(sv[1], SHUT_RDWR);
	close(sv[1]);
	pthread_join(f.tid, NULL);
	return rc;
}

/* A manifest of `dirs` directories and one file of size bytes. */
static void small_manifest(struct manifest *m, unsigned dirs, uint64_t size)
{
	char path[32];

	manifest_init(m);
	for (unsigned i = 0; i < dirs; i++) {
		snprintf(path, sizeof(path), "d%u", i);
		assert_int_equal(manifest_add_dir(m, path, 0755, 1), 0);
	}
	assert_int_equal(manifest_add(m, "f", size, 0644, 1), 0);
	manifest_sort(m);
}

/*
 * The finding's stream: 200,000 DIR records (each with a 100-byte path),
 * against a manifest of 10 directories. Refused at the eleventh, having
 * read a few KiB of the 28 MB: what the end of the receive holds stays
 * within the manifest's counts.
 */
static void test_dir_records_capped(void **state)
{
	const unsigned records = 200000;
	struct recv_bounds b;
	struct manifest m;
	struct recv_stats st;
	size_t plain_len = (size_t)records * (FRAME_HEADER + 100) + FRAME_HEADER, len, o = 0;
	unsigned char *plain = malloc(plain_len), *sealed;
	char path[101];

	(void)state;
	assert_non_null(plain);
	memset(path, 'x', 100);
	path[100] = '\0';
	for (unsigned i = 0; i < records; i++) {
		struct frame f = { .type = FRAME_DIR, .path_len = 100, .mode = 0755 };

		frame_encode(&f, plain + o);
		memcpy(plain + o + FRAME_HEADER, path, 100);
		o += FRAME_HEADER + 100;
	}
	frame_encode(&(struct frame){ .type = FRAME_END, .offset = records }, plain + o);
	sealed = test_seal(plain, plain_len, 64 << 10, &len);
	assert_non_null(sealed);
	small_manifest(&m, 10, 0);
	recv_bounds_set(&b, &m, 100000, RECV_FRAMES, 1);
	assert_int_equal(receive(sealed, len, "dirs", &b, 0, 0, &st), -1);
	assert_contains(err_msg(), "more directory records than the manifest the client sent allows (10)");
	assert_true(atomic_load(&b.dirs) <= 11);
	assert_true(st.wire_bytes < (1u << 20));
	/* a manifest of short names: the names' bytes run out first */
	recv_bounds_set(&b, &m, 1000, RECV_FRAMES, 1);
	assert_int_equal(receive(sealed, len, "names", &b, 0, 0, &st), -1);
	assert_contains(err_msg(), "more bytes of names noted for the end than the manifest the client sent allows (1000)");
	/* without bounds (a local receive) the same stream is taken */
	assert_int_equal(receive(sealed, len, "dirs-unbounded", NULL, 0, 0, &st), 0);
	manifest_release(&m);
	free(sealed);
	free(plain);
}

/* More bytes than the manifest accounts for: refused before the segment that passes it is read. */
static void test_payload_capped(void **state)
{
	struct recv_bounds b;
	struct manifest m;
	struct recv_stats st;
	size_t content = 8u << 20, plain_len = 2 * FRAME_HEADER + 1 + content, len = 0;
	unsigned char *plain = calloc(1, plain_len), *sealed;

	(void)state;
	assert_non_null(plain);
	frame_encode(&(struct frame){ .type = FRAME_FILE, .path_len = 1, .mode = 0644, .length = content },
		     plain);
	plain[FRAME_HEADER] = 'f';
	frame_encode(&(struct frame){ .type = FRAME_END, .offset = 1, .length = content },
		     plain + FRAME_HEADER + 1 + content);
	sealed = test_seal_records(plain, plain_len, &len);
	/* the manifest says the file has 1000 bytes */
	small_manifest(&m, 0, 1000);
	recv_bounds_set(&b, &m, 100, RECV_FRAMES, 1);
	assert_int_equal(receive(sealed, len, "bytes", &b, 0, 0, &st), -1);
	assert_contains(err_msg(), "more bytes in the data streams than the manifest the client sent allows");
	assert_true(st.wire_bytes < (6u << 20));
	manifest_release(&m);
	free(sealed);
	free(plain);
}

/* A sender that goes silent with its connection open is cut after the idle limit. */
static void test_silent_sender_cut(void **state)
{
	struct recv_bounds b;
	struct manifest m;
	struct recv_stats st;
	size_t plain_len = 2 * FRAME_HEADER + 1 + 5000, len;
	unsigned char *plain = calloc(1, plain_len), *sealed;

	(void)state;
	assert_non_null(plain);
	frame_encode(&(struct frame){ .type = FRAME_FILE, .path_len = 1, .mode = 0644, .length = 5000 }, plain);
	plain[FRAME_HEADER] = 'f';
	frame_encode(&(struct frame){ .type = FRAME_END, .offset = 1, .length = 5000 },
		     plain + FRAME_HEADER + 1 + 5000);
	sealed = test_seal(plain, plain_len, 1000, &len);
	small_manifest(&m, 0, 5000);
	recv_bounds_set(&b, &m, 100, RECV_FRAMES, 1);
	b.idle_ms = 300;
	assert_int_equal(receive(sealed, len, "silent", &b, 0, 1, &st), -1);
	assert_contains(err_msg(), "the sender sent nothing for 0 s");
	manifest_release(&m);
	free(sealed);
	free(plain);
}

/* A zstd frame of a window of 128 MiB, or of more tar bytes than the manifest allows: refused. */
static void test_zstd_window_and_expansion(void **state)
{
	size_t zeros = 64u << 20, cap = ZSTD_compressBound(zeros), zlen, len;
	unsigned char *z = malloc(cap), *data = calloc(1, zeros), *sealed;
	ZSTD_CCtx *c = ZSTD_createCCtx();
	struct recv_bounds b;
	struct manifest m;
	struct recv_stats st;

	(void)state;
	assert_true(z && data && c);
	ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, 27);
	ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 1);
	zlen = ZSTD_compress2(c, z, cap, data, zeros);
	assert_false(ZSTD_isError(zlen));
	sealed = test_seal(z, zlen, 0, &len);
	small_manifest(&m, 0, 1000);
	recv_bounds_set(&b, &m, 100, RECV_TAR, 1);
	assert_int_equal(receive(sealed, len, "window", &b, 1, 0, &st), -1);
	assert_contains(err_msg(), "the agent takes windows of at most 8 MiB");
	free(sealed);
	/* a small window that expands 64 MiB of zeros from a few KiB: more tar than 1000 bytes allow */
	ZSTD_CCtx_reset(c, ZSTD_reset_session_and_parameters);
	ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, 20);
	zlen = ZSTD_compress2(c, z, cap, data, zeros);
	assert_false(ZSTD_isError(zlen));
	sealed = test_seal(z, zlen, 0, &len);
	recv_bounds_set(&b, &m, 100, RECV_TAR, 1);
	assert_int_equal(receive(sealed, len, "expansion", &b, 1, 0, &st), -1);
	assert_contains(err_msg(), "tar bytes the manifest allows");
	manifest_release(&m);
	free(sealed);
	ZSTD_freeCCtx(c);
	free(data);
	free(z);
}

/* A file's mtime comes once: on a range that does not start the file it is refused. */
static void test_mtime_once_per_file(void **state)
{
	unsigned char h[FRAME_HEADER];
	struct frame f = { .type = FRAME_RANGE, .path_len = 1, .flags = FRAME_F_MTIME, .mtime = 5,
			   .offset = 100, .length = 10 }, got;

	(void)state;
	frame_encode(&f, h);
	assert_int_equal(frame_decode(h, &got), -1);
	assert_contains(err_msg(), "an mtime on a range that does not start its file");
	f.offset = 0;
	frame_encode(&f, h);
	assert_int_equal(frame_decode(h, &got), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_dir_records_capped, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(test_payload_capped, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(test_silent_sender_cut, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(test_zstd_window_and_expansion, dir_setup, dir_teardown),
		cmocka_unit_test(test_mtime_once_per_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
