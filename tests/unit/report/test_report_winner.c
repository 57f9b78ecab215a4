/*
 * Unit tests for the strategy the recommendation names
 * (cmd/report/report_winner.c's report_recommended, which --explain reruns first):
 * on this link the fastest measured, whatever was forecast before the runs;
 * on a --what-if link the least forecast there, saying in the same line
 * which won here; the fastest measured when it is tied with any other; the
 * table marks the same winner, or none and names the tied.
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

/* r's table as text (the caller frees it) */
static char *table_text(const struct report *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	report_table(r, f, false);
	assert_int_equal(fclose(f), 0);
	return text;
}

/* issue 44: "splice 4.75 ← fastest" beside "use tar-ssh ... 4.05 s" without a word why */
static void test_one_winner_fastest_and_recommended_differ(void **state)
{
	struct strategy_result res[2] = { test_result("splice", 4.75), test_result("tar-ssh", 5.10) };
	struct probe_results probes = { 0 };
	struct what_if link = { .rate_bits_per_s = 1e9, .rtt_s = 0.02 };
	struct report r = { .host = "h", .workload_name = "w", .results = res, .nresults = 2,
			    .probes = &probes, .what_if = &link, .nwhat_if = 1 };
	char *t;

	(void)state;
	res[0].have_what_if[0] = res[1].have_what_if[0] = true;
	res[0].what_if[0].seconds = 6.0;
	res[1].what_if[0].seconds = 4.05;
	report_recommend(&r);
	assert_true(strncmp(r.recommendation, "use tar-ssh for this workload", 29) == 0);
	/* the same line says why it is not the one marked fastest */
	assert_contains(r.recommendation, "; here splice was fastest (4.75 s measured), but on that link "
			"the model forecasts tar-ssh faster");
	t = table_text(&r);
	assert_contains(t, "← fastest");
	assert_non_null(strstr(strstr(t, "splice "), "← fastest"));
	assert_null(strstr(strstr(t, "tar-ssh "), "← fastest"));
	free(t);
	/* on this link the mark and the recommendation name the same one, with nothing to explain */
	r.nwhat_if = 0;
	report_recommend(&r);
	assert_true(strncmp(r.recommendation, "use splice for this workload on this link", 41) == 0);
	assert_null(strstr(r.recommendation, "here splice was"));
}

/* --repeat: a tie with any strategy, not only the runner-up, is no winner anywhere in the report */
static void test_tie_named_everywhere(void **state)
{
	struct strategy_result res[3] = { test_result("parallel", 6.1), test_result("tar-ssh", 15.0),
					  test_result("splice", 15.5) };
	struct report r = { .host = "h", .workload_name = "w", .results = res, .nresults = 3, .repeat = 3 };
	char *t;

	(void)state;
	for (int i = 0; i < 3; i++)
		res[i].runs = 3;
	res[0].time = (struct stats){ .n = 3, .mean = 8.9, .sd = 4.9, .min = 5.96, .max = 14.52 };
	res[1].time = (struct stats){ .n = 3, .mean = 15.0, .sd = 0.1, .min = 14.9, .max = 15.1 };
	res[2].time = (struct stats){ .n = 3, .mean = 15.5, .sd = 5.5, .min = 9.0, .max = 20.0 };
	report_recommend(&r);
	assert_true(strncmp(r.recommendation, "no clear winner between parallel (8.90 ± 4.90 s, 5.96–14.52) "
			    "and splice (15.50 ± 5.50 s, 9.00–20.00): a tie within the runs' noise", 120) == 0);
	assert_contains(r.recommendation, "; either will do here");
	t = table_text(&r);
	assert_null(strstr(t, "← fastest"));
	assert_contains(t, "no clear winner between parallel");
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recommended),
		cmocka_unit_test(test_one_winner_fastest_and_recommended_differ),
		cmocka_unit_test(test_tie_named_everywhere),
	};

	return test_run("report_winner", tests, ARRAY_LEN(tests), NULL, 0);
}
