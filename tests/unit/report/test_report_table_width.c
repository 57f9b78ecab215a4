/*
 * The comparison's table fitted to a terminal under 100 columns (issue 44,
 * item 1): at 100 each strategy's row is one line with its mark; narrower,
 * two lines (the first through files/s, the second wire MB, forecast, f/m
 * and the mark), and the shares' bar with its verdict over the percentages.
 * No line is wider than the width, at 60 (the narrowest) and 100.
 */
#define _GNU_SOURCE	/* memmem */
#include "testutil.h"

#include "report/report.h"
#include "report/text_wrap.h"

#include "text_testutil.h"

#include "result_testutil.h"

/* The table of two results, splice clearly fastest and with its accounting, at width (caller frees). */
static char *table_at(size_t width)
{
	static struct strategy_result res[2];
	struct report r = { .host = "a-host-with-a-long-name.example", .workload_name = "smallfiles",
			    .files = 20000, .bytes = 80u << 20, .results = res, .nresults = 2 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	res[0] = test_result("splice", 1.25);
	res[1] = test_result("tar-ssh", 4.5);
	res[0].have_accounting = true;
	res[0].accounting.verdict = RES_METADATA;
	res[0].accounting.share[RES_METADATA] = 0.8;
	res[0].accounting.share[RES_CPU] = 0.2;
	snprintf(res[0].accounting.reason, sizeof(res[0].accounting.reason),
		 "20,000 files at 16,000/s, opened cold and made to durable: 1.0 s of 1.25 s");
	text_width_set(width);
	assert_non_null(f);
	report_table(&r, f, false);
	assert_int_equal(fclose(f), 0);
	text_width_set(0);
	return text;
}

/* The line of text that starts with prefix, or NULL. */
static const char *line_starting(const char *text, const char *prefix)
{
	for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		if (!strncmp(line, prefix, strlen(prefix)))
			return line;
	return NULL;
}

static void test_wide_rows_are_one_line(void **state)
{
	char *t = table_at(100);
	const char *row = line_starting(t, "splice ");

	(void)state;
	assert_true(widest(t) <= 100);
	assert_non_null(row);
	/* the row ends with its mark, after the forecast columns, on the same line */
	assert_non_null(strstr(row, "← fastest"));
	assert_true(strstr(row, "← fastest") < strchr(row, '\n'));
	assert_non_null(line_starting(t, "strategy          status  seconds   flush     MB/s  files/s  wire MB"));
	free(t);
}

static void test_narrow_rows_are_two_lines(void **state)
{
	char *t = table_at(60);
	const char *row = line_starting(t, "splice ");
	const char *next;

	(void)state;
	assert_true(widest(t) <= 60);
	assert_non_null(row);
	next = strchr(row, '\n') + 1;
	/* the first line ends at files/s; the second, indented, has wire MB and the mark */
	assert_null(memmem(row, (size_t)(next - row), "fastest", 7));
	assert_true(!strncmp(next, "                 ", 17));
	assert_non_null(memmem(next, (size_t)(strchr(next, '\n') - next), "← fastest", strlen("← fastest")));
	assert_non_null(line_starting(t, "strategy          status  seconds   flush     MB/s  files/s\n"));
	/* the shares: bar and verdict on one line, the percentages under them */
	row = line_starting(t, "splice            [");
	assert_non_null(row);
	assert_non_null(memmem(row, (size_t)(strchr(row, '\n') - row), "metadata-bound", 14));
	next = strchr(row, '\n') + 1;
	assert_non_null(memmem(next, (size_t)(strchr(next, '\n') - next), "80%", 3));
	free(t);
}

/* A terminal's columns become the width within 60..100; a file or a pipe (0) gets 100. */
static void test_width_for_a_terminal(void **state)
{
	(void)state;
	assert_int_equal(text_width_for(0), TEXT_WIDTH_MAX);
	assert_int_equal(text_width_for(40), TEXT_WIDTH_MIN);
	assert_int_equal(text_width_for(59), 60);
	assert_int_equal(text_width_for(60), 60);
	assert_int_equal(text_width_for(80), 80);
	assert_int_equal(text_width_for(100), 100);
	assert_int_equal(text_width_for(240), 100);
	text_width_set(72);
	assert_int_equal(text_width(), 72);
	text_width_set(0);
	assert_int_equal(text_width(), 100);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wide_rows_are_one_line),
		cmocka_unit_test(test_narrow_rows_are_two_lines),
		cmocka_unit_test(test_width_for_a_terminal),
	};

	return cmocka_run_group_tests_name("report_table_width", tests, NULL, NULL);
}
