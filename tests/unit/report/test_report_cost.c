/*
 * Unit tests for what a strategy cost (cmd/report/report_cost.c): CPU seconds per
 * GiB on each end from the median run's samples, the peaks, null in the
 * JSON for whatever was not measured, and the table's line.
 */
#include "testutil.h"

#include "report/report.h"

#include "strategy/list.h"

#include <math.h>

static void test_cost(void **state)
{
	struct strategy_result res = { .strategy = strategy_find("splice"), .status = RESULT_OK,
				       .verified = true, .runs = 1, .have_local = true, .have_remote = true,
				       .client_peak_rss_bytes = 35000000, .agent_peak_rss_bytes = 21000000 };
	/* 2 GiB moved */
	struct report r = { .bytes = 2ull << 30, .results = &res, .nresults = 1 };
	json_object *o = json_object_new_object(), *v;
	char buf[256];

	(void)state;
	res.local.procs_cpu_s = 3.0;
	res.remote.procs_cpu_s = 1.0;
	assert_true(fabs(report_cpu_per_gib(&r, &res, false) - 1.5) < 1e-9);
	assert_true(fabs(report_cpu_per_gib(&r, &res, true) - 0.5) < 1e-9);
	report_cost_json(&r, &res, o);
	assert_true(json_object_object_get_ex(o, "client_cpu_seconds_per_gib", &v));
	assert_true(fabs(json_object_get_double(v) - 1.5) < 1e-9);
	assert_true(json_object_object_get_ex(o, "agent_peak_rss_bytes", &v));
	assert_int_equal(json_object_get_int64(v), 21000000);
	assert_true(report_cost_text(&r, &res, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "cpu 1.50 s/GiB here, 0.50 s/GiB at the host; peak memory 35 MB here, 21 MB agent");
	json_object_put(o);

	/* no destination samples and an agent that told no peak: null, "?" */
	res.have_remote = false;
	res.agent_peak_rss_bytes = 0;
	res.agent_lifetime_peak_rss_bytes = 0;
	o = json_object_new_object();
	report_cost_json(&r, &res, o);
	assert_true(json_object_object_get_ex(o, "agent_cpu_seconds_per_gib", &v));
	assert_null(v);
	assert_true(json_object_object_get_ex(o, "agent_peak_rss_bytes", &v));
	assert_null(v);
	report_cost_text(&r, &res, buf, sizeof(buf));
	assert_string_equal(buf, "cpu 1.50 s/GiB here, ? s/GiB at the host; peak memory 35 MB here, agent ?");
	json_object_put(o);

	/* the document's lifetime peaks: the agent's highest over the results */
	res.agent_lifetime_peak_rss_bytes = 40000000;
	r.client_lifetime_peak_rss_bytes = 50000000;
	o = report_peak_rss_json(&r);
	assert_true(json_object_object_get_ex(o, "agent_bytes", &v));
	assert_int_equal(json_object_get_int64(v), 40000000);
	assert_true(json_object_object_get_ex(o, "client_bytes", &v));
	assert_int_equal(json_object_get_int64(v), 50000000);
	json_object_put(o);

	/* a strategy that did not run costs nothing measured */
	res.status = RESULT_SKIPPED;
	res.runs = 0;
	assert_true(report_cpu_per_gib(&r, &res, false) < 0);
	assert_int_equal(report_cost_text(&r, &res, buf, sizeof(buf)), 0);
	o = json_object_new_object();
	report_cost_json(&r, &res, o);
	assert_true(json_object_object_get_ex(o, "client_peak_rss_bytes", &v));
	assert_null(v);
	json_object_put(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cost),
	};

	return test_run("report_cost", tests, ARRAY_LEN(tests), NULL, 0);
}
