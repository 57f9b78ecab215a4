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

/*
 * What a run of f takes whatever its working size: kept as it is, not
 * scaled by the level. Without a fixed cost, the model's handshakes and
 * ramp (none for a serial strategy: its waits grow with its requests, they
 * are working time). With one, the fixed cost measured on one file plus
 * the ramp beyond that file's: the one-file run made the same connections
 * and handshakes as any run, so they are in it already (adding the model's
 * setup on top would count them twice), and its slow start stopped at one
 * file's bytes, where a tree goes on up to the path's window (the model's
 * ramp for f against its ramp for the one file). The one file's own work
 * is in the fixed cost too: one file, next to a sample's thousands.
 */
static double unscaled(const struct forecast *f, const struct sample_run *run)
{
	double latency = f->requests > 0 ? 0 : f->need_s[RES_LATENCY];

	if (!(run->fixed_s > 0))
		return latency;
	return run->fixed_s + fmax(latency - run->fixed_latency_s, 0);
}

/*
 * A real tool over ssh opens an OpenSSH connection of its own each run,
 * whose sshd warms up on its first megabytes (docs/MODEL.md, "What it
 * leaves out"): its sample run pays that, its one-file run does not, and
 * its whole pays it once more, not once per sample's worth.
 */
static bool own_connection(const struct strategy *st)
{
	return st && (st->flags & STRATEGY_REFERENCE) && (st->flags & STRATEGY_SSH);
}

/*
 * The whole with once seconds of the sample's scaled work paid once a run
 * instead: the rest calibrates the level. base: the sample's transfer
 * beyond what does not scale.
 */
static double whole_paying_once(const struct forecast *w, const struct forecast *s,
				const struct sample_run *run, double base, double once, double flush)
{
	return unscaled(w, run) + once + (base - once) / working(s) * working(w) + flush;
}

/*
 * A connection of its own with a series of the link: the sample's transfer
 * beyond the fixed cost that its later bytes' rate leaves out is the
 * warm-up, paid once (docs/MODEL.md, "From a sample"). The split at half
 * the bytes is the forecast; the splits at a quarter and three quarters
 * widen its range, since where the warm-up ends is not known. Returns
 * false when there is no series to split by.
 */
static bool split_by_later_rate(const struct forecast *w, const struct forecast *s,
				const struct sample_run *run, double base, double flush, struct forecast *out)
{
	double at[SAMPLE_SPLITS];

	if (!(run->later_s[SAMPLE_SPLIT_MID] > 0) || !(working(s) > 0))
		return false;
	for (int k = 0; k < SAMPLE_SPLITS; k++)
		at[k] = run->later_s[k] > 0 ? whole_paying_once(w, s, run, base, fmax(base - run->later_s[k], 0), flush)
					    : NAN;
	out->once_s = fmax(base - run->later_s[SAMPLE_SPLIT_MID], 0);
	out->seconds = at[SAMPLE_SPLIT_MID];
	for (int k = 0; k < SAMPLE_SPLITS; k++)
		if (isfinite(at[k])) {
			out->low = fmin(out->low, at[k]);
			out->high = fmax(out->high, at[k]);
		}
	return true;
}

int sample_forecast(const struct forecast_input *whole, const struct forecast_input *sample,
		    const struct sample_run *run, struct forecast *out)
{
	struct forecast w, s, split = { .low = INFINITY, .high = 0 };
	double measured = run->transfer_s + run->flush_s, base, level, flush;

	if (!(measured > 0) || !isfinite(measured))
		return err_set("a sample run of %g seconds forecasts nothing", measured);
	if (!(run->fixed_s >= 0) || !isfinite(run->fixed_s) || !(run->fixed_latency_s >= 0))
		return err_set("a fixed cost of %g seconds is no cost", run->fixed_s);
	if (forecast_make(whole, NULL, &w) < 0 || forecast_make(sample, NULL, &s) < 0)
		return -1;
	*out = w;
	if (!(w.seconds > 0) || !(s.seconds > 0)) {
		out->seconds = out->low = out->high = 0;
		if (!out->why[0])
			snprintf(out->why, sizeof(out->why), "%s", s.why[0] ? s.why : "no forecast of the sample");
		return 0;
	}
	/* how the sample's run stood to the model: its working time against the model's */
	base = fmax(run->transfer_s - unscaled(&s, run), 0);
	level = working(&s) > 0 ? base / working(&s) : 1;
	flush = s.flush_s > 0 ? w.flush_s * run->flush_s / s.flush_s : w.flush_s;
	out->seconds = unscaled(&w, run) + level * working(&w) + flush;
	out->flush_s = flush;
	out->fixed_s = run->fixed_s;
	/* without a series of the link, a connection's warm-up cannot be told from work: it scales */
	if (own_connection(whole->strategy) && split_by_later_rate(&w, &s, run, base, flush, &split)) {
		out->seconds = split.seconds;
		out->once_s = split.once_s;
	}
	/* the runs' spread, and the other splits' forecasts when there are (split's range is empty else) */
	out->low = fmin(out->seconds * fmin(run->min_s / measured, 1), split.low);
	out->high = fmax(out->seconds * fmax(run->max_s / measured, 1), split.high);
	/*
	 * Another stage bounds the whole: the sample calibrated the wrong one,
	 * so the model's own may stand. The bound alone misses it when the
	 * sample's flush is its bound: a sample under the dirty threshold,
	 * bound by its flush, its transfer by the link, and a whole whose
	 * transfer writes back and reads on one disk, bound by that disk, has
	 * the disk for both bounds but a level measured on the link.
	 */
	if (w.bound != s.bound || (!s.requests && w.working != s.working)) {
		out->low = fmin(out->low, w.seconds);
		out->high = fmax(out->high, w.seconds);
	}
	return 0;
}
