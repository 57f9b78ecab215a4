/*
 * Unit tests for transfer/ssh/sftp_wire.c: the bytes of each request the scp
 * model sends, and the parsing of the replies it reads, malformed ones
 * included.
 */
#include "testutil.h"

#include "err.h"
#include "ssh/sftp_wire.h"

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void test_init_is_version_3(void **state)
{
	static const uint8_t want[] = { 0, 0, 0, 5, SFTP_INIT, 0, 0, 0, 3 };
	uint8_t out[16];

	(void)state;
	assert_int_equal(sftp_encode_init(out, sizeof(out)), sizeof(want));
	assert_memory_equal(out, want, sizeof(want));
}

static void test_open_fields(void **state)
{
	static const uint8_t want[] = {
		0, 0, 0, 25,				/* length */
		SFTP_OPEN, 0, 0, 0, 7,			/* type, id */
		0, 0, 0, 4, '/', 'd', '/', 'f',		/* path */
		0, 0, 0, 0x0a,				/* WRITE | CREATE */
		0, 0, 0, 4, 0, 0, 0x01, 0xa4,		/* permissions 0644 */
	};
	uint8_t out[64];

	(void)state;
	assert_int_equal(sftp_encode_open(out, sizeof(out), 7, "/d/f",
					  SFTP_OPEN_WRITE | SFTP_OPEN_CREATE, 0644),
			 sizeof(want));
	assert_memory_equal(out, want, sizeof(want));
}

/* The write head's length counts the data the caller appends; the head is SFTP_WRITE_HEAD. */
static void test_write_head_counts_the_data(void **state)
{
	static const uint8_t handle[] = { 'h', '1' };
	uint8_t out[64];
	size_t n;

	(void)state;
	n = sftp_encode_write(out, sizeof(out), 0x01020304, handle, sizeof(handle),
			      0x0000000500000006ull, 261120);
	assert_int_equal(n, SFTP_WRITE_HEAD(sizeof(handle)));
	assert_int_equal(be32(out), n - 4 + 261120);
	assert_int_equal(out[4], SFTP_WRITE);
	assert_int_equal(be32(out + 5), 0x01020304);
	assert_int_equal(be32(out + 9), 2);
	assert_memory_equal(out + 13, "h1", 2);
	assert_int_equal(be32(out + 15), 5);
	assert_int_equal(be32(out + 19), 6);
	assert_int_equal(be32(out + 23), 261120);
}

static void test_fsetstat_close_mkdir_stat(void **state)
{
	static const uint8_t handle[] = { 0, 0, 0, 9 };
	uint8_t out[64];
	size_t n;

	(void)state;
	n = sftp_encode_fsetstat_size(out, sizeof(out), 2, handle, sizeof(handle), 1234567890123ull);
	assert_int_equal(n, 4 + 1 + 4 + 4 + 4 + 4 + 8);
	assert_int_equal(out[4], SFTP_FSETSTAT);
	assert_int_equal(be32(out + 17), SFTP_ATTR_SIZE);
	assert_int_equal(((uint64_t)be32(out + 21) << 32 | be32(out + 25)), 1234567890123ull);

	n = sftp_encode_close(out, sizeof(out), 3, handle, sizeof(handle));
	assert_int_equal(n, 4 + 1 + 4 + 4 + 4);
	assert_int_equal(be32(out), n - 4);
	assert_int_equal(out[4], SFTP_CLOSE);

	n = sftp_encode_mkdir(out, sizeof(out), 4, "a/b", 0755);
	assert_int_equal(n, 4 + 1 + 4 + 4 + 3 + 4 + 4);
	assert_int_equal(out[4], SFTP_MKDIR);
	assert_int_equal(be32(out + n - 4), 0755);

	n = sftp_encode_stat(out, sizeof(out), 5, "a/b");
	assert_int_equal(n, 4 + 1 + 4 + 4 + 3);
	assert_int_equal(out[4], SFTP_STAT);

	n = sftp_encode_setstat_mode(out, sizeof(out), 6, "a/b", 0555);
	assert_int_equal(n, 4 + 1 + 4 + 4 + 3 + 4 + 4);
	assert_int_equal(out[4], SFTP_SETSTAT);
	assert_int_equal(out[4], 9);
	assert_int_equal(be32(out + 5), 6);
	assert_int_equal(be32(out + n - 8), SFTP_ATTR_PERMISSIONS);
	assert_int_equal(be32(out + n - 4), 0555);
}

/* A buffer one byte short gives 0, never a cut message. */
static void test_too_small_gives_zero(void **state)
{
	uint8_t out[64];
	size_t need;

	(void)state;
	need = sftp_encode_open(out, sizeof(out), 1, "/x", SFTP_OPEN_WRITE, 0600);
	assert_true(need > 0);
	assert_int_equal(sftp_encode_open(out, need - 1, 1, "/x", SFTP_OPEN_WRITE, 0600), 0);
	assert_int_equal(sftp_encode_init(out, 8), 0);
}

