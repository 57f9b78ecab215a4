/* Unit tests for common/nospace.c: one way of saying the destination ran out of space. */
#include "testutil.h"

#include "err.h"
#include "nospace.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

static void test_full(void **state)
{
	struct nospace_free f = { .bytes = 2u << 20, .inodes = 10, .inodes_counted = true };
	char buf[64];

	(void)state;
	assert_false(nospace_full(&f));
	assert_string_equal(nospace_free_text(&f, buf, sizeof(buf)), "2.00 MiB free");
	f.inodes = 0;
	assert_true(nospace_full(&f));
	assert_string_equal(nospace_free_text(&f, buf, sizeof(buf)), "2.00 MiB free but no inode");
	/* btrfs counts no inodes: none left is not full there */
	f.inodes_counted = false;
	assert_false(nospace_full(&f));
	f.bytes = 4096;
	assert_true(nospace_full(&f));
}

static void test_name(void **state)
{
	struct nospace_free f = { .bytes = 0, .inodes = 5, .inodes_counted = true };
	char msg[200];

	(void)state;
	assert_true(nospace_says_enospc("cannot write 'x': No space left on device"));
	assert_true(nospace_says_enospc("copy: write: no space left on device"));
	assert_false(nospace_says_enospc("sftp: Failure (status 4, failure)"));
	snprintf(msg, sizeof(msg), "cannot write 'd/f': No space left on device");
	nospace_name(msg, sizeof(msg), &f);
	assert_string_equal(msg, NOSPACE_TEXT " (0 B free on its file system): cannot write 'd/f': "
				 "No space left on device");
	/* said once */
	nospace_name(msg, sizeof(msg), &f);
	assert_string_equal(msg, NOSPACE_TEXT " (0 B free on its file system): cannot write 'd/f': "
				 "No space left on device");
	snprintf(msg, sizeof(msg), "receive: " NOSPACE_TEXT " writing x");
	nospace_name(msg, sizeof(msg), &f);
	assert_string_equal(msg, "receive: " NOSPACE_TEXT " writing x");
	snprintf(msg, sizeof(msg), "sftp: Failure (status 4)");
	nospace_name(msg, sizeof(msg), NULL);
	assert_string_equal(msg, NOSPACE_TEXT ": sftp: Failure (status 4)");
	/* cut from the end, never overflowed */
	memset(msg, 'x', 39);
	msg[39] = '\0';
	nospace_name(msg, 40, NULL);
	assert_int_equal(strlen(msg), 39);
}

static void test_err(void **state)
{
	int fd = open("/tmp", O_RDONLY | O_DIRECTORY);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(nospace_err(fd, "1.00 MiB written", "the file '%s'", "/tmp/x"), -1);
	assert_contains(err_msg(), NOSPACE_TEXT " writing the file '/tmp/x' (1.00 MiB written; ");
	assert_contains(err_msg(), " free on its file system)");
	assert_int_equal(nospace_err(-1, NULL, "the file '%s'", "/tmp/x"), -1);
	assert_string_equal(err_msg(), NOSPACE_TEXT " writing the file '/tmp/x'");
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_name),
		cmocka_unit_test(test_err),
	};

	return test_run("nospace", tests, ARRAY_LEN(tests), NULL, 0);
}
