/*
 * Unit tests for the live status line (cmd/report/live.c): the comparison's
 * place "[i/n]" and time left, the phases after the bytes, the fields
 * dropped in order to fit 60, 80 and 120 columns (never wider), the file
 * count capped at the total, and the senders' counters
 * (common/sent_progress.c) it reads.
 */
#include "testutil.h"

#include "report/live.h"
#include "sent_progress.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* zstd-ssh, third of six, 41% of its bytes, 9,120 of 20,000 files, 70 s left in all */
static struct live_view running(void)
{
	return (struct live_view){
		.name = "zstd-ssh", .index = 3, .count = 6, .run = 1, .runs = 1, .elapsed = 0.9,
		.files = 9120, .files_total = 20000, .done = 41000000, .expect = 100000000,
		.rate = 37000000.0, .forecast = 2.1, .left = 70,
	};
}

/* The line at width w: never wider than w - 1 (the last column would wrap). */
static void format_at(char *buf, size_t len, const struct live_view *v, unsigned w)
{
	live_format(buf, len, v, w);
	assert_true(strlen(buf) <= w - 1);
}

static void test_whole_line(void **state)
{
	struct live_view v = running();
	char buf[256];

	(void)state;
	format_at(buf, sizeof(buf), &v, 120);
	assert_string_equal(buf, "[3/6] zstd-ssh  41% 9,120/20,000 files  37.0 MB/s  0.9 s  "
				 "forecast 2.1 s  comparison ETA 1 min 10 s");
	/* a repeat's run; a reference tool's interface bytes ("~"), no file count */
	v.runs = 3;
	v.run = 2;
	v.wire = true;
	v.files = 0;
	v.elapsed = 75;
	v.forecast = 130;
	v.left = 7300;
	format_at(buf, sizeof(buf), &v, 120);
	assert_string_equal(buf, "[3/6] zstd-ssh run 2/3  ~41%  37.0 MB/s  1 min 15 s  "
				 "forecast 2 min 10 s  comparison ETA 2 h 01 min");
	/* no forecast, no place, no total: none of them said */
	v = running();
	v.count = 0;
	v.forecast = 0;
	v.left = -1;
	v.expect = 0;
	format_at(buf, sizeof(buf), &v, 120);
	assert_string_equal(buf, "zstd-ssh  41.0 MB 9,120/20,000 files  37.0 MB/s  0.9 s");
}

static void test_phases(void **state)
{
	struct live_view v = running();
	char buf[256];

	(void)state;
	/* every byte sent: never 100% while it flushes, its phase instead, and no rate */
	v.done = v.expect;
	v.files = v.files_total;
	format_at(buf, sizeof(buf), &v, 120);
	assert_non_null(strstr(buf, "  99% 20,000/20,000 files"));
	v.phase = "flushing";
	format_at(buf, sizeof(buf), &v, 120);
	assert_string_equal(buf, "[3/6] zstd-ssh  flushing 20,000/20,000 files  0.9 s  "
				 "forecast 2.1 s  comparison ETA 1 min 10 s");
	v.phase = "verifying";
	format_at(buf, sizeof(buf), &v, 60);
	assert_non_null(strstr(buf, "[3/6] zstd-ssh  verifying"));
	assert_null(strstr(buf, "%"));
	assert_null(strstr(buf, "MB/s"));
}

