/*
 * Unit tests for the strategy the recommendation names
 * (cmd/report/report_winner.c's report_recommended, which --explain reruns first):
 * on this link the fastest measured, whatever was forecast before the runs;
 * on a --what-if link the least forecast there; the fastest measured when
 * the two fastest are within their noise.
 */
#include "testutil.h"

#include "report/report.h"

#include "result_testutil.h"

static void test_recommended(void **state)
{
	struct strategy_result res[3] = { test_result("splice", 2.0), test_result("tar-ssh", 3.0), test_result("scp", 10.0) };
	struct probe_results probes = { 0 };
	struct report r = { .results = res, .nresults = 3 };

	struct what_if link = { .rate_bits_per_s = 1e9, .rtt_s = 0.02 };

	(void)state;
	/* no model: the fastest measured */
	assert_ptr_equal(report_recommended(&r), &res[0]);
	/* on this link what was measured decides, whatever was forecast before the runs */
	r.probes = &probes;
	for (int i = 0; i < 3; i++)
		res[i].have_forecast = true;
	res[0].forecast.seconds = 5.0;
	res[1].forecast.seconds = 2.5;
	assert_ptr_equal(report_recommended(&r), &res[0]);
	/* on a --what-if link its forecasts decide: tar-ssh */
	r.what_if = &link;
	r.nwhat_if = 1;
	for (int i = 0; i < 3; i++)
		res[i].have_what_if[0] = true;
	res[0].what_if[0].seconds = 5.0;
	res[1].what_if[0].seconds = 2.5;
	res[2].what_if[0].seconds = 9.0;
	assert_ptr_equal(report_recommended(&r), &res[1]);
	r.nwhat_if = 0;
	/* the two fastest within their noise (--repeat): the fastest measured */
	res[0].time = (struct stats){ .n = 3, .mean = 2.0, .sd = 0.8, .min = 1.2, .max = 3.1 };
	res[1].time = (struct stats){ .n = 3, .mean = 3.0, .sd = 0.8, .min = 2.1, .max = 3.9 };
	assert_ptr_equal(report_recommended(&r), &res[0]);
	/* nothing ran: none */
	for (int i = 0; i < 3; i++)
		res[i].status = RESULT_FAILED;
	assert_null(report_recommended(&r));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recommended),
	};

	return test_run("report_winner", tests, ARRAY_LEN(tests), NULL, 0);
}
