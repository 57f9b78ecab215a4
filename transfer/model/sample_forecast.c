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

int sample_forecast(const struct forecast_input *whole, const struct forecast_input *sample,
		    const struct sample_run *run, struct forecast *out)
{
	struct forecast w, s;
	double measured = run->transfer_s + run->flush_s, level, flush;

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
	level = working(&s) > 0 ? fmax(run->transfer_s - unscaled(&s, run), 0) / working(&s) : 1;
	flush = s.flush_s > 0 ? w.flush_s * run->flush_s / s.flush_s : w.flush_s;
	out->seconds = unscaled(&w, run) + level * working(&w) + flush;
	out->flush_s = flush;
	out->fixed_s = run->fixed_s;
	out->low = out->seconds * fmin(run->min_s / measured, 1);
	out->high = out->seconds * fmax(run->max_s / measured, 1);
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
	/*
	 * With its own connection, what the sample's run took beyond the
	 * model's working time may be that connection's warm-up, paid once a
	 * run, or a per-file or per-byte cost the probes do not see (rsync's
	 * checksums): one run cannot tell them apart. The forecast scales it
	 * (the second); low keeps it whole, once (the first).
	 */
	if (own_connection(whole->strategy) && level > 1) {
		out->once_s = (level - 1) * working(&s);
		out->low = fmin(out->low, unscaled(&w, run) + working(&w) + out->once_s + flush);
	}
	return 0;
}
