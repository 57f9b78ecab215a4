/*
 * Unit tests for transfer/model/sample_forecast.c: a sample's run
 * calibrates the model's level, the model scales it to the whole, the
 * handshakes do not grow, nor the fixed cost measured on one file (and
 * the model's handshakes are not added to it), the flush scales as the
 * model's, and the range holds the runs' spread (and the model's own forecast when another stage
 * bounds the whole).
 */
#include "testutil.h"

#include "model/sample_forecast.h"
#include "model_fixture.h"
#include "strategy/list.h"

#include <math.h>

#define assert_near(a, b) assert_true(fabs((a) - (b)) <= 1e-9 * fmax(fabs(a), fabs(b)) + 1e-12)

static struct forecast model(const struct forecast_input *in)
{
	struct forecast f;

	assert_int_equal(forecast_make(in, NULL, &f), 0);
	return f;
}

/* A run exactly as the model said: the whole is the model's forecast of the whole. */
static void test_a_run_as_forecast_gives_the_model(void **state)
{
	struct probe_results p = fixture_probes();
	struct forecast_input whole = fixture_input(strategy_find("tar-ssh"), &p, fixture_small(100000));
	struct forecast_input part = fixture_input(strategy_find("tar-ssh"), &p, fixture_small(5000));
	struct forecast s = model(&part), w = model(&whole), out;
	struct sample_run run = { .transfer_s = s.seconds - s.flush_s, .flush_s = s.flush_s };

	(void)state;
	run.min_s = run.max_s = s.seconds;
	assert_int_equal(sample_forecast(&whole, &part, &run, &out), 0);
	assert_near(out.seconds, w.seconds);
	assert_near(out.low, w.seconds);
	assert_near(out.high, w.seconds);
}

/* Twice the model's working time in the sample: twice in the whole; the handshakes stay. */
static void test_the_sample_calibrates_the_level(void **state)
{
	struct probe_results p = fixture_probes();
	struct forecast_input whole, part;
	struct forecast s, w, out;
	struct sample_run run;

	(void)state;
	p.rtt_p50_s = 2e-3;	/* handshakes worth seeing, the creates still the bound */
	whole = fixture_input(strategy_find("splice"), &p, fixture_small(100000));
	part = fixture_input(strategy_find("splice"), &p, fixture_small(5000));
	s = model(&part);
	w = model(&whole);
	run = (struct sample_run){ .transfer_s = s.need_s[RES_LATENCY] + 2 * (s.seconds - s.need_s[RES_LATENCY] - s.flush_s),
				   .flush_s = 3 * s.flush_s };
	run.min_s = 0.9 * (run.transfer_s + run.flush_s);
	run.max_s = 1.2 * (run.transfer_s + run.flush_s);
	assert_int_equal(sample_forecast(&whole, &part, &run, &out), 0);
	assert_near(out.seconds, w.need_s[RES_LATENCY] + 2 * (w.seconds - w.need_s[RES_LATENCY] - w.flush_s) +
				       3 * w.flush_s);
	assert_near(out.flush_s, 3 * w.flush_s);
	/* the runs' spread, as a share of the median */
	assert_near(out.low, 0.9 * out.seconds);
	assert_near(out.high, 1.2 * out.seconds);
}

/*
 * The sample fits the page cache and the link bounds it; the whole does not
 * and its writes during the transfer share the one disk with the reads:
 * another bound, so the model's own forecast of the whole is in the range.
 */
static void test_another_bound_widens_the_range(void **state)
{
	struct probe_results p = fixture_probes();
	struct forecast_input whole, part;
	struct forecast s, w, out;
	struct sample_run run;

	(void)state;
	p.net_bps_1 = 1e9;
	p.disk_read_bps = 1e9;
	p.disk_write_bps = 2e9;
	p.dest_dirty_bytes = 256 << 20;
	whole = fixture_input(strategy_find("splice"), &p, fixture_large(64 * GIB));
	part = fixture_input(strategy_find("splice"), &p, fixture_large(128 << 20));
	s = model(&part);
	w = model(&whole);
	assert_int_not_equal(s.bound, w.bound);
	run = (struct sample_run){ .transfer_s = 0.5 * (s.seconds - s.flush_s), .flush_s = s.flush_s };
	run.min_s = run.max_s = run.transfer_s + run.flush_s;
	assert_int_equal(sample_forecast(&whole, &part, &run, &out), 0);
	assert_true(out.low <= out.seconds && out.seconds <= out.high);
	assert_true(out.low <= w.seconds && w.seconds <= out.high);
}

