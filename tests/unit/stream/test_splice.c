/*
 * Unit tests for transfer/stream/splice_sender.c and transfer/stream/frames_receiver.c:
 * real trees over loopback TCP (what production uses), verified against the
 * workload manifest, and the sender's own errors. Trees with directories,
 * links, modes and mtimes: test_splice_tree.c; hostile streams:
 * test_splice_hostile.c.
 */
#define _GNU_SOURCE
#include "splice_fixture.h"

#include "generate.h"
#include "verify.h"

#include <signal.h>

static void generate(enum workload_kind kind, uint64_t files, uint64_t size, const char *dir,
		     struct manifest *m)
{
	struct workload_spec spec = {
		.kind = kind, .files = files, .size = size, .seed = 7, .compressibility = 0.3,
	};
	struct generate_stats gst;

	manifest_init(m);
	if (workload_generate(&spec, dir, 2, false, m, &gst) < 0) {
		print_error("workload_generate: %s\n", err_msg());
		fail();
	}
}

static void assert_verified(const char *dst, const struct manifest *m)
{
	struct verify_report rep;
	char line[512];

	assert_int_equal(verify_tree(dst, m, 2, &rep), 0);
	verify_summary(&rep, line, sizeof(line));
	if (verify_differences(&rep) != 0) {
		print_error("%s\n", line);
		for (unsigned i = 0; i < rep.nexamples; i++)
			print_error("  %s\n", rep.examples[i]);
	}
	assert_int_equal(verify_differences(&rep), 0);
	assert_int_equal(rep.files_ok, m->count);
}

/*
 * Sends m's tree as one stream and checks the tree and both sides' counts.
 * nonblock: both sockets O_NONBLOCK, so the EAGAIN paths run too.
 */
static void whole_tree(enum workload_kind kind, uint64_t files, uint64_t size, int nonblock)
{
	struct tmp t;
	struct manifest m;
	struct send_plan plan;
	struct send_stats sst;
	struct rx r;
	int a, b, rc;

	tmp_make(&t);
	generate(kind, files, size, t.src, &m);
	assert_int_equal(send_plan_whole(&m, &plan), 0);
	tcp_pair(&a, &b);
	if (nonblock) {
		assert_int_equal(fcntl(a, F_SETFL, O_NONBLOCK), 0);
		assert_int_equal(fcntl(b, F_SETFL, O_NONBLOCK), 0);
	}
	rx_start(&r, b, t.dst);
	rc = splice_send(a, test_key, t.src, plan.items, plan.count, true, &sst);
	if (rc < 0)
		print_error("splice_send: %s\n", err_msg());
	close(a);
	pthread_join(r.thread, NULL);
	if (r.rc < 0)
		print_error("frames_receive: %s\n", r.err.msg);
	assert_int_equal(rc, 0);
	assert_int_equal(r.rc, 0);
	assert_verified(t.dst, &m);
	assert_int_equal(sst.files, m.count);
	assert_int_equal(sst.bytes_read, m.total_bytes);
	assert_int_equal(r.st.files, m.count);
	assert_int_equal(r.st.bytes, m.total_bytes);
	assert_int_equal(sst.wire_bytes, r.st.wire_bytes);
	assert_true(sst.wire_bytes > m.total_bytes + FRAME_HEADER * (m.count + 1));
	send_plan_release(&plan);
	manifest_release(&m);
	tmp_remove(&t);
}

/* ---- whole trees over loopback TCP ---- */

static void test_smallfiles(void **state)
{
	(void)state;
	whole_tree(WORKLOAD_SMALLFILES, 3000, 0, 0);
}

static void test_largefile(void **state)
{
	(void)state;
	whole_tree(WORKLOAD_LARGEFILE, 0, (64ull << 20) + 1234, 0);
}

static void test_mixed(void **state)
{
	(void)state;
	whole_tree(WORKLOAD_MIXED, 500, 32ull << 20, 0);
}

static void test_nonblocking_sockets(void **state)
{
	(void)state;
	whole_tree(WORKLOAD_MIXED, 100, 16ull << 20, 1);
}

/* Two streams, large files cut into ranges, two connections into one dest at once. */
static void split_tree(enum workload_kind kind, uint64_t files, uint64_t size)
{
	struct tmp t;
	struct manifest m;
	struct send_plan plans[2];
	struct rx r[2];
	struct tx s[2];
	uint64_t files_sent = 0, bytes = 0, ranges = 0, received = 0;

	tmp_make(&t);
	generate(kind, files, size, t.src, &m);
	assert_int_equal(send_plan_split(&m, 2, 8ull << 20, plans), 0);
	for (int i = 0; i < 2; i++) {
		int a, b;

		for (size_t k = 0; k < plans[i].count; k++)
			ranges += plans[i].items[k].kind != SEND_FILE;
		tcp_pair(&a, &b);
		rx_start(&r[i], b, t.dst);
		tx_start(&s[i], a, t.src, &plans[i]);
	}
	assert_true(ranges >= 2);
	for (int i = 0; i < 2; i++) {
		pthread_join(s[i].thread, NULL);
		pthread_join(r[i].thread, NULL);
		if (s[i].rc < 0)
			print_error("splice_send %d: %s\n", i, s[i].err.msg);
		if (r[i].rc < 0)
			print_error("frames_receive %d: %s\n", i, r[i].err.msg);
		assert_int_equal(s[i].rc, 0);
		assert_int_equal(r[i].rc, 0);
		assert_int_equal(s[i].st.files, plans[i].count);
		assert_int_equal(r[i].st.files, plans[i].count);
		assert_int_equal(s[i].st.bytes_read, plans[i].bytes);
		assert_int_equal(r[i].st.bytes, plans[i].bytes);
		files_sent += s[i].st.files;
		received += r[i].st.bytes;
		bytes += s[i].st.bytes_read;
	}
	assert_int_equal(bytes, m.total_bytes);
	assert_int_equal(received, m.total_bytes);
	assert_int_equal(files_sent, m.count + ranges - (ranges / 2));
	assert_verified(t.dst, &m);
	for (int i = 0; i < 2; i++)
		send_plan_release(&plans[i]);
	manifest_release(&m);
	tmp_remove(&t);
}

