/* The whole's forecast from a sample's runs (runner.h, runner_forecast_whole). */
#include "run/runner.h"

#include "err.h"
#include "model/sample_forecast.h"
#include "sample/series_progress.h"
#include "wallclock.h"

#include <stdio.h>

/* The fixed cost of results[i]'s strategy from its one-file run (none: 0, the model's handshakes stand). */
static void fixed_cost(const struct runner_opts *o, const struct runner_fixed *fixed, size_t i,
		       struct sample_run *run)
{
	const struct strategy_result *f;
	struct forecast_input in;
	struct forecast one;

	if (!fixed || !fixed->results)
		return;
	f = &fixed->results[i];
	if (f->status != RESULT_OK || !f->runs || !(f->median.transfer > 0))
		return;
	runner_forecast_input(o, f->strategy, fixed->m, &in);
	if (forecast_make(&in, NULL, &one) < 0 || !(one.seconds > 0)) {
		err_clear();
		return;
	}
	run->fixed_s = f->median.transfer;
	run->fixed_latency_s = one.need_s[RES_LATENCY];
}

/*
 * The median run's transfer at its later bytes' rate (sample_run.later_s),
 * from the client's series of the link towards the host. The series'
 * window opens a local request before the transfer's clock starts: the
 * moment read from it is late by that much, no more.
 */
static void later_rate(const struct strategy_result *r, struct sample_run *run)
{
	for (int k = 0; k < SAMPLE_SPLITS; k++) {
		double at = r->have_local ? series_time_at_fraction(&r->local, SAMPLE_SPLIT_AT(k)) : -1;

		run->later_s[k] = at >= 0 && at < r->median.transfer ?
				  (r->median.transfer - at) / (1 - SAMPLE_SPLIT_AT(k)) : 0;
	}
}

void runner_forecast_whole(const struct runner_opts *o, const struct manifest *whole,
			   const struct manifest *sample, const struct runner_fixed *fixed,
			   struct strategy_result *results, size_t n)
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
		fixed_cost(o, fixed, i, &run);
		later_rate(r, &run);
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
