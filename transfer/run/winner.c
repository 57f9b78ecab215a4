/*
 * The one winner of a comparison (winner.h): fastest by median, and "clear"
 * only when its runs' range is below every other strategy's, not just the
 * runner-up's — a wide strategy behind a narrow runner-up is still noise.
 */
#include "run/winner.h"

double winner_seconds(const struct strategy_result *r)
{
	return r->median.transfer + r->median.flush;
}

static bool competes(const struct strategy_result *r)
{
	return r->status == RESULT_OK && r->runs;
}

/* r's range of runs; a result without statistics is the one point of its median */
static void range_of(const struct strategy_result *r, double *lo, double *hi)
{
	if (r->time.n) {
		*lo = r->time.min;
		*hi = r->time.max;
	} else {
		*lo = *hi = winner_seconds(r);
	}
}

/* a's range and b's share a point: neither is beyond the other's noise */
static bool ranges_overlap(const struct strategy_result *a, const struct strategy_result *b)
{
	double alo, ahi, blo, bhi;

	range_of(a, &alo, &ahi);
	range_of(b, &blo, &bhi);
	return alo <= bhi && blo <= ahi;
}

/* inserts r into w->tied, kept fastest first (best stays first: it is the least median) */
static void add_tied(struct winner *w, const struct strategy_result *r)
{
	size_t i;

	if (w->ntied == WINNER_MAX_TIED)
		return;
	for (i = w->ntied; i > 1 && winner_seconds(w->tied[i - 1]) > winner_seconds(r); i--)
		w->tied[i] = w->tied[i - 1];
	w->tied[i] = r;
	w->ntied++;
}

void winner_decide(const struct strategy_result *results, size_t n, struct winner *w)
{
	*w = (struct winner){ 0 };
	for (size_t i = 0; i < n; i++) {
		const struct strategy_result *res = &results[i];

		if (!competes(res))
			continue;
		if (!w->best || winner_seconds(res) < winner_seconds(w->best)) {
			w->next = w->best;
			w->best = res;
		} else if (!w->next || winner_seconds(res) < winner_seconds(w->next)) {
			w->next = res;
		}
	}
	if (!w->best)
		return;
	w->tied[w->ntied++] = w->best;
	for (size_t i = 0; i < n; i++)
		if (&results[i] != w->best && competes(&results[i]) && ranges_overlap(w->best, &results[i]))
			add_tied(w, &results[i]);
	w->clear = w->ntied == 1;
	if (w->clear)
		w->ntied = 0;
}

double winner_forecast(const struct strategy_result *res, int k)
{
	if (res->status != RESULT_OK)
		return 0;
	if (k < 0)
		return res->have_forecast ? res->forecast.seconds : 0;
	return k < RUNNER_WHAT_IF_MAX && res->have_what_if[k] ? res->what_if[k].seconds : 0;
}

double winner_projected(const struct strategy_result *res, int k)
{
	double p = k >= 0 ? winner_forecast(res, k) : 0;

	return p > 0 ? p : winner_seconds(res);
}

const struct strategy_result *winner_recommended(const struct strategy_result *results, size_t n, int k)
{
	const struct strategy_result *best = NULL;
	struct winner w;

	if (k < 0) {
		winner_decide(results, n, &w);
		return w.best;
	}
	for (size_t i = 0; i < n; i++)
		if (competes(&results[i]) &&
		    (!best || winner_projected(&results[i], k) < winner_projected(best, k)))
			best = &results[i];
	return best;
}
