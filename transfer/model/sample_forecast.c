/* The whole from a sample's run (sample_forecast.h, docs/MODEL.md "From a sample"). */
#include "model/sample_forecast.h"

#include "err.h"

#include <math.h>
#include <stdio.h>

/* The part of a forecast its overlapped stages (or its serial stages) take: all but the handshakes, ramp and flush. */
static double working(const struct forecast *f)
{
	double rest = f->seconds - f->need_s[RES_LATENCY] - f->flush_s;

	/* a serial strategy's waits on the wire scale with its requests: they are work here */
	if (f->requests > 0)
		rest = f->seconds - f->flush_s;
	return rest > 0 ? rest : 0;
}

int sample_forecast(const struct forecast_input *whole, const struct forecast_input *sample,
		    const struct sample_run *run, struct forecast *out)
{
	struct forecast w, s;
	double measured = run->transfer_s + run->flush_s, level, setup, flush;

	if (!(measured > 0) || !isfinite(measured))
		return err_set("a sample run of %g seconds forecasts nothing", measured);
	if (forecast_make(whole, NULL, &w) < 0 || forecast_make(sample, NULL, &s) < 0)
		return -1;
	*out = w;
	if (!(w.seconds > 0) || !(s.seconds > 0)) {
		out->seconds = out->low = out->high = 0;
		if (!out->why[0])
			snprintf(out->why, sizeof(out->why), "%s", s.why[0] ? s.why : "no forecast of the sample");
		return 0;
	}
	/* the handshakes and the ramp do not grow with the tree; the sample's share of them is as forecast */
	setup = s.requests > 0 ? 0 : s.need_s[RES_LATENCY];
	/* how the sample's run stood to the model: its working time against the model's */
	level = working(&s) > 0 ? fmax(run->transfer_s - setup, 0) / working(&s) : 1;
	flush = s.flush_s > 0 ? w.flush_s * run->flush_s / s.flush_s : w.flush_s;
	out->seconds = (w.requests > 0 ? 0 : w.need_s[RES_LATENCY]) + level * working(&w) + flush;
	out->flush_s = flush;
	out->low = out->seconds * fmin(run->min_s / measured, 1);
	out->high = out->seconds * fmax(run->max_s / measured, 1);
	/* another stage bounds the whole: the sample calibrated the wrong one, so the model's own may stand */
	if (w.bound != s.bound) {
		out->low = fmin(out->low, w.seconds);
		out->high = fmax(out->high, w.seconds);
	}
	return 0;
}
