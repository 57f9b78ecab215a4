/*
 * Unit tests for --explain's null sink (transfer/agent/null_sink.h): a
 * record stream over a socketpair is parsed to its end, its files and bytes
 * counted, every whole file checked against the manifest by size and xxh3;
 * a file whose content differs, a name the manifest lacks, a stream cut
 * short are refused; a receiver with no null form is refused; nothing is
 * ever written (it has no destination at all).
 */
#define _GNU_SOURCE
#include "testutil.h"
#include "seal_testutil.h"

#include "agent/null_sink.h"
#include "err.h"
#include "manifest.h"
#include "stream/frames.h"

#include <sys/socket.h>
#include <unistd.h>
#include <xxhash.h>

/* Appends one record (header, path, content) to buf at *len. */
static void put_record(unsigned char *buf, size_t *len, enum frame_type type, const char *path,
		       const void *content, size_t clen, uint64_t offset)
{
	struct frame f = { .type = type, .path_len = (uint16_t)(path ? strlen(path) : 0),
			   .mode = type == FRAME_FILE || type == FRAME_RANGE ? 0644 : 0, .offset = offset,
			   .length = clen };

	frame_encode(&f, buf + *len);
	*len += FRAME_HEADER;
	if (path) {
		memcpy(buf + *len, path, strlen(path));
		*len += strlen(path);
	}
	memcpy(buf + *len, content, clen);
	*len += clen;
}

static void put_end(unsigned char *buf, size_t *len, uint64_t records, uint64_t content)
{
	struct frame f = { .type = FRAME_END, .offset = records, .length = content };

	frame_encode(&f, buf + *len);
	*len += FRAME_HEADER;
}

/* Sends buf over a socketpair (closing the writing end) and runs the null sink on the other. */
static int sink(const struct manifest *m, const char *receiver, const unsigned char *buf, size_t len,
		struct recv_stats *st)
{
	int sv[2], rc;
	size_t sealed_len = 0;
	unsigned char *sealed = test_seal_records(buf, len, &sealed_len);

	assert_non_null(sealed);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	/* small enough for the socket's buffer: written whole before the sink reads */
	assert_int_equal(write(sv[0], sealed, sealed_len), (ssize_t)sealed_len);
	free(sealed);
	close(sv[0]);
	memset(st, 0, sizeof(*st));
	rc = null_sink_receive(m, receiver, &sv[1], &test_opts, 1, st);
	close(sv[1]);
	return rc;
}

static void manifest_of_two(struct manifest *m)
{
	manifest_init(m);
	assert_int_equal(manifest_add_file(m, "a/one", 5, 0644, 0, XXH3_64bits("hello", 5)), 0);
	assert_int_equal(manifest_add_file(m, "two", 3, 0644, 0, XXH3_64bits("abc", 3)), 0);
	manifest_sort(m);
}

static void test_counts_and_checks(void **state)
{
	unsigned char buf[1024];
	size_t len = 0;
	struct manifest m;
	struct recv_stats st;

	(void)state;
	manifest_of_two(&m);
	put_record(buf, &len, FRAME_DIR, "a", "", 0, 0);
	put_record(buf, &len, FRAME_FILE, "a/one", "hello", 5, 0);
	put_record(buf, &len, FRAME_FILE, "two", "abc", 3, 0);
	put_record(buf, &len, FRAME_SYMLINK, "link", "two", 3, 0);
	put_end(buf, &len, 4, 11);
	assert_int_equal(sink(&m, "frames", buf, len, &st), 0);
	assert_int_equal(st.files, 2);
	assert_int_equal(st.bytes, 8);
	assert_int_equal(st.wire_bytes, test_sealed_records_len(buf, len));
	manifest_release(&m);

	/* a hard link's other name carrying the content (GNU tar's walk meets it first) checks against its primary */
	manifest_of_two(&m);
	assert_int_equal(manifest_add_hardlink(&m, "b-two", "two"), 0);
	manifest_sort(&m);
	len = 0;
	put_record(buf, &len, FRAME_FILE, "b-two", "abc", 3, 0);
	put_end(buf, &len, 1, 3);
	assert_int_equal(sink(&m, "frames", buf, len, &st), 0);
	manifest_release(&m);
}

static void test_refuses_what_differs(void **state)
{
	unsigned char buf[1024];
	size_t len = 0;
	struct manifest m;
	struct recv_stats st;

	(void)state;
	manifest_of_two(&m);
	/* one byte changed */
	put_record(buf, &len, FRAME_FILE, "a/one", "hellO", 5, 0);
	put_end(buf, &len, 1, 5);
	assert_int_equal(sink(&m, "frames", buf, len, &st), -1);
	assert_contains(err_msg(), "content of 'a/one' differs from the manifest");
	/* a name the manifest does not have */
	len = 0;
	put_record(buf, &len, FRAME_FILE, "three", "abc", 3, 0);
	put_end(buf, &len, 1, 3);
	assert_int_equal(sink(&m, "frames", buf, len, &st), -1);
	assert_contains(err_msg(), "'three' is not in the manifest");
	/* cut before the end record */
	len = 0;
	put_record(buf, &len, FRAME_FILE, "two", "abc", 3, 0);
	assert_int_equal(sink(&m, "frames", buf, len, &st), -1);
	assert_contains(err_msg(), "before the end record");
	/* an end record whose totals do not match */
	len = 0;
	put_record(buf, &len, FRAME_FILE, "two", "abc", 3, 0);
	put_end(buf, &len, 2, 3);
	assert_int_equal(sink(&m, "frames", buf, len, &st), -1);
	assert_contains(err_msg(), "end record says 2 records");
	/* ranges: counted once (at offset 0), their bytes summed, no whole hash to check */
	len = 0;
	put_record(buf, &len, FRAME_RANGE, "a/one", "he", 2, 0);
	put_record(buf, &len, FRAME_RANGE, "a/one", "llo", 3, 2);
	put_end(buf, &len, 2, 5);
	assert_int_equal(sink(&m, "frames", buf, len, &st), 0);
	assert_int_equal(st.files, 1);
	assert_int_equal(st.bytes, 5);
	manifest_release(&m);
}

static void test_only_frames_and_tar(void **state)
{
	int fd = -1;
	struct recv_stats st = { 0 };

	(void)state;
	assert_true(null_sink_supports("frames"));
	assert_true(null_sink_supports("tar"));
	assert_false(null_sink_supports("discard"));
	assert_false(null_sink_supports("null"));
	assert_int_equal(null_sink_receive(NULL, "echo", &fd, &test_opts, 1, &st), -1);
	assert_contains(err_msg(), "no form of receiver 'echo'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_and_checks),
		cmocka_unit_test(test_refuses_what_differs),
		cmocka_unit_test(test_only_frames_and_tar),
	};

	return test_run("null_sink", tests, ARRAY_LEN(tests), NULL, 0);
}
