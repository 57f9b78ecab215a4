/* report_json_upgrade: a schema-1 report read as schema 2 (renames, scales, nulls). */
#include "testutil.h"
#include "report/report.h"

#include <math.h>

/* A schema-1 report cut down from a real one (xfercmp 0.1.0, -s splice,cmd:bad=...). */
static const char schema1[] =
	"{\"schema\": 1, \"host\": \"local\","
	" \"ceilings\": {\"network_bps_1\": 285788735.0, \"network_bps_n\": 287723877.0,"
	"  \"network_streams\": 2, \"rtt_p50_s\": 9.367e-06, \"rtt_p99_s\": 7.726e-05,"
	"  \"network_peer\": \"127.0.0.1:38799\", \"network_interface\": \"lo\","
	"  \"disk_write_bps\": 324570172.0, \"disk_write_bytes\": 114294784,"
	"  \"create_per_s\": 707.5, \"disk_read_bps\": 0.0, \"source_open_per_s\": 4194.8,"
	"  \"zstd_bps\": 402279254.0, \"zstd_ratio\": 1.8, \"ssh_bps\": 0.0, \"sftp_rtt_s\": 0.0,"
	"  \"ssh_cipher\": \"\", \"dest_fs\": \"ext4\","
	"  \"create_at\": [{\"depth\": 1, \"per_s\": 707.5}], \"open_at\": [],"
	"  \"read_at\": [{\"depth\": 4, \"per_s\": 9e8}]},"
	" \"results\": ["
	"  {\"strategy\": \"splice\", \"status\": \"ok\", \"seconds\": 0.5, \"runs\": 1,"
	"   \"bytes\": 1000000, \"files\": 200, \"dest_fs\": \"ext4\","
	"   \"samples\": {\"source\": {\"disk\": {\"read_mb_s\": 54.25, \"write_mb_s\": 82.5},"
	"    \"net\": {\"rx_gbit_s\": 0.25, \"tx_gbit_s\": 0.5, \"gbit_s\": 0.5},"
	"    \"series\": {\"t\": [0.1, 0.2], \"net_bytes_s\": [100.0, 200.0]}}}},"
	"  {\"strategy\": \"bad\", \"status\": \"failed\", \"seconds\": 0.0, \"runs\": 0,"
	"   \"phases\": {\"transfer\": 0.0, \"flush\": 0.0}, \"min_seconds\": 0.0,"
	"   \"bytes\": 0, \"files\": 0, \"dest_fs\": \"\", \"error\": \"bad failed (exit 1)\"}],"
	" \"what_if\": [{\"rate_bits_per_s\": 1e9, \"rtt_s\": 0.0, \"predicted\": {}}]}";

static json_object *at(json_object *o, const char *path)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save)) {
		if (json_object_is_type(o, json_type_array))
			o = json_object_array_get_idx(o, (size_t)atoi(k));
		else if (!json_object_object_get_ex(o, k, &o))
			fail_msg("'%s': no '%s'", path, k);
	}
	return o;
}

static void assert_num(json_object *doc, const char *path, double want)
{
	json_object *v = at(doc, path);

	if (!v)
		fail_msg("'%s' is null, want %g", path, want);
	if (fabs(json_object_get_double(v) - want) > 1e-9 * fabs(want))
		fail_msg("'%s' is %.17g, want %.17g", path, json_object_get_double(v), want);
}

static void assert_json_null(json_object *doc, const char *path)
{
	json_object *v = at(doc, path);

	if (v)
		fail_msg("'%s' is %s, want null", path, json_object_get_string(v));
}

static void assert_absent(json_object *o, const char *key)
{
	if (json_object_object_get_ex(o, key, NULL))
		fail_msg("schema-1 key '%s' is still there", key);
}

static void test_renames_and_scales(void **state)
{
	json_object *doc = json_tokener_parse(schema1);

	(void)state;
	assert_non_null(doc);
	assert_int_equal(report_json_upgrade(doc, "a.json"), 0);
	assert_num(doc, "schema", 3);
	/* schema 1's network "bps" were bytes per second: schema 2 has bits */
	assert_num(doc, "ceilings.network_1_stream_bits_per_s", 285788735.0 * 8);
	assert_num(doc, "ceilings.network_n_streams_bits_per_s", 287723877.0 * 8);
	assert_absent(at(doc, "ceilings"), "network_bps_1");
	assert_absent(at(doc, "ceilings"), "network_bps_n");
	assert_num(doc, "ceilings.rtt_p50_seconds", 9.367e-06);
	assert_num(doc, "ceilings.disk_write_bytes_per_s", 324570172.0);
	assert_num(doc, "ceilings.create_files_per_s", 707.5);
	assert_num(doc, "ceilings.zstd_bytes_per_s", 402279254.0);
	assert_num(doc, "ceilings.create_at.0.files_per_s", 707.5);
	assert_num(doc, "ceilings.read_at.0.bytes_per_s", 9e8);
	assert_num(doc, "results.0.samples.source.disk.read_bytes_per_s", 54.25e6);
	assert_num(doc, "results.0.samples.source.net.tx_bits_per_s", 0.5e9);
	assert_num(doc, "results.0.samples.source.net.bits_per_s", 0.5e9);
	assert_num(doc, "results.0.samples.source.series.net_bytes_per_s.1", 200.0);
	assert_num(doc, "results.0.bytes_per_s", 2e6);
	assert_num(doc, "results.0.files_per_s", 400);
	json_object_put(doc);
}

