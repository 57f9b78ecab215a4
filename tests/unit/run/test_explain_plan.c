/*
 * Unit tests for --explain's plan (transfer/run/explain_plan.c): by
 * default it reruns the strategy the recommendation names (the caller's:
 * report_recommended, tested in tests/unit/report/test_report_winner.c) and
 * the slowest measured, once when they are one; a list names its own, in
 * the comparison's order; a destination without room for the workload is
 * refused with what it has and what the workload needs.
 */
#include "testutil.h"

#include "run/explain_plan.h"

#include "result_testutil.h"

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
	struct explain_report ex;

	(void)state;
	memset(&ex, 0xff, sizeof(ex));
	/* the recommendation (the fastest measured, without a model) and the slowest */
	explain_choose(NULL, res, 3, &res[1], &ex);
	assert_string_equal(chosen(&ex), "splice,scp");
	/* each item ready to run: its baseline, nothing run, no verdict yet */
	res[1].median.flush = 0.5;
	explain_choose(NULL, res, 3, &res[1], &ex);
	assert_true(ex.items[0].baseline_seconds == 2.5);
	assert_int_equal(ex.items[0].causal, RES_COUNT);
	assert_false(ex.items[0].by_elimination);
	assert_false(ex.items[0].has_agreement);
	for (int k = 0; k < EXPLAIN_REMOVED_COUNT; k++) {
		assert_int_equal(ex.items[1].ab[k].removed, k);
		assert_int_equal(ex.items[1].ab[k].status, EXPLAIN_NOT_RUN);
		assert_string_equal(ex.items[1].ab[k].reason, "");
	}

	/* a strategy that failed is not the slowest, however slow its time */
	res[2].status = RESULT_FAILED;
	explain_choose(NULL, res, 3, &res[1], &ex);
	assert_string_equal(chosen(&ex), "splice,tar-ssh");

	/* nothing ran: no recommendation, nothing to explain */
	res[0].status = res[1].status = RESULT_FAILED;
	explain_choose(NULL, res, 3, NULL, &ex);
	assert_int_equal(ex.n, 0);
}

static void test_recommended_first(void **state)
{
	struct strategy_result res[3] = { test_result("splice", 2.0), test_result("tar-ssh", 3.0), test_result("scp", 10.0) };
	struct explain_report ex;

	(void)state;
	/* the model's choice, not the fastest measured: it first, then the slowest */
	explain_choose(NULL, res, 3, &res[1], &ex);
	assert_string_equal(chosen(&ex), "tar-ssh,scp");

	/* the recommended is the slowest measured too: once */
	explain_choose(NULL, res, 2, &res[1], &ex);
	assert_string_equal(chosen(&ex), "tar-ssh");
}

static void test_list(void **state)
{
	struct strategy_result res[3] = { test_result("splice", 2.0), test_result("tar-ssh", 3.0), test_result("scp", 10.0) };
	struct explain_report ex;

	(void)state;
	/* the comparison's order, whatever the list's; one that failed too (its removals say why not) */
	res[2].status = RESULT_FAILED;
	explain_choose("scp,splice", res, 3, &res[0], &ex);
	assert_string_equal(chosen(&ex), "splice,scp");
	assert_false(explain_ran_ok(ex.items[1].result));
	/* whole names only; a list leaves the recommendation out */
	explain_choose("spl,tar-ssh", res, 3, &res[0], &ex);
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
		cmocka_unit_test(test_recommended_first),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_room),
	};

	return test_run("explain_plan", tests, ARRAY_LEN(tests), NULL, 0);
}
