/*
 * Unit tests for the cleanup's status line (cmd/report/live_cleanup.c): the
 * host's part before and after its walk listed everything, this machine's
 * part beside it, 99% at most until the last entry went.
 */
#include "testutil.h"

#include "report/live.h"

static void test_line(void **state)
{
	char buf[160];

	(void)state;
	live_cleanup_format(buf, sizeof(buf), 120000, 48000, true, 0, 0);
	assert_string_equal(buf, "removing 120,000 files on the host: 40%");
	live_cleanup_format(buf, sizeof(buf), 35000, 1000, false, 0, 0);
	assert_string_equal(buf, "removing the copies on the host (35,000 files so far)");
	live_cleanup_format(buf, sizeof(buf), 120000, 119999, true, 20000, 14000);
	assert_string_equal(buf, "removing 120,000 files on the host: 99%, 20,000 here: 70%");
	live_cleanup_format(buf, sizeof(buf), 120000, 120000, true, 20000, 20000);
	assert_string_equal(buf, "removing 120,000 files on the host: 100%, 20,000 here: 100%");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line),
	};

	return test_run("live_cleanup", tests, ARRAY_LEN(tests), NULL, 0);
}