/*
 * The testbed's 4 GiB file from a 5% sample (main 5e133a5's bench: 26 pieces
 * of 8 MiB, splice's run 0.19 s of transfer and 0.21 s of flush). The
 * sample stays under the dirty threshold: its flush bounds it, its transfer
 * the link's stage. The whole writes back while it reads, on one disk: that
 * disk's stage bounds it. Both bounds are the disk, yet the level was
 * measured on another stage than the whole's, so the range holds the
 * model's own forecast of the whole.
 */
static void test_another_working_stage_under_the_same_bound_widens_the_range(void **state)
{
	struct probe_results p = fixture_probes();
	struct forecast_input whole, part;
	struct workload_counts pieces = fixture_large(214802432);
	struct forecast s, w, out;
	struct sample_run run = { .transfer_s = 0.188, .flush_s = 0.207, .fixed_s = 0.0065 };

	(void)state;
	p.net_bps_1 = 2.6e9;
	p.disk_read_bps = 4.5e9;
	p.disk_write_bps = 1.16e9;
	p.dest_dirty_bytes = 2.5e9;
	pieces.files = pieces.nonempty_files = pieces.large_files = 26;
	whole = fixture_input(strategy_find("splice"), &p, fixture_large(4 * GIB));
	part = fixture_input(strategy_find("splice"), &p, pieces);
	s = model(&part);
	w = model(&whole);
	assert_int_equal(s.bound, RES_DISK);
	assert_int_equal(w.bound, RES_DISK);
	assert_int_equal(s.working, STAGE_NET);
	assert_int_equal(w.working, STAGE_DISK);
	run.min_s = run.max_s = run.transfer_s + run.flush_s;
	assert_int_equal(sample_forecast(&whole, &part, &run, &out), 0);
	assert_true(out.low <= out.seconds && out.seconds <= out.high);
	assert_true(out.low <= w.seconds && w.seconds < out.seconds);
}

/* The part of a forecast the level scales (sample_forecast.c's working, for a strategy with no serial requests). */
static double working_of(const struct forecast *f)
{
	return f->seconds - f->need_s[RES_LATENCY] - f->flush_s;
}

/*
 * A sample run of 0.30 s of which 0.20 s is the fixed cost (measured on
 * one file), the whole 20 times the sample: the whole is 0.20 + 20 x 0.10
 * + the flush, not 20 x 0.30; with no fixed cost known, the old result.
 */
static void test_the_fixed_cost_is_not_scaled(void **state)
{
	struct probe_results p = fixture_probes();
	struct forecast_input whole = fixture_input(strategy_find("splice"), &p, fixture_small(100000));
	struct forecast_input part = fixture_input(strategy_find("splice"), &p, fixture_small(5000));
	struct forecast s = model(&part), w = model(&whole), out;
	struct sample_run run = { .transfer_s = 0.30, .flush_s = s.flush_s, .fixed_s = 0.20,
				  .fixed_latency_s = s.need_s[RES_LATENCY] };
	double scale = working_of(&w) / working_of(&s), ramp = fmax(w.need_s[RES_LATENCY] - s.need_s[RES_LATENCY], 0);

	(void)state;
	assert_int_equal(s.requests, 0);
	/* the model scales the working time with the files: 20 times */
	assert_true(fabs(scale - 20) < 0.5);
	run.min_s = run.max_s = run.transfer_s + run.flush_s;
	assert_int_equal(sample_forecast(&whole, &part, &run, &out), 0);
	assert_near(out.seconds, 0.20 + ramp + scale * 0.10 + w.flush_s);
	assert_near(out.fixed_s, 0.20);
	assert_true(out.seconds < 0.20 + 0.01 + 20.5 * 0.10 + w.flush_s);

	/* fixed 0: unknown, the model's handshakes and ramp stand for it, the rest scales */
	run.fixed_s = run.fixed_latency_s = 0;
	assert_int_equal(sample_forecast(&whole, &part, &run, &out), 0);
	assert_near(out.seconds, w.need_s[RES_LATENCY] + (0.30 - s.need_s[RES_LATENCY]) * scale + w.flush_s);
	assert_true(out.fixed_s == 0);
	assert_true(out.seconds > 20 * 0.25);
}

