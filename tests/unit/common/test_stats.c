/* Unit tests for common/stats.c: mean, σ, range, Welch's t-test, "beyond the noise". */
#include "testutil.h"

#include "stats.h"

#include <math.h>

static void test_of(void **state)
{
	static const double v[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct stats s;

	(void)state;
	stats_of(v, ARRAY_LEN(v), &s);
	assert_int_equal(s.n, 8);
	assert_true(fabs(s.mean - 5) < 1e-12);
	/* sample σ: sqrt(32 / 7) */
	assert_true(fabs(s.sd - sqrt(32.0 / 7)) < 1e-12);
	assert_true(s.min == 2 && s.max == 9);
	stats_of(v, 1, &s);
	assert_true(s.n == 1 && s.mean == 2 && s.sd == 0 && s.min == 2 && s.max == 2);
	stats_of(v, 0, &s);
	assert_true(s.n == 0 && s.mean == 0);
}

/*
 * The reference p was computed independently of this code, by integrating
 * Student's t density numerically (Python, 200,000 midpoint steps) at the
 * Welch t and df of these samples: t = -2.2255, df = 24.525, p = 0.035485.
 */
static void test_welch_reference(void **state)
{
	static const double a[] = { 19.8, 20.4, 19.6, 17.8, 18.5, 18.9, 18.3, 18.9, 19.5, 22.0 };
	static const double b[] = { 28.2, 26.6, 20.1, 23.3, 25.2, 22.1, 17.7, 27.6, 20.6, 13.7,
				    23.2, 17.5, 20.6, 18.0, 23.9, 21.6, 24.3, 20.4, 23.9, 13.3 };
	struct stats sa, sb;
	double p;

	(void)state;
	stats_of(a, ARRAY_LEN(a), &sa);
	stats_of(b, ARRAY_LEN(b), &sb);
	p = stats_welch_p(&sa, &sb);
	if (fabs(p - 0.035485) > 0.00002) {
		print_error("p = %.6f, want 0.035485\n", p);
		fail();
	}
	assert_true(fabs(stats_welch_p(&sb, &sa) - p) < 1e-12);	/* symmetric */
	assert_true(stats_differ(&sa, &sb));
}

/* Equal means: p = 1; far apart with small spread: p near 0. */
static void test_welch_limits(void **state)
{
	static const double a[] = { 10, 11, 12 }, b[] = { 11, 10, 12 }, c[] = { 20, 21, 22 };
	struct stats sa, sb, sc;

	(void)state;
	stats_of(a, 3, &sa);
	stats_of(b, 3, &sb);
	stats_of(c, 3, &sc);
	assert_true(fabs(stats_welch_p(&sa, &sb) - 1) < 1e-9);
	assert_true(stats_welch_p(&sa, &sc) < 0.001);
	/* undefined: one run, or no spread on both sides */
	stats_of(a, 1, &sb);
	assert_true(stats_welch_p(&sa, &sb) == 1);
}

/* Overlapping ranges, close means: no clear difference; disjoint ranges: a difference. */
static void test_differ(void **state)
{
	static const double a[] = { 10.0, 10.8, 10.3 }, b[] = { 10.4, 11.0, 10.1 },
			    c[] = { 11.5, 11.6, 11.7 }, one[] = { 10.5 }, two[] = { 12 };
	struct stats sa, sb, sc, s1, s2;

	(void)state;
	stats_of(a, 3, &sa);
	stats_of(b, 3, &sb);
	stats_of(c, 3, &sc);
	stats_of(one, 1, &s1);
	stats_of(two, 1, &s2);
	assert_false(stats_differ(&sa, &sb));
	assert_true(stats_differ(&sa, &sc));
	/* single runs: points, which differ when they are not equal */
	assert_true(stats_differ(&s1, &s2));
	assert_false(stats_differ(&s1, &s1));
	/* a point inside the other's range: not beyond the noise */
	assert_false(stats_differ(&s1, &sa));
	/* nothing measured */
	stats_of(a, 0, &s1);
	assert_false(stats_differ(&s1, &sa));
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_of),
		cmocka_unit_test(test_welch_reference),
		cmocka_unit_test(test_welch_limits),
		cmocka_unit_test(test_differ),
	};

	return test_run("stats", tests, ARRAY_LEN(tests), NULL, 0);
}
