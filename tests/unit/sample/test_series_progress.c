/*
 * Unit tests for transfer/sample/series_progress.c: when a window's bytes
 * reached a share of their total, read within the slice where they did;
 * nothing without an interface or bytes.
 */
#include "testutil.h"

#include "sample/series_progress.h"

#include <math.h>

#define assert_near(a, b) assert_true(fabs((a) - (b)) < 1e-9)

/* slices of 0.1 s at the given rates (bytes a second) */
static void fill(struct sampler_summary *s, const double *rates, unsigned n)
{
	memset(s, 0, sizeof(*s));
	s->has_net = 1;
	s->npoints = n;
	for (unsigned i = 0; i < n; i++) {
		s->series[i].t = 0.1 * (i + 1);
		s->series[i].net_bytes_s = rates[i];
	}
}

/* 100 bytes, then 0, then 300, then 600: 1,000 bytes over 0.4 s */
static void test_the_fraction_is_read_within_its_slice(void **state)
{
	static const double rates[] = { 1000, 0, 3000, 6000 };
	struct sampler_summary *s = malloc(sizeof(*s));

	(void)state;
	assert_non_null(s);
	fill(s, rates, 4);
	assert_near(series_time_at_fraction(s, 0.05), 0.05);
	/* the 100th byte ends the first slice; the idle one adds nothing */
	assert_near(series_time_at_fraction(s, 0.1), 0.1);
	assert_near(series_time_at_fraction(s, 0.25), 0.25);
	assert_near(series_time_at_fraction(s, 0.7), 0.35);
	assert_near(series_time_at_fraction(s, 0.999), 0.3 + 0.1 * 599.0 / 600);
	free(s);
}

static void test_nothing_to_read_is_minus_one(void **state)
{
	static const double rates[] = { 0, 0 };
	struct sampler_summary *s = malloc(sizeof(*s));

	(void)state;
	assert_non_null(s);
	fill(s, rates, 2);
	assert_true(series_time_at_fraction(s, 0.5) < 0);
	s->series[1].net_bytes_s = 10;
	assert_true(series_time_at_fraction(s, 0.5) > 0.1);
	assert_true(series_time_at_fraction(s, 0) < 0);
	assert_true(series_time_at_fraction(s, 1) < 0);
	s->has_net = 0;
	assert_true(series_time_at_fraction(s, 0.5) < 0);
	s->has_net = 1;
	s->npoints = 0;
	assert_true(series_time_at_fraction(s, 0.5) < 0);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_fraction_is_read_within_its_slice),
		cmocka_unit_test(test_nothing_to_read_is_minus_one),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
