/*
 * Unit tests for --sample in the reports (cmd/report/report_sample.c): the
 * JSON's "sample" (the sample's and the whole's counts), each result's
 * sample_seconds, its seconds null when only the sample moved, "timing";
 * the table's lines saying the sample, each strategy's sample time beside
 * the whole's forecast from it (and with --check the whole's measured), the
 * recommendation for the whole, and where the answer's time went.
 */
#include "testutil.h"

#include "report/report.h"
#include "result_testutil.h"
#include "workload_sample.h"

#include <stdio.h>
#include <string.h>

/* 1,000 files of 1 KiB in 10 directories, sampled at 10%. */
static void sampled(struct manifest *whole, struct workload_sample *s)
{
	struct workload_sample_request req;
	char path[64];

	manifest_init(whole);
	for (int i = 0; i < 1000; i++) {
		snprintf(path, sizeof(path), "d%d/f%04d", i / 100, i);
		assert_int_equal(manifest_add_file(whole, path, 1024, 0644, 0, (uint64_t)i + 1), 0);
	}
	manifest_sort(whole);
	assert_int_equal(workload_sample_parse("10%", &req), 0);
	assert_int_equal(workload_sample_draw(whole, &req, 1, s), 0);
}

/* res's forecast of the whole, made from its sample's runs. */
static void whole_forecast(struct strategy_result *res, double seconds, double low, double high)
{
	res->have_forecast = res->forecast_from_sample = true;
	res->forecast.seconds = seconds;
	res->forecast.low = low;
	res->forecast.high = high;
}

static void print_report(FILE *out, const void *arg)
{
	report_sample_lines(arg, out);
	report_sample_tail(arg, out);
}

static void test_sample_only(void **state)
{
	struct manifest whole;
	struct workload_sample s;
	struct strategy_result res[2] = { test_result("splice", 0.5), test_result("zstd", 0.8) };
	struct report_timing t = { .setup_s = 1, .probes_s = 2, .strategies_s = 3, .cleanup_s = 0.5,
				   .answer_s = 6.6, .cleaned = true, .host_removed = 2200, .local_removed = 0 };
	struct report r = { .files = 1000, .bytes = 1024000, .results = res, .nresults = 2, .timing = &t };
	json_object *doc = json_object_new_object(), *one = json_object_new_object(), *v, *x;
	char *text;

	char rec[512];

	(void)state;
	sampled(&whole, &s);
	r.sample = &s;
	r.sample_results = res;
	/* splice the faster on the sample, zstd forecast the faster for the whole */
	whole_forecast(&res[0], 9.0, 8.5, 9.5);
	whole_forecast(&res[1], 6.0, 5.0, 7.0);
	json_object_object_add(one, "seconds", json_object_new_double(0.5));
	report_sample_result_json(&r, 0, one);
	assert_true(json_object_object_get_ex(one, "seconds", &v) && v == NULL);
	assert_true(json_object_object_get_ex(one, "sample_seconds", &v) && json_object_get_double(v) == 0.5);
	report_sample_json(&r, doc);
	assert_true(json_object_object_get_ex(doc, "sample", &v) && v);
	assert_true(json_object_object_get_ex(v, "files", &x) && json_object_get_int64(x) == 100);
	assert_true(json_object_object_get_ex(v, "fraction", &x) && json_object_get_double(x) == 0.1);
	assert_true(json_object_object_get_ex(v, "whole", &x) &&
		    json_object_object_get_ex(x, "files", &x) && json_object_get_int64(x) == 1000);
	assert_true(json_object_object_get_ex(v, "method", &x));
	assert_contains(json_object_get_string(x), "seed 1");
	assert_true(json_object_object_get_ex(doc, "timing", &v) &&
		    json_object_object_get_ex(v, "cleanup_seconds", &x) && json_object_get_double(x) == 0.5);
	text = test_written(print_report, &r);
	assert_contains(text, "sample: 100 of 1,000 files (10.0%)");
	assert_contains(text, "the times below are the sample's");
	assert_contains(text, "answered in 6.60 s: setup 1.0 s, probes 2.0 s, strategies 3.0 s, cleanup");
	assert_contains(text, "cleanup 0.5 s (removed 2,200");
	assert_contains(text, "strategy             sample   forecast                 range\n");
	assert_contains(text, "  splice                 0.50        9.0               8.5-9.5\n");
	assert_contains(text, "  zstd                   0.80        6.0               5.0-7.0\n");
	assert_contains(text, "fastest on the sample: splice; for the whole, zstd is forecast fastest");
	free(text);
	report_sample_recommendation(&r, &res[1], rec, sizeof(rec));
	assert_string_equal(rec, "use zstd for the whole workload: about 6.00 s (5.00 s to 7.00 s) for 1000.00 KiB, "
			    "1,000 files, forecast from its runs on the 10% sample; splice about 9.00 s "
			    "(answered in 6.60 s from a 10% sample)");
	/* no spread: no range */
	res[1].forecast.low = res[1].forecast.high = 6.0;
	report_sample_recommendation(&r, &res[1], rec, sizeof(rec));
	assert_contains(rec, "use zstd for the whole workload: about 6.00 s for 1000.00 KiB, ");
	/* without the whole's forecasts there is none to compare */
	res[0].forecast_from_sample = false;
	assert_true(report_whole_forecast(&res[0]) == 0);
	json_object_put(one);
	json_object_put(doc);
	workload_sample_release(&s);
	manifest_release(&whole);
}

