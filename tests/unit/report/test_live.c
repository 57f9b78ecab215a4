/*
 * Unit tests for the live status line (cmd/report/live.c): the line's fields
 * with and without a file count, the file count capped at the total, and
 * the senders' counters (common/sent_progress.c) it reads.
 */
#include "testutil.h"

#include "report/live.h"
#include "sent_progress.h"

#include <string.h>

static void test_line_with_files(void **state)
{
	char buf[160];

	(void)state;
	/* our sender's counts: exact, no "~" */
	live_format(buf, sizeof(buf), "tar-ssh", 1, 1, 7.2, 41200, 120000, 163400000, 489800000,
		    false, 24100000.0, 0);
	assert_string_equal(buf, "tar-ssh: 41,200 of 120,000 files, 163.4 MB of 489.8 MB (33%), "
				 "24.1 MB/s, 7 s, ETA 14 s");
	/* a repeat's run number; minutes */
	live_format(buf, sizeof(buf), "splice", 2, 3, 75, 999, 1000, 1000000, 2000000, false,
		    500000.0, 0);
	assert_string_equal(buf, "splice (2/3): 999 of 1,000 files, 1.0 MB of 2.0 MB (50%), 0.5 MB/s, "
				 "1 min 15 s, ETA 2 s");
	/* the forecast made before it began, beside the time so far */
	live_format(buf, sizeof(buf), "splice", 1, 1, 5, 999, 1000, 1000000, 2000000, false,
		    500000.0, 130.0);
	assert_string_equal(buf, "splice: 999 of 1,000 files, 1.0 MB of 2.0 MB (50%), 0.5 MB/s, "
				 "5 s (forecast 2 min 10 s), ETA 2 s");
}

static void test_line_without_files(void **state)
{
	char buf[160];

	(void)state;
	/* a reference tool counts nothing: the interface's bytes, an estimate */
	live_format(buf, sizeof(buf), "real-scp", 1, 1, 30, 0, 120000, 64000000, 489800000, true,
		    800000.0, 0);
	assert_string_equal(buf, "real-scp: 64.0 MB of ~489.8 MB (13%), 0.8 MB/s, 30 s, ETA 8 min 52 s");
	/* no total known: no "of", no ETA */
	live_format(buf, sizeof(buf), "zstd", 1, 1, 1, 10, 0, 5000000, 0, true, 5000000.0, 0);
	assert_string_equal(buf, "zstd: 5.0 MB, 5.0 MB/s, 1 s");
	/* the first seconds give no ETA */
	live_format(buf, sizeof(buf), "scp", 1, 1, 1, 10, 100, 1000000, 2000000, false, 1000000.0, 0);
	assert_string_equal(buf, "scp: 10 of 100 files, 1.0 MB of 2.0 MB (50%), 1.0 MB/s, 1 s");
}

static void test_files_capped_and_line_width(void **state)
{
	char buf[160];

	(void)state;
	/* counted ranges or a late tick never show more files than the tree has */
	live_format(buf, sizeof(buf), "parallel", 1, 1, 3, 1500, 1000, 1, 2, false, 1.0, 0);
	assert_non_null(strstr(buf, " 1,000 of 1,000 files,"));
	/* the longest line still fits 100 columns */
	live_format(buf, sizeof(buf), "a-long-strategy-name", 10, 10, 3600 * 30, 12345678901ull,
		    12345678901ull, 999999999999ull, 9999999999999ull, true, 1.0, 0);
	assert_true(strlen(buf) <= 100);
}

static void test_counter(void **state)
{
	uint64_t files, bytes;

	(void)state;
	sent_progress_reset();
	sent_progress_read(&files, &bytes);
	assert_int_equal(files, 0);
	assert_int_equal(bytes, 0);
	sent_progress_file();
	sent_progress_file();
	sent_progress_bytes(4096);
	sent_progress_bytes(100);
	sent_progress_read(&files, &bytes);
	assert_int_equal(files, 2);
	assert_int_equal(bytes, 4196);
	sent_progress_reset();
	sent_progress_read(&files, &bytes);
	assert_int_equal(files + bytes, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_with_files),
		cmocka_unit_test(test_line_without_files),
		cmocka_unit_test(test_files_capped_and_line_width),
		cmocka_unit_test(test_counter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
