/*
 * Unit tests for --explain's plan (cmd/explain_plan.c): by default it
 * reruns the strategy the recommendation names (report_recommended: the
 * predicted time where there is a model, the fastest measured when the two
 * fastest are within their noise) and the slowest measured, once when they
 * are one; a list names its own, in the comparison's order; a destination
 * without room for the workload is refused with what it has and what the
 * workload needs. cmd/ has no archive: the modules are built in.
 */
#include "testutil.h"

#include "explain_plan.c"
#include "report_winner.c"

#include "cmd_testutil.h"

/* The names ex chose, "a,b". */
static const char *chosen(const struct explain_report *ex)
{
	static char buf[256];

	buf[0] = '\0';
	for (size_t i = 0; i < ex->n; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", i ? "," : "",
			 ex->items[i].result->strategy->name);
	return buf;
}

static void test_default_is_recommended_and_slowest(void **state)
{
	struct strategy_result res[3] = { test_result("tar-ssh", 3.0), test_result("splice", 2.0), test_result("scp", 10.0) };
	struct report r = { .results = res, .nresults = 3 };
	struct explain_report ex;

	(void)state;
	memset(&ex, 0xff, sizeof(ex));
	/* no model: the recommendation is the fastest measured */
	explain_choose(NULL, &r, &ex);
	assert_string_equal(chosen(&ex), "splice,scp");
	/* each item ready to run: its baseline, nothing run, no verdict yet */
	res[1].median.flush = 0.5;
	explain_choose(NULL, &r, &ex);
	assert_true(ex.items[0].baseline_seconds == 2.5);
	assert_int_equal(ex.items[0].causal, RES_COUNT);
	assert_false(ex.items[0].by_elimination);
	assert_false(ex.items[0].has_agreement);
	for (int k = 0; k < EXPLAIN_REMOVED_COUNT; k++) {
		assert_int_equal(ex.items[1].ab[k].removed, k);
		assert_int_equal(ex.items[1].ab[k].status, EXPLAIN_NOT_RUN);
		assert_string_equal(ex.items[1].ab[k].reason, "");
	}

	/* a strategy that failed is neither, however slow its time */
	res[2].status = RESULT_FAILED;
	explain_choose(NULL, &r, &ex);
	assert_string_equal(chosen(&ex), "splice,tar-ssh");

	/* nothing ran: nothing to explain */
	res[0].status = res[1].status = RESULT_FAILED;
	explain_choose(NULL, &r, &ex);
	assert_int_equal(ex.n, 0);
}

static void test_default_follows_the_recommendation(void **state)
{
	struct strategy_result res[3] = { test_result("splice", 2.0), test_result("tar-ssh", 3.0), test_result("scp", 10.0) };
	struct probe_results probes = { 0 };
	struct what_if link = { .rate_bits_per_s = 1e9, .rtt_s = 0.02 };
	struct report r = { .results = res, .nresults = 3, .probes = &probes };
	struct explain_report ex;

	(void)state;
	/* on this link what was measured decides: splice, and the slowest beside it */
	for (int i = 0; i < 3; i++)
		res[i].have_forecast = true;
	res[0].forecast.seconds = 5.0;	/* a forecast made before the run never picks the winner here */
	assert_ptr_equal(report_recommended(&r), &res[0]);
	explain_choose(NULL, &r, &ex);
	assert_string_equal(chosen(&ex), "splice,scp");

	/* on a --what-if link the forecasts there decide: tar-ssh */
	r.what_if = &link;
	r.nwhat_if = 1;
	for (int i = 0; i < 3; i++)
		res[i].have_what_if[0] = true;
	res[0].what_if[0].seconds = 5.0;
	res[1].what_if[0].seconds = 2.5;
	res[2].what_if[0].seconds = 9.0;
	assert_ptr_equal(report_recommended(&r), &res[1]);
	explain_choose(NULL, &r, &ex);
	assert_string_equal(chosen(&ex), "tar-ssh,scp");

	/* the recommended is the slowest measured too: once */
	r.nresults = 2;
	explain_choose(NULL, &r, &ex);
	assert_string_equal(chosen(&ex), "tar-ssh");

	/* the two fastest within their noise (--repeat), on this link: the fastest measured */
	r.nresults = 3;
	r.nwhat_if = 0;
	res[0].time = (struct stats){ .n = 3, .mean = 2.0, .sd = 0.8, .min = 1.2, .max = 3.1 };
	res[1].time = (struct stats){ .n = 3, .mean = 3.0, .sd = 0.8, .min = 2.1, .max = 3.9 };
	assert_ptr_equal(report_recommended(&r), &res[0]);
	explain_choose(NULL, &r, &ex);
	assert_string_equal(chosen(&ex), "splice,scp");
}

static void test_list(void **state)
{
	struct strategy_result res[3] = { test_result("splice", 2.0), test_result("tar-ssh", 3.0), test_result("scp", 10.0) };
	struct report r = { .results = res, .nresults = 3 };
	struct explain_report ex;

	(void)state;
	/* the comparison's order, whatever the list's; one that failed too (its removals say why not) */
	res[2].status = RESULT_FAILED;
	explain_choose("scp,splice", &r, &ex);
	assert_string_equal(chosen(&ex), "splice,scp");
	assert_false(explain_ran_ok(ex.items[1].result));
	/* whole names only */
	explain_choose("spl,tar-ssh", &r, &ex);
	assert_string_equal(chosen(&ex), "tar-ssh");
}

static void test_room(void **state)
{
	struct manifest m;
	char why[256] = "untouched";

	(void)state;
	manifest_init(&m);
	/* 1 GiB in 1,024 files: the bytes, 4 KiB a file and 64 MiB to spare */
	m.count = 1024;
	m.total_bytes = 1ull << 30;
	assert_int_equal(explain_room_needed(&m), (1ull << 30) + (4ull << 20) + (64ull << 20));
	assert_true(explain_has_room(&m, explain_room_needed(&m), "/var/tmp on this machine", why, sizeof(why)));
	assert_string_equal(why, "untouched");
	assert_false(explain_has_room(&m, explain_room_needed(&m) - 1, "/var/tmp on this machine", why,
				      sizeof(why)));
	assert_string_equal(why, "/var/tmp on this machine has 1.07 GiB free, the workload needs about 1.07 GiB");
	assert_false(explain_has_room(&m, 1u << 20, "tmpfs /dev/shm on testbed", why, sizeof(why)));
	assert_string_equal(why, "tmpfs /dev/shm on testbed has 1.00 MiB free, the workload needs about 1.07 GiB");
	/* a short buffer is cut, not overrun */
	assert_false(explain_has_room(&m, 0, "here", why, 10));
	assert_string_equal(why, "here has ");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_is_recommended_and_slowest),
		cmocka_unit_test(test_default_follows_the_recommendation),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_room),
	};

	return test_run("explain_plan", tests, ARRAY_LEN(tests), NULL, 0);
}
