#ifndef XFERCMP_STATS_H
#define XFERCMP_STATS_H

#include <stdbool.h>

/*
 * Statistics of repeated runs (--repeat, `xfercmp diff`): what hyperfine's
 * users expect (mean ± σ, min, max), and whether two strategies' times
 * differ by more than their noise. Pure arithmetic; no allocation.
 */

struct stats {
	unsigned n;
	double mean;
	double sd;	/* sample standard deviation (n - 1); 0 when n < 2 */
	double min, max;
};

/* The statistics of v[0..n); all zero when n is 0. */
void stats_of(const double *v, unsigned n, struct stats *s);

/*
 * Welch's t-test, two-sided: the probability that means this far apart
 * come from runs of one distribution. Returns 1 when it cannot say (fewer
 * than two runs on either side, or no spread at all on both).
 */
double stats_welch_p(const struct stats *a, const struct stats *b);

/* The significance stats_differ uses: a difference is real below it. */
#define STATS_ALPHA 0.05

/*
 * True when a and b differ beyond their noise: their ranges [min, max] do
 * not overlap, or Welch's test gives p < STATS_ALPHA. Single runs have no
 * spread: they differ whenever the times differ (a range of one point).
 */
bool stats_differ(const struct stats *a, const struct stats *b);

#endif
