/* Repeat statistics: mean, σ, range, and Welch's t-test (stats.h). */
#include "stats.h"

#include <math.h>

void stats_of(const double *v, unsigned n, struct stats *s)
{
	double sum = 0, sq = 0;

	*s = (struct stats){ .n = n };
	if (!n)
		return;
	s->min = s->max = v[0];
	for (unsigned i = 0; i < n; i++) {
		sum += v[i];
		if (v[i] < s->min)
			s->min = v[i];
		if (v[i] > s->max)
			s->max = v[i];
	}
	s->mean = sum / n;
	if (n < 2)
		return;
	for (unsigned i = 0; i < n; i++)
		sq += (v[i] - s->mean) * (v[i] - s->mean);
	s->sd = sqrt(sq / (n - 1));
}

#define LENTZ_TINY 1e-300

/* One term of the modified Lentz method: updates c and d, returns the factor for h. */
static double lentz_step(double *c, double *d, double num)
{
	*d = 1 + num * *d;
	*d = fabs(*d) < LENTZ_TINY ? 1 / LENTZ_TINY : 1 / *d;
	*c = 1 + num / *c;
	if (fabs(*c) < LENTZ_TINY)
		*c = LENTZ_TINY;
	return *d * *c;
}

/*
 * The continued fraction of the regularized incomplete beta function
 * I_x(a, b), evaluated with the modified Lentz method; converges quickly
 * for x < (a + 1) / (a + b + 2), which the caller arranges.
 */
static double beta_fraction(double a, double b, double x)
{
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	if (fabs(d) < LENTZ_TINY)
		d = LENTZ_TINY;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, odd;

		/* the even term, then the odd term of the fraction */
		h *= lentz_step(&c, &d, m * (b - m) * x / ((a + m2 - 1) * (a + m2)));
		odd = lentz_step(&c, &d, -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1)));
		h *= odd;
		if (fabs(odd - 1) < 1e-12)
			break;
	}
	return h;
}

/* I_x(a, b), the regularized incomplete beta function, for 0 <= x <= 1. */
static double incomplete_beta(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_fraction(a, b, x) / a;
	return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

double stats_welch_p(const struct stats *a, const struct stats *b)
{
	double va, vb, se2, t, df;

	if (a->n < 2 || b->n < 2)
		return 1;
	va = a->sd * a->sd / a->n;
	vb = b->sd * b->sd / b->n;
	se2 = va + vb;
	if (!(se2 > 0))
		return 1;
	t = (a->mean - b->mean) / sqrt(se2);
	/* Welch–Satterthwaite degrees of freedom */
	df = se2 * se2 / (va * va / (a->n - 1) + vb * vb / (b->n - 1));
	/* two-sided p of Student's t with df degrees: I_{df/(df+t²)}(df/2, 1/2) */
	return incomplete_beta(df / 2, 0.5, df / (df + t * t));
}

bool stats_differ(const struct stats *a, const struct stats *b)
{
	if (!a->n || !b->n)
		return false;
	if (a->max < b->min || b->max < a->min)
		return true;
	if (a->n < 2 || b->n < 2)
		return false;	/* one point inside the other's range */
	if (a->sd == 0 && b->sd == 0)
		return a->mean != b->mean;
	return stats_welch_p(a, b) < STATS_ALPHA;
}
