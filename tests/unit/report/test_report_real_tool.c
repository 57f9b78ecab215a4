/*
 * Unit tests for the recommendation's real tool (cmd/report/report_real_tool.c):
 * named only when parallel wins and a parallel reference tool ran and
 * verified; the faster of real-fpsync and real-rclone, with its command
 * line at -P and its time.
 */
#include "testutil.h"

#include "report/report.h"

#include "strategy/list.h"

static struct strategy_result result(const char *name, double seconds)
{
	struct strategy_result r = { .strategy = strategy_find(name), .status = RESULT_OK, .verified = true,
				     .runs = 1 };

	r.median.transfer = seconds;
	return r;
}

static void test_real_tool(void **state)
{
	struct strategy_result res[3] = { result("parallel", 4.1), result("real-fpsync", 12.3),
					  result("real-rclone", 20) };
	struct report r = { .host = "testbed", .results = res, .nresults = 3, .streams = 8 };
	char buf[512] = "use parallel";
	int n;

	(void)state;
	n = report_real_tool(&r, &res[0], buf + 12, sizeof(buf) - 12);

	assert_int_equal(n, (int)strlen(buf + 12));
	assert_string_equal(buf, "use parallel; the closest real tool here: fpsync -n 8 DIR/ testbed:DST/, "
			    "12.30 s (parallel 4.10 s)");

	/* rclone faster: its line */
	res[2].median.transfer = 6;
	assert_true(report_real_tool(&r, &res[0], buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "; the closest real tool here: rclone copy --transfers 8 --create-empty-src-dirs "
			    "--sftp-disable-hashcheck DIR REMOTE:DST (REMOTE an sftp remote for testbed), "
			    "6.00 s (parallel 4.10 s)");

	/* a failed or unverified tool is not named: the other one is */
	res[2].verified = false;
	assert_true(report_real_tool(&r, &res[0], buf, sizeof(buf)) > 0);
	assert_contains(buf, "fpsync -n 8");
	res[1].status = RESULT_FAILED;
	strcpy(buf, "x");
	assert_int_equal(report_real_tool(&r, &res[0], buf, sizeof(buf)), 0);
	assert_string_equal(buf, "x");

	/* parallel did not win: nothing */
	res[1].status = RESULT_OK;
	assert_int_equal(report_real_tool(&r, &res[1], buf, sizeof(buf)), 0);
	assert_int_equal(report_real_tool(&r, NULL, buf, sizeof(buf)), 0);
	/* a short buffer is cut, not overrun */
	assert_int_equal(report_real_tool(&r, &res[0], buf, 10), 9);
	assert_string_equal(buf, "; the clo");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_tool),
	};

	return test_run("report_real_tool", tests, ARRAY_LEN(tests), NULL, 0);
}
