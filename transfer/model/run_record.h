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
	struct send_stats sent;
	bool have_local, have_remote;
	struct sampler_summary local, remote;
};

#endif