static void test_split_largefile(void **state)
{
	(void)state;
	split_tree(WORKLOAD_LARGEFILE, 0, (64ull << 20) + 1234);
}

static void test_split_mixed(void **state)
{
	(void)state;
	split_tree(WORKLOAD_MIXED, 100, 40ull << 20);	/* four 10 MiB files: each cut in two */
}

/* An empty plan is a stream of one END record. */
static void test_empty_plan(void **state)
{
	struct tmp t;
	struct send_stats sst;
	struct rx r;
	int a, b;

	(void)state;
	tmp_make(&t);
	assert_int_equal(mkdir(t.src, 0755), 0);
	tcp_pair(&a, &b);
	rx_start(&r, b, t.dst);
	assert_int_equal(splice_send(a, test_key, t.src, NULL, 0, true, &sst), 0);
	close(a);
	pthread_join(r.thread, NULL);
	assert_int_equal(r.rc, 0);
	assert_int_equal(sst.files, 0);
	/* the end record alone, in the stream's one (end) segment */
	assert_int_equal(sst.wire_bytes, SEAL_SEG_HEADER + FRAME_HEADER + SEAL_TAG_BYTES);
	assert_int_equal(r.st.wire_bytes, SEAL_SEG_HEADER + FRAME_HEADER + SEAL_TAG_BYTES);
	assert_int_equal(r.st.files, 0);
	assert_int_equal(fs_dir_is_empty(t.dst), 1);
	tmp_remove(&t);
}

/* ---- the sender's own errors ---- */

/* A file that is not the size the plan says, small (read ahead) or large (spliced). */
static void changed_size(uint64_t real, uint64_t planned)
{
	struct tmp t;
	struct send_item items[2];
	struct send_stats sst;
	struct rx r;
	char path[160];
	unsigned char *data = calloc(1, (size_t)real);
	int a, b, fd, rc;

	assert_non_null(data);
	tmp_make(&t);
	assert_int_equal(mkdir(t.src, 0755), 0);
	snprintf(path, sizeof(path), "%s/ok", t.src);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	assert_int_equal(fs_write_all(fd, "hello", 5), 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/grown", t.src);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	assert_int_equal(fs_write_all(fd, data, (size_t)real), 0);
	close(fd);
	items[0] = (struct send_item){ .path = "ok", .length = 5, .file_size = 5, .mode = 0644,
				       .kind = SEND_FILE };
	items[1] = (struct send_item){ .path = "grown", .length = planned, .file_size = planned,
				       .mode = 0644, .kind = SEND_FILE };

	tcp_pair(&a, &b);
	rx_start(&r, b, t.dst);
	err_clear();
	rc = splice_send(a, test_key, t.src, items, 2, false, &sst);
	assert_int_equal(rc, -1);
	assert_contains(err_msg(), "grown");
	assert_contains(err_msg(), "changed");
	close(a);
	pthread_join(r.thread, NULL);
	/* the receiver sees the stream cut before its sealed end: an error, not a hang */
	assert_int_equal(r.rc, -1);
	err_restore(&r.err);
	assert_contains(err_msg(), "integrity check failed: the stream was cut");
	free(data);
	tmp_remove(&t);
}

static void test_small_file_grew(void **state)
{
	(void)state;
	changed_size(4000, 3999);
}

static void test_small_file_shrank(void **state)
{
	(void)state;
	changed_size(100, 101);
}

static void test_large_file_changed(void **state)
{
	(void)state;
	changed_size(1u << 20, (1u << 20) + 1);
}

static void test_missing_source(void **state)
{
	struct tmp t;
	struct send_item item = { .path = "nosuch", .length = 3, .file_size = 3, .kind = SEND_FILE };
	int sv[2];

	(void)state;
	tmp_make(&t);
	assert_int_equal(mkdir(t.src, 0755), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	err_clear();
	assert_int_equal(splice_send(sv[0], test_key, t.src, &item, 1, true, NULL), -1);
	assert_contains(err_msg(), "cannot open");
	assert_contains(err_msg(), "nosuch");
	close(sv[0]);
	close(sv[1]);
	tmp_remove(&t);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_smallfiles),
		cmocka_unit_test(test_largefile),
		cmocka_unit_test(test_mixed),
		cmocka_unit_test(test_nonblocking_sockets),
		cmocka_unit_test(test_split_largefile),
		cmocka_unit_test(test_split_mixed),
		cmocka_unit_test(test_empty_plan),
		cmocka_unit_test(test_small_file_grew),
		cmocka_unit_test(test_small_file_shrank),
		cmocka_unit_test(test_large_file_changed),
		cmocka_unit_test(test_missing_source),
	};
	/* a receiver that stops early makes the peer's next write raise SIGPIPE */
	signal(SIGPIPE, SIG_IGN);
	return test_run("splice", tests, ARRAY_LEN(tests), NULL, 0);
}
