/*
 * Which strategy was fastest, and whether that is beyond the noise of the
 * runs (--repeat): the table's "← fastest", the recommendation and the
 * JSON's "fastest" all ask here, so they never disagree.
 */
#include "report.h"

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
