/*
 * Unit tests for transfer/model/accounting.c and its words (model_text.c):
 * the shares add up to the measured time by construction, latency-bound
 * only for waits on the wire, a resource close behind is named, a ceiling
 * the run beat is said, and no reason says "X s of Y s" with X above Y.
 */
#include "testutil.h"

#include "model/accounting.h"
#include "model_fixture.h"
#include "strategy/list.h"

#include <math.h>
#include <stdlib.h>

static struct run_record record(const char *name, double transfer, double flush, uint64_t files,
				uint64_t bytes, uint64_t round_trips)
{
	struct run_record r;

	memset(&r, 0, sizeof(r));
	r.strategy = strategy_find(name);
	assert_non_null(r.strategy);
	r.transfer_s = transfer;
	r.flush_s = flush;
	r.sent.files = files;
	r.sent.bytes_read = r.sent.wire_bytes = bytes;
	r.sent.round_trips = round_trips;
	return r;
}

static void assert_adds_up(const struct accounting *a)
{
	double sum = 0;

	for (int r = 0; r <= RES_COUNT; r++) {
		assert_true(a->share[r] >= 0 && a->share[r] <= 1 + 1e-12);
		sum += a->share[r];
	}
	assert_true(fabs(sum - 1) < 1e-9);
}

/* Every "A s of B s" in text has A <= B. */
static void assert_never_more_than_all(const char *text)
{
	for (const char *p = strstr(text, " s of "); p; p = strstr(p + 1, " s of ")) {
		const char *start = p;
		double a, b;

		while (start > text && (start[-1] == '.' || (start[-1] >= '0' && start[-1] <= '9')))
			start--;
		a = strtod(start, NULL);
		b = strtod(p + 6, NULL);
		if (a > b)
			fail_msg("'%s' says %g s of %g s", text, a, b);
	}
}

/* scp on a fast link: the round trips are mostly CPU, the rest is per-file work */
static void test_scp_on_a_fast_link_is_metadata_bound(void **state)
{
	struct probe_results p = fixture_probes();
	struct forecast_input in = fixture_input(strategy_find("scp"), &p, fixture_small(20000));
	struct run_record run = record("scp", 14.0, 0.5, 20000, 20000 * 4096ull, 80040);
	struct accounting a;

	(void)state;
	p.rtt_cpu_s = p.rtt_p50_s;	/* 40 us of round trip, all of it CPU: nothing waited on the wire */
	assert_int_equal(accounting_make(&run, &in, &a), 0);
	assert_adds_up(&a);
	assert_int_equal(a.verdict, RES_METADATA);
	assert_true(a.share[RES_LATENCY] < 0.01);
	assert_contains(a.reason, "80,040 requests");
	assert_never_more_than_all(a.reason);
}

/* scp on a long round trip: the waits on the wire are the largest share */
static void test_scp_on_a_long_link_is_latency_bound(void **state)
{
	struct probe_results p = fixture_probes();
	struct forecast_input in = fixture_input(strategy_find("scp"), &p, fixture_small(20000));
	struct run_record run = record("scp", 170.0, 0.5, 20000, 20000 * 4096ull, 80040);
	struct accounting a;

	(void)state;
	p.rtt_p50_s = 2e-3;
	p.sftp_rtt_s = 2.08e-3;
	assert_int_equal(accounting_make(&run, &in, &a), 0);
	assert_adds_up(&a);
	assert_int_equal(a.verdict, RES_LATENCY);
	assert_contains(a.reason, "80,040 requests each waited 1.97 ms on the wire");
	assert_never_more_than_all(a.reason);
}

/*
 * A pipeline whose creates hold it while the link is loaded 82%: the
 * verdict is metadata, and the link reads close behind.
 */
static void test_close_behind_is_named(void **state)
{
	struct probe_results p = fixture_probes();
	struct forecast_input in = fixture_input(strategy_find("tar-ssh"), &p, fixture_small(20000));
	struct run_record run;
	struct accounting a;

	(void)state;
	p.ssh_bps = p.net_bps_1 = 1.5e6;	/* the link needs about 56 s for the 84 MB tar stream */
	p.create_made_at[0].per_s = 300;	/* the creates about 67 s */
	run = record("tar-ssh", 68.0, 1.0, 20000, 20000 * 4096ull, 0);
	run.sent.wire_bytes = (uint64_t)(0.82 * 68.0 * 1.5e6);
	assert_int_equal(accounting_make(&run, &in, &a), 0);
	assert_adds_up(&a);
	assert_int_equal(a.verdict, RES_METADATA);
	assert_int_equal(a.close_behind, RES_NETWORK);
	assert_contains(a.note, "the link close behind (loaded 82%");
	assert_never_more_than_all(a.reason);
}

/* A run faster than a ceiling allows: said in the note, the ceiling not left out. */
static void test_understated_ceiling_is_said(void **state)
{
	struct probe_results p = fixture_probes();
	struct forecast_input in = fixture_input(strategy_find("splice"), &p, fixture_small(20000));
	struct run_record run = record("splice", 0.5, 0.2, 20000, 20000 * 4096ull, 0);
	struct accounting a;

	(void)state;
	p.create_made_at[1].per_s = 4000;	/* 20,000 creates at 16 deep would need 5 s */
	assert_int_equal(accounting_make(&run, &in, &a), 0);
	assert_adds_up(&a);
	assert_true(a.understated & (1u << RES_METADATA));
	assert_contains(a.note, "the per-file work did more than its probe allows");
	assert_never_more_than_all(a.reason);
}

/* A run slower than anything explains: the rest is "other", said with its seconds. */
static void test_unexplained_time_is_other(void **state)
{
	struct probe_results p = fixture_probes();
	struct forecast_input in = fixture_input(strategy_find("splice"), &p, fixture_large(1 * GIB));
	struct run_record run = record("splice", 30.0, 3.0, 1, (uint64_t)GIB, 0);
	struct accounting a;

	(void)state;
	assert_int_equal(accounting_make(&run, &in, &a), 0);
	assert_adds_up(&a);
	assert_true(a.share[RES_COUNT] > 0.5);
	assert_contains(a.note, "no probed ceiling explains");
}

static void test_no_time_is_refused(void **state)
{
	struct probe_results p = fixture_probes();
	struct forecast_input in = fixture_input(strategy_find("splice"), &p, fixture_large(1 * GIB));
	struct run_record run = record("splice", 0, 0, 1, (uint64_t)GIB, 0);
	struct accounting a;

	(void)state;
	assert_int_equal(accounting_make(&run, &in, &a), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scp_on_a_fast_link_is_metadata_bound),
		cmocka_unit_test(test_scp_on_a_long_link_is_latency_bound),
		cmocka_unit_test(test_close_behind_is_named),
		cmocka_unit_test(test_understated_ceiling_is_said),
		cmocka_unit_test(test_unexplained_time_is_other),
		cmocka_unit_test(test_no_time_is_refused),
	};

	return cmocka_run_group_tests_name("accounting", tests, NULL, NULL);
}
