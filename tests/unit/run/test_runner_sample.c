/*
 * Unit tests for transfer/run/runner_sample.c: with --sample each result
 * that ran on the sample gets the whole's forecast from its runs
 * (model/sample_forecast.h), marked as made from the sample, with the
 * fixed cost its one-file run measured kept out of the scaling; a failed
 * result, or a comparison without probes, keeps what it had. And the
 * comparison's forecast in all, which decides whether --sample is suggested.
 */
#include "testutil.h"

#include "../model/model_fixture.h"
#include "model/sample_forecast.h"
#include "result_testutil.h"
#include "run/runner.h"

#include <math.h>
#include <stdio.h>

/* n files of 4 KiB, 100 to a directory. */
static void tree(struct manifest *m, int n)
{
	char path[64];

	manifest_init(m);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "d%03d/f%05d", i / 100, i);
		assert_int_equal(manifest_add_file(m, path, 4096, 0644, 0, (uint64_t)i + 1), 0);
	}
	manifest_sort(m);
}

static void test_the_whole_from_the_sample(void **state)
{
	struct probe_results p = fixture_probes();
	struct runner_opts o = { .repeat = 1, .probes = &p };
	struct manifest whole, sample;
	struct strategy_result res[2] = { test_result("splice", 0.6), test_result("tar-ssh", 0.8) };
	struct forecast_input w, s;
	struct sample_run run = { .transfer_s = 0.6, .min_s = 0.6, .max_s = 0.6 };
	struct forecast want;

	(void)state;
	o.strategy.streams = 2;
	tree(&whole, 4000);
	tree(&sample, 200);
	res[0].min_seconds = res[0].max_seconds = 0.6;
	res[1].status = RESULT_FAILED;
	runner_forecast_input(&o, res[0].strategy, &whole, &w);
	runner_forecast_input(&o, res[0].strategy, &sample, &s);
	assert_int_equal(sample_forecast(&w, &s, &run, &want), 0);
	assert_true(want.seconds > 0);

	runner_forecast_whole(&o, &whole, &sample, NULL, res, 2);
	assert_true(res[0].have_forecast && res[0].forecast_from_sample);
	assert_true(fabs(res[0].forecast.seconds - want.seconds) < 1e-9);
	assert_true(res[0].forecast.low <= res[0].forecast.seconds &&
		    res[0].forecast.seconds <= res[0].forecast.high);
	assert_true(res[0].forecast_made_at[0] != '\0');
	/* the whole holds 20 times the sample's files: the forecast is well above the sample's run */
	assert_true(res[0].forecast.seconds > 0.6);
	/* a strategy that failed on the sample forecasts nothing */
	assert_false(res[1].have_forecast || res[1].forecast_from_sample);
	manifest_release(&whole);
	manifest_release(&sample);
}

/*
 * Each strategy's run on one file before the sample's: its transfer is
 * the fixed cost the whole's forecast keeps unscaled (and reports); a
 * one-file run that failed leaves that strategy with none.
 */
static void test_the_fixed_cost_from_the_one_file_run(void **state)
{
	struct probe_results p = fixture_probes();
	struct runner_opts o = { .repeat = 1, .probes = &p };
	struct manifest whole, sample, one;
	struct strategy_result res[2] = { test_result("splice", 0.6), test_result("tar-ssh", 0.8) };
	struct strategy_result fixed[2] = { test_result("splice", 0.2), test_result("tar-ssh", 0.3) };
	const struct runner_fixed f = { .m = &one, .results = fixed };
	struct forecast_input w, s, in;
	struct forecast want, one_file, without;
	struct sample_run run = { .transfer_s = 0.6, .min_s = 0.6, .max_s = 0.6 };

	(void)state;
	o.strategy.streams = 2;
	tree(&whole, 4000);
	tree(&sample, 200);
	tree(&one, 1);
	res[0].min_seconds = res[0].max_seconds = 0.6;
	res[1].min_seconds = res[1].max_seconds = 0.8;
	fixed[1].status = RESULT_FAILED;
	runner_forecast_input(&o, res[0].strategy, &whole, &w);
	runner_forecast_input(&o, res[0].strategy, &sample, &s);
	runner_forecast_input(&o, res[0].strategy, &one, &in);
	assert_int_equal(forecast_make(&in, NULL, &one_file), 0);
	assert_int_equal(sample_forecast(&w, &s, &run, &without), 0);
	run.fixed_s = fixed[0].median.transfer;
	run.fixed_latency_s = one_file.need_s[RES_LATENCY];
	assert_int_equal(sample_forecast(&w, &s, &run, &want), 0);

	runner_forecast_whole(&o, &whole, &sample, &f, res, 2);
	assert_true(res[0].have_forecast && res[0].forecast_from_sample);
	assert_true(fabs(res[0].forecast.seconds - want.seconds) < 1e-9);
	assert_true(fabs(res[0].forecast.fixed_s - 0.2) < 1e-9);
	/* the fixed part no longer scales with the tree */
	assert_true(res[0].forecast.seconds < without.seconds);
	/* tar-ssh's one-file run failed: its forecast is made as without one */
	assert_true(res[1].have_forecast && res[1].forecast.fixed_s == 0);
	manifest_release(&whole);
	manifest_release(&sample);
	manifest_release(&one);
}

static void test_no_probes_no_forecast(void **state)
{
	struct runner_opts o = { .repeat = 1 };
	struct manifest whole, sample;
	struct strategy_result res[1] = { test_result("splice", 0.6) };

	(void)state;
	tree(&whole, 400);
	tree(&sample, 40);
	runner_forecast_whole(&o, &whole, &sample, NULL, res, 1);
	assert_false(res[0].have_forecast || res[0].forecast_from_sample);
	assert_true(res[0].forecast_made_at[0] == '\0');
	manifest_release(&whole);
	manifest_release(&sample);
}

/* The comparison's runs from the probes: each strategy's forecast times --repeat, added. */
static void test_total(void **state)
{
	struct probe_results p = fixture_probes();
	struct runner_opts o = { .repeat = 3, .probes = &p };
	const struct strategy *list[2] = { strategy_find("splice"), strategy_find("tar-ssh") };
	struct manifest m;
	double want = 0;

	(void)state;
	o.strategy.streams = 2;
	tree(&m, 2000);
	for (int i = 0; i < 2; i++) {
		struct forecast_input in;
		struct forecast f;

		runner_forecast_input(&o, list[i], &m, &in);
		assert_int_equal(forecast_make(&in, NULL, &f), 0);
		assert_true(f.seconds > 0);
		want += 3 * f.seconds;
	}
	assert_true(fabs(runner_forecast_total(&o, list, 2, &m) - want) < 1e-9);
	o.probes = NULL;
	assert_true(runner_forecast_total(&o, list, 2, &m) == 0);
	manifest_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_whole_from_the_sample),
		cmocka_unit_test(test_the_fixed_cost_from_the_one_file_run),
		cmocka_unit_test(test_no_probes_no_forecast),
		cmocka_unit_test(test_total),
	};

	return test_run("runner_sample", tests, ARRAY_LEN(tests), NULL, 0);
}
