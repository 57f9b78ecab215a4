/* Unit tests for common/units.c: sizes, counts, fractions and byte formatting. */
#include "testutil.h"

#include "err.h"
#include "units.h"

#include <math.h>

/* ---- units_parse_size ---- */

static void expect_size(const char *text, uint64_t want)
{
	uint64_t got = 12345;

	err_clear();
	if (units_parse_size(text, &got) != 0) {
		print_error("units_parse_size('%s') failed: %s\n", text, err_msg());
		fail();
	}
	if (got != want) {
		print_error("units_parse_size('%s') = %llu, want %llu\n", text,
			    (unsigned long long)got, (unsigned long long)want);
		fail();
	}
}

/* A bad size returns -1, leaves *out alone and names the text in the message. */
static void expect_bad_size(const char *text)
{
	uint64_t got = 777;

	err_clear();
	if (units_parse_size(text, &got) != -1) {
		print_error("units_parse_size('%s') accepted it as %llu\n", text,
			    (unsigned long long)got);
		fail();
	}
	assert_int_equal(got, 777);
	assert_true(err_msg()[0] != '\0');
	{
		char quoted[128];

		snprintf(quoted, sizeof(quoted), "'%s'", text);
		assert_contains(err_msg(), quoted);
	}
}

static void test_size_plain(void **state)
{
	(void)state;
	expect_size("512", 512);
	expect_size("0", 0);
	expect_size("1", 1);
	expect_size("18446744073709551615", UINT64_MAX);
}

static void test_size_suffixes(void **state)
{
	(void)state;
	expect_size("4K", 4096);
	expect_size("4k", 4096);
	expect_size("1M", 1ull << 20);
	expect_size("1m", 1ull << 20);
	expect_size("20G", 20ull << 30);
	expect_size("1T", 1ull << 40);
	expect_size("0K", 0);
	expect_size("16777215T", 16777215ull << 40);
}

static void test_size_byte_suffixes(void **state)
{
	(void)state;
	expect_size("1MiB", 1ull << 20);
	expect_size("1mib", 1ull << 20);
	expect_size("2KB", 2048);
	expect_size("2kb", 2048);
	expect_size("3GiB", 3ull << 30);
	expect_size("7B", 7);
}

static void test_size_errors(void **state)
{
	(void)state;
	expect_bad_size("");
	expect_bad_size("abc");
	expect_bad_size("4X");
	expect_bad_size("-1");
	expect_bad_size("+1");
	expect_bad_size(" 1");
	expect_bad_size("1 ");
	expect_bad_size("1.5G");
	expect_bad_size("4KK");
	expect_bad_size("4KBB");
	expect_bad_size("4iB");	/* "iB" only after a K/M/G/T */
	expect_bad_size("K");
	expect_bad_size("4P");
}

static void test_size_overflow(void **state)
{
	(void)state;
	expect_bad_size("99999999999999999999");
	expect_bad_size("18446744073709551616");
	/* 2^34 G = 2^64: only overflows once the suffix is applied */
	expect_bad_size("17179869184G");
	expect_bad_size("16777216T");
	assert_contains(err_msg(), "too large");
	/* the largest that fits */
	expect_size("17179869183G", 17179869183ull << 30);
}

static void test_size_null(void **state)
{
	uint64_t got = 5;

	(void)state;
	assert_int_equal(units_parse_size(NULL, &got), -1);
	assert_int_equal(got, 5);
	assert_true(err_msg()[0] != '\0');
}

/* ---- units_parse_count ---- */