/*
 * The one-file run made the handshakes: the model's are not added on top of
 * the fixed cost; only the slow start beyond the one file's is, unscaled.
 */
static void test_the_handshakes_are_in_the_fixed_cost(void **state)
{
	struct probe_results p = fixture_probes();
	struct forecast_input whole, part, one;
	struct forecast s, w, o, out;
	struct sample_run run;

	(void)state;
	p.rtt_p50_s = 2e-3;	/* handshakes and ramp worth seeing */
	whole = fixture_input(strategy_find("splice"), &p, fixture_small(100000));
	part = fixture_input(strategy_find("splice"), &p, fixture_small(5000));
	one = fixture_input(strategy_find("splice"), &p, fixture_small(1));
	s = model(&part);
	w = model(&whole);
	o = model(&one);
	/* a tree's ramp goes further than one file's: there is something beyond the fixed cost */
	assert_true(s.need_s[RES_LATENCY] > o.need_s[RES_LATENCY]);
	run = (struct sample_run){ .transfer_s = 0.05 + s.need_s[RES_LATENCY] + 2 * working_of(&s),
				   .flush_s = s.flush_s, .fixed_s = 0.05, .fixed_latency_s = o.need_s[RES_LATENCY] };
	run.min_s = run.max_s = run.transfer_s + run.flush_s;
	assert_int_equal(sample_forecast(&whole, &part, &run, &out), 0);
	assert_near(out.seconds, 0.05 + (w.need_s[RES_LATENCY] - o.need_s[RES_LATENCY]) +
				  (2 * working_of(&s) + o.need_s[RES_LATENCY]) * working_of(&w) / working_of(&s) +
				  w.flush_s);
}

/*
 * A sample whose transfer ran 1 s beyond twice the model's working time,
 * with or without a series of the link saying its later bytes went at
 * twice the model's rate (1 s left out: the warm-up), and at a quarter
 * and three quarters of its bytes 0.5 s and 1.2 s left out.
 */
static void check_a_second_beyond(const char *name, bool series)
{
	struct probe_results p = fixture_probes();
	struct forecast_input whole = fixture_input(strategy_find(name), &p, fixture_small(100000));
	struct forecast_input part = fixture_input(strategy_find(name), &p, fixture_small(5000));
	struct forecast s = model(&part), w = model(&whole), out;
	double work = working_of(&s), scale = working_of(&w) / work;
	double ramp = fmax(w.need_s[RES_LATENCY] - s.need_s[RES_LATENCY], 0);
	double rest = 0.20 + ramp + w.flush_s;	/* fixed, ramp and flush: not scaled */
	struct sample_run run = { .transfer_s = 0.20 + 2 * work + 1.0, .flush_s = s.flush_s,
				  .fixed_s = 0.20, .fixed_latency_s = s.need_s[RES_LATENCY] };

	if (series)
		memcpy(run.later_s, (double[SAMPLE_SPLITS]){ 2 * work + 0.5, 2 * work, 2 * work - 0.2 },
		       sizeof(run.later_s));
	assert_true(scale > 10);
	run.min_s = run.max_s = run.transfer_s + run.flush_s;
	assert_int_equal(sample_forecast(&whole, &part, &run, &out), 0);
	if (series && strategy_find(name)->flags & STRATEGY_REFERENCE) {
		assert_near(out.seconds, rest + 1.0 + 2 * work * scale);
		assert_near(out.once_s, 1.0);
		assert_near(out.low, rest + 1.2 + (2 * work - 0.2) * scale);
		assert_near(out.high, rest + 0.5 + (2 * work + 0.5) * scale);
	} else {
		assert_near(out.seconds, rest + (2 * work + 1.0) * scale);
		assert_true(out.once_s == 0);
		assert_near(out.low, out.seconds);
		assert_near(out.high, out.seconds);
	}
}

