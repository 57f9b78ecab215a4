/*
 * Helpers shared by the cmocka unit tests (header only: every test_*.c is
 * built on its own against the role archives in build/lib/).
 */
#ifndef XFERCMP_TESTUTIL_H
#define XFERCMP_TESTUTIL_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <fnmatch.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>

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
 * The folder a test makes its trees in when its subject is the code, not the
 * disk: $XFERCMP_TEST_TMP when set; else /dev/shm when it is a tmpfs with
 * 1 GiB free; else /var/tmp. On this project's shared ext4 disk one create or
 * unlink took 1-3 ms under load, and trees of thousands of files were most of
 * check-unit's time. Tests whose subject is the disk (the page cache, durable
 * writes, the probes' rates) keep to /var/tmp themselves; the integration
 * tests move every tree on a real disk.
 */
static inline const char *test_tmp_base(void)
{
	const char *env = getenv("XFERCMP_TEST_TMP");
	struct statfs fs;

	if (env && *env)
		return env;
	if (statfs("/dev/shm", &fs) == 0 && fs.f_type == TMPFS_MAGIC &&
	    (unsigned long long)fs.f_bavail * (unsigned long long)fs.f_bsize >= 1ull << 30)
		return "/dev/shm";
	return "/var/tmp";
}

/* Writes text to a new or emptied file at path, then gives it mode. */
static inline void test_put_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

/* Makes a new directory test_tmp_base()/name-XXXXXX, its path into buf. */
static inline void test_mkdtemp(char *buf, size_t len, const char *name)
{
	int n = snprintf(buf, len, "%s/%s-XXXXXX", test_tmp_base(), name);

	assert_true(n > 0 && (size_t)n < len);
	if (!mkdtemp(buf))
		fail_msg("cannot make a directory '%s': %s", buf, strerror(errno));
}

/*
 * A case that waits on real time or a real disk (a timeout, an age, a rate or
 * a budget of seconds, durable writes): in tests[] as slow_unit_test(f), its
 * name "slow_f". make check-unit leaves it out (XFERCMP_TEST_SKIP=slow_*,
 * saying so in a comment line) and tests/integration/unit_slow.t runs it
 * (XFERCMP_TEST_FILTER=slow_*); a program run by hand runs every case. A
 * program keeps at least one case that is not slow: one that ran none in
 * check-unit would print a plan of zero, which tests/run.sh counts a skip.
 */
#define slow_unit_test(f) { "slow_" #f, f, NULL, NULL, NULL }
#define slow_unit_test_teardown(f, teardown) { "slow_" #f, f, NULL, teardown, NULL }

/*
 * Runs the tests in tests[] as group name; returns the number that failed.
 * XFERCMP_TEST_FILTER runs only the cases whose name matches its pattern,
 * XFERCMP_TEST_SKIP leaves out those that match its (cmocka's patterns: * and
 * ?). Nothing is left out unseen: there is no list of known bugs (a test
 * that fails on a bug not yet fixed fails the run). known/nknown remain only
 * because tests/unit/cmd/ still passes NULL, 0 (another branch moves those
 * files); anything else there is refused, loudly, as a failure.
 */
static inline int test_run(const char *name, const struct CMUnitTest *tests, size_t ntests,
			   const struct CMUnitTest *known, size_t nknown)
{
	const char *only = getenv("XFERCMP_TEST_FILTER"), *skip = getenv("XFERCMP_TEST_SKIP");

	if (known || nknown) {
		printf("not ok - %s: a known_bugs[] list is no longer run: put its tests in tests[]\n", name);
		return 1;
	}
	if (only && *only)
		cmocka_set_test_filter(only);
	if (skip && *skip) {
		size_t left = 0;

		for (size_t i = 0; i < ntests; i++)
			left += fnmatch(skip, tests[i].name, 0) == 0;
		if (left)
			printf("# %s: %zu of %zu cases left out here (XFERCMP_TEST_SKIP=%s)\n", name, left,
			       ntests, skip);
		cmocka_set_skip_filter(skip);
	}
	return _cmocka_run_group_tests(name, tests, ntests, NULL, NULL);
}

#endif