static void test_parse_status_with_message(void **state)
{
	static const uint8_t body[] = {
		SFTP_STATUS, 0, 0, 0, 42, 0, 0, 0, SFTP_NO_SUCH_FILE,
		0, 0, 0, 7, 'N', 'o', ' ', 's', 'u', 'c', 'h', 0, 0, 0, 0,
	};
	struct sftp_reply r;

	(void)state;
	assert_int_equal(sftp_parse_reply(body, sizeof(body), &r), 0);
	assert_int_equal(r.type, SFTP_STATUS);
	assert_int_equal(r.id, 42);
	assert_int_equal(r.status, SFTP_NO_SUCH_FILE);
	assert_int_equal(r.message_len, 7);
	assert_memory_equal(r.message, "No such", 7);
	assert_string_equal(sftp_status_name(r.status), "no such file");
	assert_null(sftp_status_name(99));
}

static void test_parse_status_without_message(void **state)
{
	static const uint8_t body[] = { SFTP_STATUS, 0, 0, 0, 1, 0, 0, 0, SFTP_OK };
	struct sftp_reply r;

	(void)state;
	assert_int_equal(sftp_parse_reply(body, sizeof(body), &r), 0);
	assert_int_equal(r.status, SFTP_OK);
	assert_int_equal(r.message_len, 0);
}

static void test_parse_handle(void **state)
{
	static const uint8_t body[] = { SFTP_HANDLE, 0, 0, 0, 9, 0, 0, 0, 4, 0, 0, 0, 3 };
	uint8_t big[1 + 4 + 4 + SFTP_HANDLE_MAX + 1] = { SFTP_HANDLE, 0, 0, 0, 9, 0, 0, 1, 1 };
	struct sftp_reply r;

	(void)state;
	assert_int_equal(sftp_parse_reply(body, sizeof(body), &r), 0);
	assert_int_equal(r.id, 9);
	assert_int_equal(r.handle_len, 4);
	assert_memory_equal(r.handle, "\0\0\0\3", 4);
	/* 257 bytes: over the draft's limit */
	assert_int_equal(sftp_parse_reply(big, sizeof(big), &r), -1);
	assert_contains(err_msg(), "handle of 257 bytes");
}

/* Every optional attribute field present: the parser must step over each to reach the next. */
static void test_parse_attrs_all_fields(void **state)
{
	static const uint8_t body[] = {
		SFTP_ATTRS, 0, 0, 0, 3,
		0x80, 0, 0, 0x0f,			/* EXTENDED | ACMODTIME | PERMISSIONS | UIDGID | SIZE */
		0, 0, 0, 0, 0, 0, 0x10, 0,		/* size 4096 */
		0, 0, 0, 1, 0, 0, 0, 2,			/* uid, gid */
		0, 0, 0x41, 0xed,			/* permissions 040755 */
		0, 0, 0, 5, 0, 0, 0, 6,			/* atime, mtime */
		0, 0, 0, 1, 0, 0, 0, 1, 'k', 0, 0, 0, 1, 'v',	/* one extended pair */
	};
	struct sftp_reply r;

	(void)state;
	assert_int_equal(sftp_parse_reply(body, sizeof(body), &r), 0);
	assert_int_equal(r.id, 3);
	assert_int_equal(r.size, 4096);
	assert_int_equal(r.permissions, 040755);
	/* cut inside the extended pair */
	assert_int_equal(sftp_parse_reply(body, sizeof(body) - 1, &r), -1);
	assert_contains(err_msg(), "cut short");
}

static void test_parse_version_and_bad_types(void **state)
{
	static const uint8_t version[] = { SFTP_VERSION, 0, 0, 0, 3, 0, 0, 0, 1, 'x', 0, 0, 0, 0 };
	static const uint8_t data[] = { 103, 0, 0, 0, 1 };
	static const uint8_t cut[] = { SFTP_STATUS, 0, 0, 0 };
	struct sftp_reply r;

	(void)state;
	assert_int_equal(sftp_parse_reply(version, sizeof(version), &r), 0);
	assert_int_equal(r.version, 3);
	assert_int_equal(sftp_parse_reply(data, sizeof(data), &r), -1);
	assert_contains(err_msg(), "unexpected message type 103");
	assert_int_equal(sftp_parse_reply(cut, sizeof(cut), &r), -1);
	assert_contains(err_msg(), "cut short");
	assert_int_equal(sftp_parse_reply(cut, 0, &r), -1);
	assert_contains(err_msg(), "empty message");
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_is_version_3),
		cmocka_unit_test(test_open_fields),
		cmocka_unit_test(test_write_head_counts_the_data),
		cmocka_unit_test(test_fsetstat_close_mkdir_stat),
		cmocka_unit_test(test_too_small_gives_zero),
		cmocka_unit_test(test_parse_status_with_message),
		cmocka_unit_test(test_parse_status_without_message),
		cmocka_unit_test(test_parse_handle),
		cmocka_unit_test(test_parse_attrs_all_fields),
		cmocka_unit_test(test_parse_version_and_bad_types),
	};

	return test_run("sftp_wire", tests, ARRAY_LEN(tests), NULL, 0);
}