/*
 * A real tool over ssh (its own connection each run) with no series of the
 * link to split its run by: the second scales, as for our own tar-ssh, and
 * the range is the runs' spread.
 */
static void test_without_a_series_a_connection_of_its_own_scales(void **state)
{
	(void)state;
	check_a_second_beyond("real-tar-ssh", false);
	check_a_second_beyond("tar-ssh", false);
}

/*
 * With a series: the real tool pays the second its later bytes' rate leaves
 * out once, scales the rest, and the other splits bound the range; our own
 * tar-ssh on the warm session ignores the series.
 */
static void test_the_later_rate_pays_the_warm_up_once(void **state)
{
	(void)state;
	check_a_second_beyond("real-tar-ssh", true);
	check_a_second_beyond("tar-ssh", true);
}

/* Later bytes no faster than the whole run's: nothing paid once, the sample scales as it ran. */
static void test_a_later_rate_no_faster_scales_it_all(void **state)
{
	struct probe_results p = fixture_probes();
	struct forecast_input whole = fixture_input(strategy_find("real-rsync"), &p, fixture_small(100000));
	struct forecast_input part = fixture_input(strategy_find("real-rsync"), &p, fixture_small(5000));
	struct forecast s = model(&part), w = model(&whole), out;
	double work = working_of(&s);
	struct sample_run run = { .transfer_s = 0.20 + 3 * work, .flush_s = s.flush_s, .fixed_s = 0.20,
				  .fixed_latency_s = s.need_s[RES_LATENCY],
				  .later_s = { 3.5 * work, 3 * work, 3 * work } };

	(void)state;
	run.min_s = run.max_s = run.transfer_s + run.flush_s;
	assert_int_equal(sample_forecast(&whole, &part, &run, &out), 0);
	assert_true(out.once_s == 0);
	assert_near(out.seconds, 0.20 + fmax(w.need_s[RES_LATENCY] - s.need_s[RES_LATENCY], 0) +
				  3 * working_of(&w) + w.flush_s);
	assert_near(out.low, out.seconds);
	assert_near(out.high, out.seconds);
}

static void test_a_fixed_cost_that_is_none_is_refused(void **state)
{
	struct probe_results p = fixture_probes();
	struct forecast_input in = fixture_input(strategy_find("splice"), &p, fixture_small(100));
	struct sample_run run = { .transfer_s = 1, .flush_s = 0.1, .min_s = 1.1, .max_s = 1.1, .fixed_s = -0.1 };
	struct forecast out;

	(void)state;
	assert_int_equal(sample_forecast(&in, &in, &run, &out), -1);
	run.fixed_s = NAN;
	assert_int_equal(sample_forecast(&in, &in, &run, &out), -1);
}

static void test_no_time_is_refused(void **state)
{
	struct probe_results p = fixture_probes();
	struct forecast_input in = fixture_input(strategy_find("splice"), &p, fixture_small(100));
	struct sample_run run = { 0 };
	struct forecast out;

	(void)state;
	assert_int_equal(sample_forecast(&in, &in, &run, &out), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_run_as_forecast_gives_the_model),
		cmocka_unit_test(test_the_sample_calibrates_the_level),
		cmocka_unit_test(test_another_bound_widens_the_range),
		cmocka_unit_test(test_another_working_stage_under_the_same_bound_widens_the_range),
		cmocka_unit_test(test_the_fixed_cost_is_not_scaled),
		cmocka_unit_test(test_the_handshakes_are_in_the_fixed_cost),
		cmocka_unit_test(test_without_a_series_a_connection_of_its_own_scales),
		cmocka_unit_test(test_the_later_rate_pays_the_warm_up_once),
		cmocka_unit_test(test_a_later_rate_no_faster_scales_it_all),
		cmocka_unit_test(test_a_fixed_cost_that_is_none_is_refused),
		cmocka_unit_test(test_no_time_is_refused),
	};

	return cmocka_run_group_tests_name("sample_forecast", tests, NULL, NULL);
}
