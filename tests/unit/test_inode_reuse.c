/*
 * inode_reuse_allow (inode_reuse.c) touches a device only on ext4 without a
 * journal: everywhere else it must do nothing and say so.
 */
#include "testutil.h"

#include "inode_reuse.h"

#include <sys/vfs.h>

#define TMPFS_MAGIC 0x01021994

static void test_tmpfs_is_left_alone(void **state)
{
	struct statfs sf;

	(void)state;
	if (statfs("/dev/shm", &sf) != 0 || sf.f_type != TMPFS_MAGIC)
		skip();
	assert_int_equal(inode_reuse_allow("/dev/shm"), 0);
}

static void test_missing_path_is_left_alone(void **state)
{
	(void)state;
	assert_int_equal(inode_reuse_allow("/nonexistent/xfercmp-inode-reuse"), 0);
}

static void test_proc_is_left_alone(void **state)
{
	(void)state;
	assert_int_equal(inode_reuse_allow("/proc"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tmpfs_is_left_alone),
		cmocka_unit_test(test_missing_path_is_left_alone),
		cmocka_unit_test(test_proc_is_left_alone),
	};

	return test_run("inode_reuse", tests, ARRAY_LEN(tests), NULL, 0);
}