static void test_fitted_to_width(void **state)
{
	struct live_view v = running();
	char buf[256];

	(void)state;
	/* 80: the ETA said shorter, then the rate goes */
	format_at(buf, sizeof(buf), &v, 80);
	assert_string_equal(buf, "[3/6] zstd-ssh  41% 9,120/20,000 files  0.9 s  forecast 2.1 s  "
				 "left 1 min 10 s");
	/* 60: then the forecast and the elapsed time */
	format_at(buf, sizeof(buf), &v, 60);
	assert_string_equal(buf, "[3/6] zstd-ssh  41% 9,120/20,000 files  left 1 min 10 s");
	/* narrower still: elapsed, the file count, the ETA; the place and percentage stay */
	format_at(buf, sizeof(buf), &v, 40);
	assert_string_equal(buf, "[3/6] zstd-ssh  41%  left 1 min 10 s");
	format_at(buf, sizeof(buf), &v, 25);
	assert_string_equal(buf, "[3/6] zstd-ssh  41%");
	/* then cut */
	format_at(buf, sizeof(buf), &v, 12);
	assert_string_equal(buf, "[3/6] zstd-");
	/* the widest line there is, at each width */
	v = (struct live_view){
		.name = "a-long-strategy-name-of-32-chars", .index = 10, .count = 10, .run = 100,
		.runs = 100, .files = 12345678901ull, .files_total = 12345678901ull,
		.done = 999999999999ull, .expect = 9999999999999ull, .rate = 9.9e12,
		.elapsed = 3600 * 30, .forecast = 3600 * 30, .left = 3600 * 900,
	};
	for (unsigned w = 2; w <= 200; w++)
		format_at(buf, sizeof(buf), &v, w);
	format_at(buf, sizeof(buf), &v, 120);
	assert_non_null(strstr(buf, "[10/10] a-long-strategy-name-of-32-chars run 100/100  10%"));
	/* a buffer shorter than the width still holds a terminated line */
	live_format(buf, 16, &v, 120);
	assert_int_equal(strlen(buf), 15);
}

static void test_files_capped(void **state)
{
	struct live_view v = running();
	char buf[256];

	(void)state;
	/* counted ranges or a late tick never show more files than the tree has */
	v.files = 1500;
	v.files_total = 1000;
	live_format(buf, sizeof(buf), &v, 120);
	assert_non_null(strstr(buf, " 1,000/1,000 files"));
}

static void test_comparison_left(void **state)
{
	(void)state;
	/* the running one's forecast less its time, and the rest's */
	assert_true(live_comparison_left(10, 4, -1, 1, 1, 60) == 66);
	/* past its forecast: 0 for it, never negative */
	assert_true(live_comparison_left(10, 40, -1, 1, 1, 60) == 60);
	/* --repeat 3, run 1: two more of its runs to come */
	assert_true(live_comparison_left(10, 4, -1, 1, 3, 60) == 86);
	assert_true(live_comparison_left(10, 4, -1, 3, 3, 0) == 6);
	/* past its forecast at half its bytes: its rate so far for the rest, 40 s more */
	assert_true(live_comparison_left(10, 40, 0.5, 1, 1, 60) == 100);
	/* ahead of it: 2 s at a quarter, 6 s more, not the forecast's 8 */
	assert_true(live_comparison_left(10, 2, 0.25, 1, 1, 0) == 6);
	/* under 10% done: the forecast still */
	assert_true(live_comparison_left(10, 4, 0.05, 1, 1, 60) == 66);
	/* every byte sent (flushing, verifying): nothing left of this run */
	assert_true(live_comparison_left(10, 40, 1, 1, 1, 60) == 60);
	/* no forecast for it, or for those after: no ETA */
	assert_true(live_comparison_left(0, 4, 0.5, 1, 1, 60) < 0);
	assert_true(live_comparison_left(10, 4, 0.5, 1, 1, -1) < 0);
}

static void test_width(void **state)
{
	(void)state;
	/* under the tests stderr is no terminal: $COLUMNS, else 80 */
	if (isatty(2))
		skip();
	setenv("COLUMNS", "63", 1);
	assert_int_equal(live_width(), 63);
	setenv("COLUMNS", "wide", 1);
	assert_int_equal(live_width(), 80);
	unsetenv("COLUMNS");
	assert_int_equal(live_width(), 80);
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
		cmocka_unit_test(test_whole_line),
		cmocka_unit_test(test_phases),
		cmocka_unit_test(test_fitted_to_width),
		cmocka_unit_test(test_files_capped),
		cmocka_unit_test(test_comparison_left),
		cmocka_unit_test(test_width),
		cmocka_unit_test(test_counter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