static void test_unmeasured_become_null(void **state)
{
	json_object *doc = json_tokener_parse(schema1);

	(void)state;
	assert_int_equal(report_json_upgrade(doc, "a.json"), 0);
	/* probes that did not run (--warm, no SSH strategy): 0 and "" in schema 1 */
	assert_json_null(doc, "ceilings.disk_read_bytes_per_s");
	assert_json_null(doc, "ceilings.ssh_bytes_per_s");
	assert_json_null(doc, "ceilings.sftp_rtt_seconds");
	assert_json_null(doc, "ceilings.ssh_cipher");
	/* a strategy that failed has no time, no counts, no rates */
	assert_json_null(doc, "results.1.seconds");
	assert_json_null(doc, "results.1.phases");
	assert_json_null(doc, "results.1.min_seconds");
	assert_json_null(doc, "results.1.bytes");
	assert_json_null(doc, "results.1.bytes_per_s");
	assert_json_null(doc, "results.1.dest_fs");
	assert_json_null(doc, "results.1.verdict");
	assert_json_null(doc, "results.1.samples.source");
	assert_json_null(doc, "results.0.samples.destination");
	/* a what-if value kept as measured */
	assert_json_null(doc, "what_if.0.rtt_seconds");
	assert_num(doc, "what_if.0.rate_bits_per_s", 1e9);
	json_object_put(doc);
}

static void test_schema2_drops_the_prediction(void **state)
{
	json_object *doc = json_tokener_parse("{\"schema\": 2, \"ceilings\": {\"network_bps_1\": 5},"
					      " \"results\": [{\"strategy\": \"splice\", \"seconds\": 2.0,"
					      " \"predicted_seconds\": 1.9, \"predicted_ratio\": 0.95,"
					      " \"misfit\": false, \"prediction_fitted\": false, \"verdict\": \"disk-bound\"}],"
					      " \"what_if\": [{\"rate_bits_per_s\": 1e9, \"predicted\": {\"splice\": 9.1}}]}");
	json_object *r;

	(void)state;
	assert_int_equal(report_json_upgrade(doc, "b.json"), 0);
	assert_num(doc, "schema", 3);
	/* schema 2's fields as written, whatever they hold */
	assert_num(doc, "ceilings.network_bps_1", 5);
	assert_num(doc, "results.0.seconds", 2.0);
	assert_string_equal(json_object_get_string(at(doc, "results.0.verdict")), "disk-bound");
	/* its prediction came from the run it was compared with: no forecast */
	r = at(doc, "results.0");
	assert_absent(r, "predicted_seconds");
	assert_absent(r, "predicted_ratio");
	assert_absent(r, "misfit");
	assert_absent(r, "prediction_fitted");
	assert_json_null(doc, "results.0.forecast");
	assert_json_null(doc, "results.0.forecast_ratio");
	assert_json_null(doc, "results.0.started_at");
	assert_absent(at(doc, "what_if.0"), "predicted");
	assert_non_null(at(doc, "what_if.0.forecasts"));
	json_object_put(doc);
}

static void test_schema3_unchanged(void **state)
{
	json_object *doc = json_tokener_parse("{\"schema\": 3, \"results\": [],"
					      " \"ceilings\": {\"network_bps_1\": 5}}");

	(void)state;
	assert_int_equal(report_json_upgrade(doc, "b.json"), 0);
	assert_num(doc, "ceilings.network_bps_1", 5);
	json_object_put(doc);
}

static void test_rejects_unknown_schema(void **state)
{
	json_object *newer = json_tokener_parse("{\"schema\": 4, \"results\": []}");
	json_object *none = json_tokener_parse("{\"results\": []}");

	(void)state;
	assert_int_equal(report_json_upgrade(newer, "c.json"), -1);
	assert_contains(err_msg(), "'c.json' is schema 4");
	assert_int_equal(report_json_upgrade(none, "d.json"), -1);
	assert_contains(err_msg(), "'d.json' has no \"schema\"");
	json_object_put(newer);
	json_object_put(none);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_renames_and_scales),
		cmocka_unit_test(test_unmeasured_become_null),
		cmocka_unit_test(test_schema2_drops_the_prediction),
		cmocka_unit_test(test_schema3_unchanged),
		cmocka_unit_test(test_rejects_unknown_schema),
	};

	return cmocka_run_group_tests_name("report_json_upgrade", tests, NULL, NULL);
}
