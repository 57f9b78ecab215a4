/*
 * Helpers shared by the cmocka unit tests (header only: every test_*.c is
 * built on its own against the role archives in build/lib/).
 *
 * Tests that demonstrate a known, unfixed library bug are kept in each file's
 * known_bugs[] table and run only when XFERCMP_KNOWN_BUGS is set in the
 * environment, so the default run stays green while the bug stays
 * reproducible:  XFERCMP_KNOWN_BUGS=1 build/tests/unit/workloads/test_manifest
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

/* Runs tests, then known_bugs too when XFERCMP_KNOWN_BUGS is set. */
static inline int test_run(const char *name, const struct CMUnitTest *tests, size_t ntests,
			   const struct CMUnitTest *known, size_t nknown)
{
	const char *env = getenv("XFERCMP_KNOWN_BUGS");
	struct CMUnitTest *all;
	size_t n = ntests;
	int rc;

	if (env && *env && strcmp(env, "0") != 0)
		n += nknown;
	all = calloc(n, sizeof(*all));
	if (!all)
		return 1;
	memcpy(all, tests, ntests * sizeof(*all));
	if (n > ntests)
		memcpy(all + ntests, known, nknown * sizeof(*all));
	rc = _cmocka_run_group_tests(name, all, n, NULL, NULL);
	free(all);
	return rc;
}

#endif
