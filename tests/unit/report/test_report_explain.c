/*
 * Unit tests for --explain's verdict and lines (cmd/report/report_explain.c,
 * and run/explain_decide.c's verdict they render): the
 * causal verdict is the removal that saved most beyond EXPLAIN_NOISE, a
 * destination removal reads disk or metadata by the workload's files and
 * bytes at their ceilings, the disagreement line appears only when the
 * model's verdict differs, and neither the JSON nor the table calls a
 * null-sink run verified, whatever its flag says.
 */
#include "testutil.h"

#include "report/report_explain.h"

#include "strategy/list.h"

static struct strategy_result result(const char *name, enum resource model)
{
	struct strategy_result r = { .strategy = strategy_find(name), .status = RESULT_OK, .verified = true,
				     .runs = 1, .have_accounting = true };

	r.median.transfer = 41.2;
	r.accounting.verdict = model;
	return r;
}

static void set(struct explain_item *it, enum explain_removed k, enum explain_status st, double seconds)
{
	it->ab[k] = (struct explain_ablation){ .removed = k, .status = st, .seconds = seconds,
					       .saved_fraction = (it->baseline_seconds - seconds) / it->baseline_seconds };
}

static void item(struct explain_item *it, const struct strategy_result *r)
{
	memset(it, 0, sizeof(*it));
	it->result = r;
	it->baseline_seconds = 41.2;
	for (int k = 0; k < EXPLAIN_REMOVED_COUNT; k++)
		set(it, (enum explain_removed)k, EXPLAIN_SKIPPED, 0);
}

