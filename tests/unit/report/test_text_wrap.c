/* text_wrap: columns counted as characters, hanging indents, table rows left alone. */
#include "testutil.h"
#include "report/text_wrap.h"

#include "text_testutil.h"

static void test_columns_are_characters(void **state)
{
	(void)state;
	assert_int_equal(text_columns("abc", 3), 3);
	/* "→" is 3 bytes, "µ" and "±" 2: one column each */
	assert_int_equal(text_columns("a → b", strlen("a → b")), 5);
	assert_int_equal(text_columns("9 µs ± 1", strlen("9 µs ± 1")), 8);
	/* colour sequences take no column */
	assert_int_equal(text_columns("\033[1mok\033[0m", strlen("\033[1mok\033[0m")), 2);
}

static void wrap_reason(FILE *out, const void *arg)
{
	text_wrap(out, "    note: ", 10, arg, 40);
}

static void test_hanging_indent(void **state)
{
	static const char reason[] =
		"predicted 1.62 s, measured 2.42 s: 0.80 s (33%) no measured ceiling explains";
	char *text = test_written(wrap_reason, reason);

	(void)state;
	assert_string_equal(text, "    note: predicted 1.62 s, measured\n"
				  "          2.42 s: 0.80 s (33%) no\n"
				  "          measured ceiling explains\n");
	assert_true(widest(text) <= 40);
	free(text);
}

static void wrap_utf8(FILE *out, const void *arg)
{
	text_wrap(out, "", 2, arg, 12);
}

static void test_wraps_by_characters_not_bytes(void **state)
{
	/* 12 characters but 20 bytes: fits a 12-column line whole */
	char *text = test_written(wrap_utf8, "µµµµ →→ ±±±±");

	(void)state;
	assert_string_equal(text, "µµµµ →→ ±±±±\n");
	free(text);
	text = test_written(wrap_utf8, "µµµµ →→ ±±±± x");
	assert_string_equal(text, "µµµµ →→ ±±±±\n  x\n");
	free(text);
}

static void test_long_word_kept_whole(void **state)
{
	char *text = test_written(wrap_utf8, "a /a/path/longer/than/the/line b");

	(void)state;
	assert_string_equal(text, "a\n  /a/path/longer/than/the/line\n  b\n");
	free(text);
}

static void wrap_block(FILE *out, const void *arg)
{
	text_wrap_block(out, arg, 30, -1);
}

static void test_block_leaves_short_lines(void **state)
{
	/* a table row that fits keeps every space; the long line hangs under its own indent + 2 */
	static const char block[] = "splice    ok      0.04\n"
				    "\n"
				    "    the agent on the host needed 0.0 s of CPU\n";
	char *text = test_written(wrap_block, block);

	(void)state;
	assert_string_equal(text, "splice    ok      0.04\n"
				  "\n"
				  "    the agent on the host\n"
				  "      needed 0.0 s of CPU\n");
	assert_true(widest(text) <= 30);
	free(text);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_columns_are_characters),
		cmocka_unit_test(test_hanging_indent),
		cmocka_unit_test(test_wraps_by_characters_not_bytes),
		cmocka_unit_test(test_long_word_kept_whole),
		cmocka_unit_test(test_block_leaves_short_lines),
	};

	return cmocka_run_group_tests_name("text_wrap", tests, NULL, NULL);
}
