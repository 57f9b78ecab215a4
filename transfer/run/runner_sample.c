/* The whole's forecast from a sample's runs (runner.h, runner_forecast_whole). */
#include "run/runner.h"

#include "err.h"
#include "model/sample_forecast.h"
#include "wallclock.h"

#include <stdio.h>

void runner_forecast_whole(const struct runner_opts *o, const struct manifest *whole,
			   const struct manifest *sample, struct strategy_result *results, size_t n)
{
	if (!o->probes)
		return;
	for (size_t i = 0; i < n; i++) {
		struct strategy_result *r = &results[i];
		struct forecast_input w, s;
		struct sample_run run = {
			.transfer_s = r->median.transfer,
			.flush_s = r->median.flush,
			.min_s = r->min_seconds,
			.max_s = r->max_seconds,
		};

		if (r->status != RESULT_OK || !r->runs)
			continue;
		runner_forecast_input(o, r->strategy, whole, &w);
		runner_forecast_input(o, r->strategy, sample, &s);
		wallclock_now(r->forecast_made_at, sizeof(r->forecast_made_at));
		r->forecast_from_sample = true;
		err_clear();
		if (sample_forecast(&w, &s, &run, &r->forecast) < 0) {
			r->forecast.seconds = 0;
			snprintf(r->forecast.why, sizeof(r->forecast.why), "%s", err_msg());
		}
		r->have_forecast = r->forecast.seconds > 0;
	}
}

double runner_forecast_total(const struct runner_opts *o, const struct strategy *const *list, size_t n,
			     const struct manifest *m)
{
	double total = 0;

	if (!o->probes)
		return 0;
	for (size_t i = 0; i < n; i++) {
		struct forecast_input in;
		struct forecast f;

		runner_forecast_input(o, list[i], m, &in);
		if (forecast_make(&in, NULL, &f) == 0 && f.seconds > 0)
			total += f.seconds * (o->repeat ? o->repeat : 1);
	}
	err_clear();
	return total;
}
