/*
 * The report's view of the one winner (run/winner.h decides it): the
 * table's "← fastest", the recommendation, the JSON's "fastest" and the
 * HTML all ask here, so they never disagree; and which one the
 * recommendation names, which --explain reruns by default.
 */
#include "report/report.h"

#include <stdio.h>
#include <stdlib.h>

double report_seconds(const struct strategy_result *r)
{
	return winner_seconds(r);
}

void report_winner(const struct report *r, struct winner *w)
{
	winner_decide(r->results, r->nresults, w);
}

int report_noise_text(const struct winner *w, char *buf, size_t len)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f;
	int n;

	if (!w->best || w->clear || !len || !(f = open_memstream(&text, &size)))
		return 0;
	fputs("no clear winner between ", f);
	for (size_t i = 0; i < w->ntied; i++) {
		const struct strategy_result *t = w->tied[i];

		fprintf(f, "%s%s (%.2f ± %.2f s, %.2f–%.2f)", !i ? "" : i + 1 == w->ntied ? " and " : ", ",
			t->strategy->name, t->time.mean, t->time.sd, t->time.min, t->time.max);
	}
	fputs(": a tie within the runs' noise (their ranges overlap)", f);
	if (fclose(f) != 0 || !text) {
		free(text);
		return 0;
	}
	n = snprintf(buf, len, "%s", text);
	free(text);
	return n < 0 ? 0 : (size_t)n < len ? n : (int)len - 1;
}

/* r's --what-if link w as run/winner.h's index, -1 for this link */
static int link_index(const struct report *r, const struct what_if *w)
{
	size_t k = w ? (size_t)(w - r->what_if) : 0;

	return w && k < r->nwhat_if && k < RUNNER_WHAT_IF_MAX ? (int)k : -1;
}

double report_forecast(const struct report *r, const struct strategy_result *res,
		       const struct what_if *w)
{
	if (w && link_index(r, w) < 0)
		return 0;
	return winner_forecast(res, link_index(r, w));
}

double report_projected(const struct report *r, const struct strategy_result *res,
			const struct what_if *w)
{
	/* only a sample moved: the whole's forecast from it is what a strategy will take */
	if (!w && report_sample_only(r) && report_whole_forecast(res) > 0)
		return report_whole_forecast(res);
	return winner_projected(res, link_index(r, w));
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

	/* only a sample moved: the whole is the model's, the least forecast for it */
	for (size_t i = 0; !w && report_sample_only(r) && i < r->nresults; i++) {
		const struct strategy_result *res = &r->results[i];

		if (report_whole_forecast(res) > 0 &&
		    (!best || report_whole_forecast(res) < report_whole_forecast(best)))
			best = res;
	}
	return best ? best : winner_recommended(r->results, r->nresults, link_index(r, w));
}
