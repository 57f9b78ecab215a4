/*
 * Unit tests for the cleanup's status line (cmd/report/live_cleanup.c): the
 * host's part before and after its walk listed everything (before: against
 * the total its copies' manifests give, when it gave one), this machine's
 * part beside it, 99% at most until the last entry went.
 */
#include "testutil.h"

#include "report/live.h"

static void test_line(void **state)
{
	char buf[160];
	struct live_cleanup c = { .host_found = 120000, .host_removed = 48000, .host_walked = true };

	(void)state;
	live_cleanup_format(buf, sizeof(buf), &c);
	assert_string_equal(buf, "removing 120,000 files on the host: 40%");
	c = (struct live_cleanup){ .host_found = 35000, .host_removed = 1000 };
	live_cleanup_format(buf, sizeof(buf), &c);
	assert_string_equal(buf, "removing the copies on the host (35,000 files so far)");
	c = (struct live_cleanup){ .host_found = 120000, .host_removed = 119999, .host_walked = true,
				   .local_found = 20000, .local_removed = 14000 };
	live_cleanup_format(buf, sizeof(buf), &c);
	assert_string_equal(buf, "removing 120,000 files on the host: 99%, 20,000 here: 70%");
	c.host_removed = 120000;
	c.local_removed = 20000;
	live_cleanup_format(buf, sizeof(buf), &c);
	assert_string_equal(buf, "removing 120,000 files on the host: 100%, 20,000 here: 100%");
	/* a big tree: walked only at the end, the manifests' total in its place */
	c = (struct live_cleanup){ .host_found = 35000, .host_removed = 34000, .host_expected = 85000 };
	live_cleanup_format(buf, sizeof(buf), &c);
	assert_string_equal(buf, "removing about 85,000 files on the host: 40%");
	/* more found than expected (the create probe's files too), all removed: still not 100% */
	c = (struct live_cleanup){ .host_found = 86000, .host_removed = 86000, .host_expected = 85000 };
	live_cleanup_format(buf, sizeof(buf), &c);
	assert_string_equal(buf, "removing about 86,000 files on the host: 99%");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line),
	};

	return test_run("live_cleanup", tests, ARRAY_LEN(tests), NULL, 0);
}
