#ifndef XFERCMP_RUN_RECORD_H
#define XFERCMP_RUN_RECORD_H

/*
 * What one finished run of a strategy measured, as the model reads it: the
 * model's own record, filled by the runner (run/runner.h,
 * runner_record()), so the model depends on no runner struct and sees only
 * what a run measured. The median run's times; both ends' /proc samples
 * over it; what the sender counted.
 */

#include "sample/sampler.h"
#include "strategy/strategy.h"
#include "stream/xfer_stats.h"

#include <stdbool.h>

struct run_record {
	const struct strategy *strategy;
	double transfer_s, flush_s;	/* the median run's phases, seconds */
	double sender_own_s;		/* the sender's own stage (send_stats.own_s; 0: not measured) */
	struct send_stats sent;
	struct stream_sizing sizing;	/* a single raw stream's buffers */
	bool have_local, have_remote;
	struct sampler_summary local, remote;
	/* the create rate measured again after the run (files/s; 0: not) */
	double create_rechecked_per_s;
	char dest_fs[32];
	bool warm_source;
};

#endif
