/*
 * Unit tests for xfercmp diff's rendering (cmd/report/report_diff.c),
 * issue 44 item 6: the ceilings that moved are named and in their units
 * (before: "rtt_p50_seconds 2.058e-05 → 2.916e-05"), and two command lines
 * that differ are said, with the words that differ.
 */
#include "testutil.h"

#include "report/report_diff.h"

#include <stdlib.h>

static const char *const doc_a =
	"{\"schema\": 3, \"host\": \"testbed\", \"command\": [\"xfercmp\", \"-s\", \"splice\", \"testbed\"],"
	" \"results\": [{\"strategy\": \"splice\", \"status\": \"ok\", \"seconds\": 2.0, \"run_seconds\": [2.0]}],"
	" \"ceilings\": {\"network_1_stream_bits_per_s\": 2.286e9, \"rtt_p50_seconds\": 2.058e-05,"
	" \"sftp_rtt_seconds\": 0.0021, \"create_files_per_s\": 31000, \"disk_write_bytes_per_s\": 1.2e9,"
	" \"zstd_ratio\": 3.0}}";
static const char *const doc_b =
	"{\"schema\": 3, \"host\": \"testbed\", \"command\": [\"xfercmp\", \"-s\", \"splice\", \"-P\", \"4\", \"testbed\"],"
	" \"results\": [{\"strategy\": \"splice\", \"status\": \"ok\", \"seconds\": 2.1, \"run_seconds\": [2.1]}],"
	" \"ceilings\": {\"network_1_stream_bits_per_s\": 1.143e9, \"rtt_p50_seconds\": 2.916e-05,"
	" \"sftp_rtt_seconds\": 0.0042, \"create_files_per_s\": 15000, \"disk_write_bytes_per_s\": 0.6e9,"
	" \"zstd_ratio\": 3.01}}";

static char *diff_text(const char *a_text, const char *b_text)
{
	json_object *a = json_tokener_parse(a_text), *b = json_tokener_parse(b_text);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(f);
	report_diff(a, "A.json", b, "B.json", f);
	assert_int_equal(fclose(f), 0);
	json_object_put(a);
	json_object_put(b);
	return text;
}

static void test_ceilings_in_units(void **state)
{
	char *t = diff_text(doc_a, doc_b);

	(void)state;
	assert_contains(t, "  network 1 stream            2.29 Gbit/s → 1.14 Gbit/s       -50%\n");
	assert_contains(t, "  rtt p50                         20.6 µs → 29.2 µs           +42%\n");
	assert_contains(t, "  sftp rtt                        2.10 ms → 4.20 ms          +100%\n");
	assert_contains(t, "  create                    31000 files/s → 15000 files/s     -52%\n");
	assert_contains(t, "  disk write                    1200 MB/s → 600 MB/s          -50%\n");
	assert_null(strstr(t, "e-05"));
	assert_null(strstr(t, "_seconds"));
	assert_null(strstr(t, "zstd"));		/* within 10% */
	free(t);
}

static void test_command_lines(void **state)
{
	char *t = diff_text(doc_a, doc_b);

	(void)state;
	assert_contains(t, "the command lines differ:\n  only in B: -P 4\n\n");
	free(t);
	t = diff_text(doc_a, doc_a);
	assert_null(strstr(t, "command lines differ"));
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ceilings_in_units),
		cmocka_unit_test(test_command_lines),
	};

	return test_run("report_diff", tests, ARRAY_LEN(tests), NULL, 0);
}
