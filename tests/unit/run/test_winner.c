/*
 * Unit tests for the one winner (transfer/run/winner.c): clear only when
 * the fastest's runs beat every other strategy's, not just the runner-up's
 * (issue 44: parallel's 5.96–14.52 s was called clear beside a narrow
 * runner-up); a tie names every strategy within the noise; the
 * recommendation on this link is that same winner.
 */
#include "testutil.h"

#include "run/winner.h"

#include "result_testutil.h"

/* res ran three times: median m, range [lo, hi] */
static void runs3(struct strategy_result *res, double m, double lo, double hi)
{
	res->runs = 3;
	res->median.transfer = m;
	res->time = (struct stats){ .n = 3, .mean = m, .sd = (hi - lo) / 2, .min = lo, .max = hi };
}

static void test_single_runs(void **state)
{
	struct strategy_result res[3] = { test_result("tar-ssh", 3.0), test_result("splice", 2.0), test_result("scp", 10.0) };
	struct winner w;

	(void)state;
	winner_decide(res, 3, &w);
	assert_ptr_equal(w.best, &res[1]);
	assert_ptr_equal(w.next, &res[0]);
	assert_true(w.clear);
	assert_int_equal(w.ntied, 0);
	/* equal single times are a tie */
	res[0] = test_result("tar-ssh", 2.0);
	winner_decide(res, 3, &w);
	assert_false(w.clear);
	assert_int_equal(w.ntied, 2);
	/* what did not run does not compete */
	res[1].status = RESULT_FAILED;
	winner_decide(res, 3, &w);
	assert_ptr_equal(w.best, &res[0]);
	assert_true(w.clear);
	res[0].status = res[2].status = RESULT_SKIPPED;
	winner_decide(res, 3, &w);
	assert_null(w.best);
	assert_false(w.clear);
}

static void test_overlap_with_any_not_only_runner_up(void **state)
{
	struct strategy_result res[4] = { test_result("parallel", 0), test_result("tar-ssh", 0),
					  test_result("splice", 0), test_result("scp", 0) };
	struct winner w;

	(void)state;
	/* the runner-up is narrow and clear of parallel's range; the third overlaps it */
	runs3(&res[0], 6.10, 5.96, 14.52);
	runs3(&res[1], 15.0, 14.9, 15.1);
	runs3(&res[2], 15.5, 9.0, 20.0);
	runs3(&res[3], 30.0, 29.0, 31.0);
	winner_decide(res, 4, &w);
	assert_ptr_equal(w.best, &res[0]);
	assert_ptr_equal(w.next, &res[1]);
	assert_false(w.clear);
	/* the tied: parallel first, then those within its range, fastest first; scp is not */
	assert_int_equal(w.ntied, 2);
	assert_ptr_equal(w.tied[0], &res[0]);
	assert_ptr_equal(w.tied[1], &res[2]);
	/* both overlapping: named fastest first */
	runs3(&res[1], 14.0, 13.0, 15.1);
	winner_decide(res, 4, &w);
	assert_int_equal(w.ntied, 3);
	assert_ptr_equal(w.tied[1], &res[1]);
	assert_ptr_equal(w.tied[2], &res[2]);
	/* nothing overlaps: clear */
	runs3(&res[1], 16.0, 15.0, 17.0);
	runs3(&res[2], 18.0, 16.0, 20.0);
	winner_decide(res, 4, &w);
	assert_true(w.clear);
	assert_int_equal(w.ntied, 0);
	/* the recommendation here is the same winner, clear or tied */
	assert_ptr_equal(winner_recommended(res, 4, -1), &res[0]);
	runs3(&res[2], 18.0, 14.0, 20.0);
	assert_ptr_equal(winner_recommended(res, 4, -1), &res[0]);
}

static void test_recommended_on_a_what_if_link(void **state)
{
	struct strategy_result res[2] = { test_result("splice", 4.75), test_result("tar-ssh", 5.0) };

	(void)state;
	res[0].have_what_if[0] = res[1].have_what_if[0] = true;
	res[0].what_if[0].seconds = 9.0;
	res[1].what_if[0].seconds = 4.05;
	assert_ptr_equal(winner_recommended(res, 2, 0), &res[1]);
	assert_ptr_equal(winner_recommended(res, 2, -1), &res[0]);
	assert_true(winner_projected(&res[1], 0) == 4.05);
	/* no forecast on that link: what was measured */
	res[1].have_what_if[0] = false;
	assert_true(winner_projected(&res[1], 0) == 5.0);
	res[0].what_if[0].seconds = 4.5;
	assert_ptr_equal(winner_recommended(res, 2, 0), &res[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single_runs),
		cmocka_unit_test(test_overlap_with_any_not_only_runner_up),
		cmocka_unit_test(test_recommended_on_a_what_if_link),
	};

	return test_run("winner", tests, ARRAY_LEN(tests), NULL, 0);
}