/* --check: results are the whole's, the sample's beside them; seconds stay. */
static void test_sample_and_whole(void **state)
{
	struct manifest whole;
	struct workload_sample s;
	struct strategy_result w[1] = { test_result("splice", 5.0) }, sm[1] = { test_result("splice", 0.5) };
	struct report r = { .files = 1000, .bytes = 1024000, .results = w, .nresults = 1,
			    .sample_results = sm, .whole_moved = true };
	json_object *one = json_object_new_object(), *v;
	char *text;

	(void)state;
	sampled(&whole, &s);
	r.sample = &s;
	whole_forecast(&w[0], 4.0, 3.5, 4.5);
	json_object_object_add(one, "seconds", json_object_new_double(5.0));
	report_sample_result_json(&r, 0, one);
	assert_true(json_object_object_get_ex(one, "seconds", &v) && json_object_get_double(v) == 5.0);
	assert_true(json_object_object_get_ex(one, "sample_seconds", &v) && json_object_get_double(v) == 0.5);
	text = test_written(print_report, &r);
	assert_contains(text, "then the whole (--check)");
	assert_contains(text, "the whole holds 10.0x the sample's files");
	assert_contains(text, "     whole   f/m\n");
	assert_contains(text, "  splice                 0.50        4.0               3.5-4.5      5.00  0.80x\n");
	assert_null(strstr(text, "fastest on the sample"));
	free(text);
	json_object_put(one);
	workload_sample_release(&s);
	manifest_release(&whole);
}

/* A comparison forecast long: --sample with a share of about a minute's runs, 1% to 20%. */
static void test_suggestion(void **state)
{
	char buf[320];

	(void)state;
	report_sample_suggestion(1200, buf, sizeof(buf));
	assert_string_equal(buf, "the probes forecast these runs at about 20 min 0 s in all; --sample 5% would answer "
			    "from a sample in about a minute of runs, with a forecast of the whole (going on as "
			    "asked: Ctrl-C stops with the report so far)");
	report_sample_suggestion(36000, buf, sizeof(buf));
	assert_contains(buf, "about 10 h 0 min in all; --sample 1% ");
	report_sample_suggestion(601, buf, sizeof(buf));
	assert_contains(buf, "--sample 10% ");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_only),
		cmocka_unit_test(test_sample_and_whole),
		cmocka_unit_test(test_suggestion),
	};

	return test_run("report_sample", tests, ARRAY_LEN(tests), NULL, 0);
}