static void test_count_ok(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(units_parse_count("0", 10, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(units_parse_count("10", 10, &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(units_parse_count("007", 10, &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(units_parse_count("18446744073709551615", UINT64_MAX, &v), 0);
	assert_true(v == UINT64_MAX);
}

static void test_count_errors(void **state)
{
	static const char *const bad[] = { "abc", "1a", "-1", "+1", " 1", "1 ", "1.0", "1K", "0x10" };
	uint64_t v = 99;

	(void)state;
	/* max bound */
	err_clear();
	assert_int_equal(units_parse_count("11", 10, &v), -1);
	assert_int_equal(v, 99);
	assert_contains(err_msg(), "'11'");
	assert_contains(err_msg(), "at most 10");
	/* overflow of 64 bits */
	err_clear();
	assert_int_equal(units_parse_count("18446744073709551616", UINT64_MAX, &v), -1);
	assert_contains(err_msg(), "too large");
	/* empty */
	err_clear();
	assert_int_equal(units_parse_count("", 10, &v), -1);
	assert_true(err_msg()[0] != '\0');
	assert_int_equal(units_parse_count(NULL, 10, &v), -1);
	/* non-digits */
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		char quoted[32];

		err_clear();
		if (units_parse_count(bad[i], 1000, &v) != -1) {
			print_error("units_parse_count('%s') accepted it\n", bad[i]);
			fail();
		}
		snprintf(quoted, sizeof(quoted), "'%s'", bad[i]);
		assert_contains(err_msg(), quoted);
	}
	assert_int_equal(v, 99);
}

/* ---- units_parse_double ---- */

static void test_double_ok(void **state)
{
	double v = -1;

	(void)state;
	assert_int_equal(units_parse_double("0.5", 0, 1, &v), 0);
	assert_true(v == 0.5);
	assert_int_equal(units_parse_double("0", 0, 1, &v), 0);
	assert_true(v == 0.0);
	assert_int_equal(units_parse_double("1", 0, 1, &v), 0);
	assert_true(v == 1.0);
	assert_int_equal(units_parse_double("1e-1", 0, 1, &v), 0);
	assert_true(fabs(v - 0.1) < 1e-12);
	assert_int_equal(units_parse_double(".25", 0, 1, &v), 0);
	assert_true(v == 0.25);
}

static void test_double_errors(void **state)
{
	static const char *const bad[] = {
		"", "nan", "NaN", "-nan", "1e", "0.5x", "0.5 ", "abc", "inf", "-inf", "1.0.0",
	};
	double v = 42;

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		err_clear();
		if (units_parse_double(bad[i], 0, 1, &v) != -1) {
			print_error("units_parse_double('%s') accepted it as %g\n", bad[i], v);
			fail();
		}
		assert_true(err_msg()[0] != '\0');
	}
	assert_true(v == 42);
	/* range, both ends */
	err_clear();
	assert_int_equal(units_parse_double("2", 0, 1, &v), -1);
	assert_contains(err_msg(), "'2'");
	assert_contains(err_msg(), "between 0 and 1");
	assert_int_equal(units_parse_double("-0.01", 0, 1, &v), -1);
	assert_int_equal(units_parse_double("1.0000001", 0, 1, &v), -1);
	assert_int_equal(units_parse_double("1e400", 0, 1, &v), -1);	/* ERANGE */
	assert_int_equal(units_parse_double(NULL, 0, 1, &v), -1);
	assert_true(v == 42);
}

/* ---- units_format_bytes ---- */

static void expect_format(uint64_t bytes, const char *want)
{
	char buf[32];
	const char *got = units_format_bytes(bytes, buf, sizeof(buf));

	assert_ptr_equal(got, buf);
	if (strcmp(got, want) != 0) {
		print_error("units_format_bytes(%llu) = '%s', want '%s'\n",
			    (unsigned long long)bytes, got, want);
		fail();
	}
}

static void test_format_bytes(void **state)
{
	(void)state;
	expect_format(0, "0 B");
	expect_format(512, "512 B");
	expect_format(1023, "1023 B");
	expect_format(1024, "1.00 KiB");
	expect_format(1536, "1.50 KiB");
	expect_format(1ull << 20, "1.00 MiB");
	expect_format(3ull << 29, "1.50 GiB");
	expect_format(1ull << 40, "1.00 TiB");
	expect_format(1ull << 50, "1.00 PiB");
	expect_format(1ull << 60, "1024.00 PiB");	/* no unit beyond PiB */
}

static void test_format_bytes_truncates(void **state)
{
	char buf[4];

	(void)state;
	units_format_bytes(1536, buf, sizeof(buf));
	assert_string_equal(buf, "1.5");
}

/*
 * A value just below the next unit that "%.2f" rounds up is shown in the next
 * unit: "1.00 MiB", never "1024.00 KiB".
 */
static void test_format_bytes_unit_boundary(void **state)
{
	(void)state;
	expect_format((1ull << 20) - 1, "1.00 MiB");
	expect_format((1ull << 30) - 1, "1.00 GiB");
}

/* Counts with thousands separators; a buffer too small cuts the text, never overruns. */
static void test_format_count(void **state)
{
	char buf[32], small[4];

	(void)state;
	assert_string_equal(units_format_count(0, buf, sizeof(buf)), "0");
	assert_string_equal(units_format_count(999, buf, sizeof(buf)), "999");
	assert_string_equal(units_format_count(1000, buf, sizeof(buf)), "1,000");
	assert_string_equal(units_format_count(120000, buf, sizeof(buf)), "120,000");
	assert_string_equal(units_format_count(18446744073709551615ull, buf, sizeof(buf)),
			    "18,446,744,073,709,551,615");
	assert_string_equal(units_format_count(120000, small, sizeof(small)), "120");
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_plain),
		cmocka_unit_test(test_size_suffixes),
		cmocka_unit_test(test_size_byte_suffixes),
		cmocka_unit_test(test_size_errors),
		cmocka_unit_test(test_size_overflow),
		cmocka_unit_test(test_size_null),
		cmocka_unit_test(test_count_ok),
		cmocka_unit_test(test_count_errors),
		cmocka_unit_test(test_double_ok),
		cmocka_unit_test(test_double_errors),
		cmocka_unit_test(test_format_bytes),
		cmocka_unit_test(test_format_count),
		cmocka_unit_test(test_format_bytes_truncates),
		cmocka_unit_test(test_format_bytes_unit_boundary),
	};

	return test_run("units", tests, ARRAY_LEN(tests), NULL, 0);
}
