/*
 * Which strategy was fastest, and whether that is beyond the noise of the
 * runs (--repeat): the table's "← fastest", the recommendation and the
 * JSON's "fastest" all ask here, so they never disagree; and which one the
 * recommendation names, which --explain reruns by default.
 */
#include "report/report.h"


double report_seconds(const struct strategy_result *r)
{
	return r->median.transfer + r->median.flush;
}

void report_winner(const struct report *r, struct report_winner *w)
{
	*w = (struct report_winner){ 0 };
	for (size_t i = 0; i < r->nresults; i++) {
		const struct strategy_result *res = &r->results[i];

		if (res->status != RESULT_OK || !res->runs)
			continue;
		if (!w->best || report_seconds(res) < report_seconds(w->best)) {
			w->next = w->best;
			w->best = res;
		} else if (!w->next || report_seconds(res) < report_seconds(w->next)) {
			w->next = res;
		}
	}
	w->clear = w->best && (!w->next || stats_differ(&w->best->time, &w->next->time));
}

int report_noise_text(const struct report_winner *w, char *buf, size_t len)
{
	if (!w->best || w->clear)
		return 0;
	return snprintf(buf, len,
			"no clear winner between %s (%.2f ± %.2f s) and %s (%.2f ± %.2f s): "
			"the difference is within the runs' noise",
			w->best->strategy->name, w->best->time.mean, w->best->time.sd,
			w->next->strategy->name, w->next->time.mean, w->next->time.sd);
}

double report_forecast(const struct report *r, const struct strategy_result *res,
		       const struct what_if *w)
{
	size_t k = w ? (size_t)(w - r->what_if) : 0;

	if (res->status != RESULT_OK)
		return 0;
	if (!w)
		return res->have_forecast ? res->forecast.seconds : 0;
	return k < r->nwhat_if && k < RUNNER_WHAT_IF_MAX && res->have_what_if[k] ? res->what_if[k].seconds : 0;
}

double report_projected(const struct report *r, const struct strategy_result *res,
			const struct what_if *w)
{
	double p = w ? report_forecast(r, res, w) : 0;

	/* only a sample moved: the whole's forecast from it is what a strategy will take */
	if (!w && report_sample_only(r) && report_whole_forecast(res) > 0)
		p = report_whole_forecast(res);
	return p > 0 ? p : report_seconds(res);
}

const struct what_if *report_recommend_link(const struct report *r)
{
	/* a scenario needs the model: without probes there is only what was measured here */
	return r->nwhat_if && r->probes ? &r->what_if[0] : NULL;
}

const struct strategy_result *report_recommended(const struct report *r)
{
	const struct what_if *w = report_recommend_link(r);
	const struct strategy_result *best = NULL;
	struct report_winner win;

	for (size_t i = 0; i < r->nresults; i++) {
		const struct strategy_result *res = &r->results[i];

		if (res->status != RESULT_OK || !res->runs)
			continue;
		if (!best || report_projected(r, res, w) < report_projected(r, best, w))
			best = res;
	}
	if (!best)
		return NULL;
	report_winner(r, &win);
	/*
	 * On this link the measured runs decide: when the two fastest are within
	 * their noise (--repeat) there is no winner, and the fastest measured is
	 * named as one of the two. A what-if link is the model's alone, and
	 * so is the whole when only a sample of it moved.
	 */
	return !w && !win.clear && !report_sample_only(r) ? win.best : best;
}
