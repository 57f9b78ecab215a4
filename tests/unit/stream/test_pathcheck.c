/* Received paths (stream/pathcheck): what a record or tar entry may name below the destination. */
#include "testutil.h"

#include "err.h"
#include "stream/pathcheck.h"

static void test_pathcheck(void **state)
{
	static const char *const good[] = { "a", "a/b", "d0000/d01/f00000001", "x..y", ".hidden",
					    "a/.b/c.." };
	static const char *const bad[] = { "", "/etc/passwd", "..", "../x", "a/../b", "a/..", ".",
					   "./a", "a//b", "a/", "a/./b" };
	char deep[400] = "";

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(good); i++)
		assert_int_equal(pathcheck_relative(good[i], strlen(good[i])), 0);
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		err_clear();
		assert_int_equal(pathcheck_relative(bad[i], strlen(bad[i])), -1);
		assert_true(err_msg()[0] != '\0');
	}
	assert_int_equal(pathcheck_relative("a\0b", 3), -1);
	assert_contains(err_msg(), "NUL");
	for (int i = 0; i < PATHCHECK_MAX_DEPTH + 1; i++)
		strcat(deep, i ? "/d" : "d");
	assert_int_equal(pathcheck_relative(deep, strlen(deep)), -1);
	assert_contains(err_msg(), "deeper");
	{
		char longname[300];

		memset(longname, 'x', sizeof(longname));
		assert_int_equal(pathcheck_relative(longname, sizeof(longname)), -1);
		assert_contains(err_msg(), "255");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pathcheck),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
