/* Unit tests for common/text_escape.c: what a terminal would act on is shown as text. */
#include "testutil.h"

#include "text_escape.h"

static void expect(const char *in, const char *want)
{
	char out[256];

	text_escape(out, sizeof(out), in);
	assert_string_equal(out, want);
	assert_int_equal(text_needs_escape(in), strcmp(in, want) != 0);
}

static void test_controls(void **state)
{
	(void)state;
	expect("plain name.txt", "plain name.txt");
	expect("a\x1b]0;PWNED\x07\x1b[31mred", "a\\x1b]0;PWNED\\x07\\x1b[31mred");
	expect("two\nlines\tand tab", "two\\nlines\\tand tab");
	expect("del\x7f", "del\\x7f");
	expect("back\\slash", "back\\slash");
}

static void test_utf8(void **state)
{
	(void)state;
	/* valid UTF-8 stays, C1 controls do not: U+009B is CSI to some terminals */
	expect("caf\xc3\xa9 \xc5\x9b \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xc5\x9b \xe2\x82\xac \xf0\x9f\x98\x80");
	expect("csi\xc2\x9b" "31m", "csi\\u009b31m");
	/* a lone 0x9b (CSI to an 8-bit terminal), a cut character, an overlong form */
	expect("x\x9by", "x\\x9by");
	expect("cut\xe2\x82", "cut\\xe2\\x82");
	expect("over\xc0\xaf", "over\\xc0\\xaf");
	expect("surrogate\xed\xa0\x80", "surrogate\\xed\\xa0\\x80");
}

/* escaped text is escaped again to itself: received and printed, it reads the same */
static void test_idempotent(void **state)
{
	char once[256], twice[256];

	(void)state;
	text_escape(once, sizeof(once), "\x1b[2J\xc2\x9b\n\x9b\\x1b");
	assert_false(text_needs_escape(once));
	assert_int_equal(text_escape(twice, sizeof(twice), once), 0);
	assert_string_equal(once, twice);
}

/* cut to fit, never in the middle of an escape or a character */
static void test_cut(void **state)
{
	char out[8], s[32] = "ab\x1b\x1b";

	(void)state;
	assert_int_equal(text_escape(out, sizeof(out), "abcdef\x1b"), 1);
	assert_string_equal(out, "abcdef");
	assert_int_equal(text_escape(out, 6, "ab\xe2\x82\xac\xe2\x82\xac"), 1);
	assert_string_equal(out, "ab\xe2\x82\xac");
	text_escape_inplace(s, sizeof(s));
	assert_string_equal(s, "ab\\x1b\\x1b");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_controls),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_idempotent),
		cmocka_unit_test(test_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
