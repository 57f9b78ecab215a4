#ifndef XFERCMP_VERDICT_H
#define XFERCMP_VERDICT_H

/*
 * From one strategy's result and the probed ceilings to the attribution
 * arithmetic's inputs: which ceiling applies to which strategy (one stream or
 * several, compressed or not, per-file round trips or a stream) is decided
 * here, from the strategy's flags, and nowhere else.
 */

#include "model/attribution.h"
#include "probe/probes.h"
#include "model/run_record.h"

void verdict_inputs(const struct run_record *r, const struct probe_results *p,
		    struct attribution_input *in, struct ceilings *c);

/*
 * The files a strategy keeps in flight at the destination (its depth times
 * its streams), and the probes' create rate at that depth (files/s, 0 =
 * not measured): the metadata ceiling verdict_inputs() gives it, before any
 * rate measured again after its run (create_rechecked_per_s).
 */
unsigned verdict_create_depth(const struct strategy *s, const struct probe_results *p);
double verdict_create_ceiling(const struct strategy *s, const struct probe_results *p);

/* Fills out for a run that ran; false when there are no probes or the run's time is no time. */
bool verdict_compute(const struct run_record *r, const struct probe_results *p,
		     struct attribution *out);

/*
 * The concurrencies the probes measure creates and opens at for list[0..n)
 * run with `streams` (-P): 1, and each strategy's depth (times the streams
 * for a multi-stream one); the cold read at 1 and at the streams of a
 * multi-stream one.
 */
void verdict_depths(const struct strategy *const *list, size_t n, unsigned streams,
		    struct probe_depths *creates, struct probe_depths *opens,
		    struct probe_depths *reads);

#endif