static void test_disagreement_line(void **state)
{
	struct strategy_result r = result("splice", RES_DISK);
	struct explain_item it;
	char buf[512];
	int n;

	(void)state;
	item(&it, &r);
	set(&it, EXPLAIN_DEST_DISK, EXPLAIN_OK, 38.0);
	set(&it, EXPLAIN_NETWORK, EXPLAIN_OK, 7.9);
	/* one large file: 1 GiB at 1 GB/s against one create at 5000/s */
	explain_decide(&it, 1, 1ull << 30, 5000, 1e9, 10000, 1e9);
	assert_int_equal(it.causal, RES_NETWORK);
	assert_int_equal(it.causal_by, EXPLAIN_NETWORK);
	assert_true(it.has_agreement);
	assert_false(it.agrees);
	n = explain_disagreement_text(&it, buf, sizeof(buf));
	assert_int_equal(n, (int)strlen(buf));
	assert_string_equal(buf, "splice: the model says disk-bound, but taking away the network (loopback) "
			    "saved most (41.20 s -> 7.90 s, -81%): the causal verdict is network");

	/* the model said network: no line */
	r.accounting.verdict = RES_NETWORK;
	explain_decide(&it, 1, 1ull << 30, 5000, 1e9, 10000, 1e9);
	assert_true(it.agrees);
	strcpy(buf, "x");
	assert_int_equal(explain_disagreement_text(&it, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	/* latency and network are one link: loopback takes both away */
	r.accounting.verdict = RES_LATENCY;
	explain_decide(&it, 1, 1ull << 30, 5000, 1e9, 10000, 1e9);
	assert_true(it.agrees);

	/* no model verdict: no agreement either way, no line */
	r.have_accounting = false;
	explain_decide(&it, 1, 1ull << 30, 5000, 1e9, 10000, 1e9);
	assert_false(it.has_agreement);
	assert_int_equal(explain_disagreement_text(&it, buf, sizeof(buf)), 0);

	/* a short buffer is cut, not overrun */
	r.have_accounting = true;
	r.accounting.verdict = RES_CPU;
	explain_decide(&it, 1, 1ull << 30, 5000, 1e9, 10000, 1e9);
	assert_int_equal(explain_disagreement_text(&it, buf, 10), 9);
	assert_string_equal(buf, "splice: t");
}

static void test_destination_split(void **state)
{
	struct strategy_result r = result("splice", RES_METADATA);
	struct explain_item it;

	(void)state;
	item(&it, &r);
	set(&it, EXPLAIN_DEST_DISK, EXPLAIN_OK, 4.0);
	set(&it, EXPLAIN_DURABLE_WRITE, EXPLAIN_OK, 6.0);
	/* 20,000 files of 4 KiB: 4 s of creates at 5000/s, 0.08 s of bytes at 1 GB/s */
	explain_decide(&it, 20000, 20000ull * 4096, 5000, 1e9, 10000, 1e9);
	assert_int_equal(it.causal, RES_METADATA);
	assert_int_equal(it.causal_by, EXPLAIN_DEST_DISK);
	assert_true(it.agrees);
	/* one 2 GiB file: the bytes */
	explain_decide(&it, 1, 2ull << 30, 5000, 1e9, 10000, 1e9);
	assert_int_equal(it.causal, RES_DISK);
	/* no ceilings: by the mean file size (64 KiB or less: metadata) */
	explain_decide(&it, 20000, 20000ull * 4096, 0, 0, 0, 0);
	assert_int_equal(it.causal, RES_METADATA);
	explain_decide(&it, 2, 2ull << 30, 0, 0, 0, 0);
	assert_int_equal(it.causal, RES_DISK);
}

static void test_noise_and_elimination(void **state)
{
	struct strategy_result r = result("splice", RES_CPU);
	struct explain_item it;
	char buf[512];

	(void)state;
	item(&it, &r);
	/* every removal that ran saved less than the noise: cpu by elimination */
	set(&it, EXPLAIN_DEST_DISK, EXPLAIN_OK, 40.0);
	set(&it, EXPLAIN_SOURCE_DISK, EXPLAIN_OK, 39.0);
	explain_decide(&it, 1, 1ull << 30, 5000, 1e9, 10000, 1e9);
	assert_int_equal(it.causal, RES_CPU);
	assert_true(it.by_elimination);
	assert_true(it.agrees);
	/* ... but not when one failed or did not run: then none */
	set(&it, EXPLAIN_NETWORK, EXPLAIN_FAILED, 0);
	explain_decide(&it, 1, 1ull << 30, 5000, 1e9, 10000, 1e9);
	assert_int_equal(it.causal, RES_COUNT);
	assert_false(it.has_agreement);
	set(&it, EXPLAIN_NETWORK, EXPLAIN_NOT_RUN, 0);
	explain_decide(&it, 1, 1ull << 30, 5000, 1e9, 10000, 1e9);
	assert_int_equal(it.causal, RES_COUNT);
	/* a model that said disk disagrees with cpu by elimination, in its own words */
	set(&it, EXPLAIN_NETWORK, EXPLAIN_SKIPPED, 0);
	r.accounting.verdict = RES_DISK;
	explain_decide(&it, 1, 1ull << 30, 5000, 1e9, 10000, 1e9);
	assert_true(explain_disagreement_text(&it, buf, sizeof(buf)) > 0);
	assert_contains(buf, "no removal saved more than 10%: the causal verdict is cpu (by elimination)");
}

static void table_to(FILE *f, const void *ex)
{
	report_explain_table(ex, f);
}

/* The table's line for removal k of ex's first item, into buf. */
static void table_line(const struct explain_report *ex, enum explain_removed k, char *buf, size_t len)
{
	char *text = test_written(table_to, ex), *line;

	line = strstr(text, explain_removed_text(k));
	assert_non_null(line);
	snprintf(buf, len, "%.*s", (int)strcspn(line, "\n"), line);
	free(text);
}

static void test_null_sink_never_verified(void **state)
{
	struct strategy_result r = result("splice", RES_METADATA);
	struct explain_report ex = { .n = 1 };
	json_object *o = json_object_new_object(), *arr, *one, *v;
	char line[256];

	(void)state;
	item(&ex.items[0], &r);
	set(&ex.items[0], EXPLAIN_DEST_DISK, EXPLAIN_OK, 4.0);
	set(&ex.items[0], EXPLAIN_DURABLE_WRITE, EXPLAIN_OK, 6.0);
	/* even were its verified flag set by mistake, no report calls the null sink's run verified */
	ex.items[0].ab[EXPLAIN_DEST_DISK].stream_checked = true;
	ex.items[0].ab[EXPLAIN_DEST_DISK].verified = true;
	ex.items[0].ab[EXPLAIN_DURABLE_WRITE].verified = true;
	assert_false(explain_ablation_verified(&ex.items[0].ab[EXPLAIN_DEST_DISK]));
	assert_true(explain_ablation_verified(&ex.items[0].ab[EXPLAIN_DURABLE_WRITE]));
	explain_decide(&ex.items[0], 20000, 20000ull * 4096, 5000, 1e9, 10000, 1e9);
	report_explain_json(&ex, &r, o);
	assert_true(json_object_object_get_ex(o, "explain", &arr));
	one = json_object_array_get_idx(arr, EXPLAIN_DEST_DISK);
	assert_true(json_object_object_get_ex(one, "removed", &v));
	assert_string_equal(json_object_get_string(v), "dest_disk");
	assert_true(json_object_object_get_ex(one, "verified", &v));
	assert_false(json_object_get_boolean(v));
	assert_true(json_object_object_get_ex(one, "stream_checked", &v));
	assert_true(json_object_get_boolean(v));
	/* the tmpfs run beside it is a copy, and says so */
	one = json_object_array_get_idx(arr, EXPLAIN_DURABLE_WRITE);
	assert_true(json_object_object_get_ex(one, "verified", &v));
	assert_true(json_object_get_boolean(v));
	table_line(&ex, EXPLAIN_DEST_DISK, line, sizeof(line));
	assert_contains(line, "(checked in the stream; nothing kept, not a copy)");
	assert_null(strstr(line, "verified"));
	/* not checked in the stream either: still no copy, and not called checked */
	ex.items[0].ab[EXPLAIN_DEST_DISK].stream_checked = false;
	table_line(&ex, EXPLAIN_DEST_DISK, line, sizeof(line));
	assert_contains(line, "(nothing kept, not a copy)");
	assert_null(strstr(line, "verified"));
	assert_null(strstr(line, "checked"));
	table_line(&ex, EXPLAIN_DURABLE_WRITE, line, sizeof(line));
	assert_contains(line, "  verified");
	/* a skipped removal: null seconds, its reason */
	one = json_object_array_get_idx(arr, EXPLAIN_NETWORK);
	assert_true(json_object_object_get_ex(one, "seconds", &v));
	assert_null(v);
	assert_true(json_object_object_get_ex(o, "causal_verdict", &v));
	assert_string_equal(json_object_get_string(v), "metadata");
	json_object_put(o);
}

/*
 * issue 44, item 5: tar-ssh's baseline of 16.37 s was an outlier, every
 * removal "saved" 83-87%, and the causal verdict still read "metadata ...
 * the model agrees". The control, nothing removed, bears the baseline out
 * or not.
 */
static void test_control(void **state)
{
	struct strategy_result r = result("tar-ssh", RES_METADATA);
	struct explain_report ex = { .n = 1 };
	struct explain_item *it = &ex.items[0];
	json_object *o;
	char *text;

	(void)state;
	item(it, &r);
	it->baseline_seconds = 16.37;
	it->control_status = EXPLAIN_OK;
	it->control_seconds = 2.50;
	assert_true(explain_reference(it) == 2.50);
	set(it, EXPLAIN_DEST_DISK, EXPLAIN_OK, 2.40);
	it->ab[EXPLAIN_DEST_DISK].saved_fraction = (2.50 - 2.40) / 2.50;
	explain_decide(it, 20000, 20000ull * 4096, 5000, 1e9, 10000, 1e9);
	assert_true(it->baseline_outlier);
	assert_int_equal(it->causal, RES_COUNT);
	assert_false(it->has_agreement);
	text = test_written(table_to, &ex);
	assert_contains(text, "control (nothing removed)                  2.50 s\n");
	assert_contains(text, "the comparison's 16.37 s was an outlier: the control took 2.50 s");
	assert_contains(text, "2.50 s -> 2.40 s, -4%");
	assert_contains(text, "causal verdict: withheld");
	assert_null(strstr(text, "the model agrees"));
	free(text);
	o = json_object_new_object();
	report_explain_json(&ex, &r, o);
	assert_true(json_object_get_boolean(json_object_object_get(o, "explain_baseline_outlier")));
	assert_true(json_object_get_double(json_object_object_get(o, "explain_control_seconds")) == 2.50);
	assert_null(json_object_object_get(o, "causal_verdict"));
	json_object_put(o);

	/* within 10%: the baseline stands, the verdict is given */
	it->control_seconds = 15.90;
	explain_decide(it, 20000, 20000ull * 4096, 5000, 1e9, 10000, 1e9);
	assert_false(it->baseline_outlier);
	/* beyond 10% but within the spread of the comparison's --repeat runs */
	it->control_seconds = 12.0;
	r.runs = 3;
	r.time = (struct stats){ .n = 3, .mean = 14, .sd = 3, .min = 10.0, .max = 17.0 };
	explain_decide(it, 20000, 20000ull * 4096, 5000, 1e9, 10000, 1e9);
	assert_false(it->baseline_outlier);
	/* no control: nothing to compare, the baseline is the reference */
	it->control_status = EXPLAIN_FAILED;
	explain_decide(it, 20000, 20000ull * 4096, 5000, 1e9, 10000, 1e9);
	assert_false(it->baseline_outlier);
	assert_true(explain_reference(it) == 16.37);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_disagreement_line),
		cmocka_unit_test(test_destination_split),
		cmocka_unit_test(test_noise_and_elimination),
		cmocka_unit_test(test_null_sink_never_verified),
		cmocka_unit_test(test_control),
	};

	return test_run("report_explain", tests, ARRAY_LEN(tests), NULL, 0);
}
