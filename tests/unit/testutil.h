/*
 * Helpers shared by the cmocka unit tests (header only: every test_*.c is
 * built on its own against the role archives in build/lib/).
 */
#ifndef XFERCMP_TESTUTIL_H
#define XFERCMP_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Fails the test unless haystack contains needle, printing both. */
#define assert_contains(haystack, needle) \
	test_assert_contains((haystack), (needle), __FILE__, __LINE__)

static inline void test_assert_contains(const char *haystack, const char *needle,
					const char *file, int line)
{
	if (!haystack || !strstr(haystack, needle)) {
		print_error("'%s' does not contain '%s'\n", haystack ? haystack : "(null)", needle);
		_fail(file, line);
	}
}

/*
 * What f(out, arg) wrote, as a string the caller frees. Not inlined: inlined,
 * gcc 12 takes a pointer into the string for one to the local it came from
 * (-Wdangling-pointer).
 */
static __attribute__((noinline, unused)) char *test_written(void (*f)(FILE *, const void *), const void *arg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	f(out, arg);
	assert_int_equal(fclose(out), 0);
	return text;
}

/*
 * Runs every test in tests[] as group name; returns the number that failed.
 * There is no list of tests left out of the run: a test that fails on a bug
 * not yet fixed fails the run. known/nknown remain only because
 * tests/unit/cmd/ still passes NULL, 0 (another branch moves those files);
 * anything else there is refused, loudly, as a failure.
 */
static inline int test_run(const char *name, const struct CMUnitTest *tests, size_t ntests,
			   const struct CMUnitTest *known, size_t nknown)
{
	if (known || nknown) {
		printf("not ok - %s: a known_bugs[] list is no longer run: put its tests in tests[]\n", name);
		return 1;
	}
	return _cmocka_run_group_tests(name, tests, ntests, NULL, NULL);
}

#endif
