/*
 * The accounting of a run's measured time (accounting.h, docs/MODEL.md).
 * The needs are the forecast's stages for the work the run did, with what
 * the run counted where it counted it (bytes on the wire, round trips);
 * the shares split the measured time among them and add up to it.
 */
#include "model/accounting.h"
#include "model/model_text.h"

#include "err.h"

#include <math.h>
#include <string.h>

static unsigned streams_of(const struct forecast_input *in)
{
	return (in->strategy->flags & STRATEGY_MULTI_STREAM) && in->streams ? in->streams : 1;
}

/* The CPU the run's processes used over the cores they had (on one machine, both ends' together). */
static double measured_cpu(const struct run_record *run, bool one_machine)
{
	double here = 0, there = 0;

	if (run->have_local && run->local.cpus)
		here = run->local.procs_cpu_s / run->local.cpus;
	if (run->have_remote && run->remote.cpus)
		there = run->remote.procs_cpu_s / run->remote.cpus;
	return one_machine ? here + there : fmax(here, there);
}

/* The run's work at the probed ceilings, into out->need_s. */
static void needs(const struct run_record *run, const struct forecast_input *in,
		  const struct forecast *f, struct accounting *out)
{
	const struct probe_results *p = in->probes;
	unsigned n = streams_of(in);
	double wire = run->sent.wire_bytes ? (double)run->sent.wire_bytes : f->wire_bytes;

	memcpy(out->need_s, f->need_s, sizeof(out->need_s));
	out->need_s[RES_NETWORK] = f->link.bytes_per_s > 0 ? wire / f->link.bytes_per_s : 0;
	if (in->strategy->traits.serial && run->sent.round_trips > 0 && f->requests > 0) {
		/* the requests the run counted, each as the forecast charged one */
		double scale = (double)run->sent.round_trips / (double)f->requests;
		double wait = fmax(f->link.rtt_s - p->rtt_cpu_s, 0) * (double)f->requests / n;
		double work = fmax(f->link.request_s - fmax(f->link.rtt_s - p->rtt_cpu_s, 0), 0) *
			      (double)f->requests / n;

		out->need_s[RES_LATENCY] += wait * (scale - 1);
		out->need_s[RES_METADATA] += work * (scale - 1);
	}
	out->need_s[RES_CPU] = fmax(out->need_s[RES_CPU], measured_cpu(run, p->one_machine));
}

/* Splits x seconds of transfer among the needs (see docs/MODEL.md); what none explains is other. */
static void split_transfer(const struct forecast_input *in, double x, struct accounting *out,
			   double part[RES_COUNT + 1])
{
	double sum = 0;

	memset(part, 0, sizeof(double) * (RES_COUNT + 1));
	if (in->strategy->traits.serial) {
		/* each file waits every stage in turn: the stages add (the CPU runs inside them) */
		for (int r = 0; r < RES_COUNT; r++)
			if (r != RES_CPU)
				sum += part[r] = out->need_s[r];
		if (out->need_s[RES_CPU] > sum) {
			memset(part, 0, sizeof(double) * RES_COUNT);
			sum = part[RES_CPU] = out->need_s[RES_CPU];
		}
		if (sum > x)
			for (int r = 0; r < RES_COUNT; r++)
				part[r] *= x / sum;
	} else {
		/* the handshakes and the ramp first, then the slowest of the overlapped stages */
		enum resource b = RES_NETWORK;

		part[RES_LATENCY] = fmin(out->need_s[RES_LATENCY], x);
		for (int r = 0; r < RES_COUNT; r++)
			if (r != RES_LATENCY && out->need_s[r] > out->need_s[b])
				b = (enum resource)r;
		part[b] = fmin(out->need_s[b], x - part[RES_LATENCY]);
	}
	sum = 0;
	for (int r = 0; r < RES_COUNT; r++)
		sum += part[r];
	part[RES_COUNT] = x > sum ? x - sum : 0;
}

static void loads(const struct run_record *run, double x, struct accounting *out)
{
	for (int r = 0; r < RES_COUNT; r++)
		out->load[r] = x > 0 && r != RES_LATENCY ? out->need_s[r] / x : -1;
	out->load[RES_CPU] = -1;
	if (run->have_local)
		out->load[RES_CPU] = run->local.cpu_busy;
	if (run->have_remote && run->remote.cpu_busy > out->load[RES_CPU])
		out->load[RES_CPU] = run->remote.cpu_busy;
}

int accounting_make(const struct run_record *run, const struct forecast_input *in,
		    struct accounting *out)
{
	double t = run->transfer_s + run->flush_s, part[RES_COUNT + 1];
	struct forecast f;
	enum resource flush_to;

	if (!(t > 0) || !isfinite(t))
		return err_set("cannot account for a run of %g seconds", t);
	if (forecast_make(in, NULL, &f) < 0)
		return -1;
	memset(out, 0, sizeof(*out));
	out->measured_s = t;
	out->verdict = out->close_behind = RES_COUNT;
	needs(run, in, &f, out);
	split_transfer(in, run->transfer_s, out, part);
	/* the flush phase, measured, is the destination's: its durable writes or its creates' */
	flush_to = f.flush_s > 0 && f.flush_creates_s > f.flush_s / 2 ? RES_METADATA : RES_DISK;
	part[flush_to] += run->flush_s;
	for (int r = 0; r <= RES_COUNT; r++)
		out->share[r] = part[r] / t;
	for (int r = 0; r < RES_COUNT; r++)
		if (out->share[r] > 0 && (out->verdict == RES_COUNT || out->share[r] > out->share[out->verdict]))
			out->verdict = (enum resource)r;
	loads(run, run->transfer_s, out);
	for (int r = 0; r < RES_COUNT; r++) {
		if (r != RES_CPU && out->load[r] > ACCOUNTING_UNDERSTATED)
			out->understated |= 1u << r;
		if (out->verdict == RES_COUNT || r == (int)out->verdict)
			continue;
		if ((out->load[r] >= ACCOUNTING_CLOSE_BEHIND ||
		     out->need_s[r] >= ACCOUNTING_CLOSE_BEHIND * out->need_s[out->verdict]) &&
		    (out->close_behind == RES_COUNT || out->need_s[r] > out->need_s[out->close_behind]))
			out->close_behind = (enum resource)r;
	}
	model_text_reason(run, in, &f, out);
	return 0;
}
