#ifndef XFERCMP_FORECAST_H
#define XFERCMP_FORECAST_H

/*
 * The forecast: a strategy's time for a workload, made before the strategy
 * moves any byte of it, from what was known then: the probes, the
 * workload's counts and the strategy's declared traits (docs/MODEL.md).
 *
 * By construction it sees nothing a run measured: struct forecast_input
 * has no field a run fills, and this header and forecast.c never include
 * the run record (model/run_record.h); scripts/check-layers.sh refuses it
 * (scripts/layers.mk, FORBID_transfer/model/forecast).
 */

#include "model/resource.h"
#include "probe/probes.h"
#include "strategy/strategy.h"
#include "workload_counts.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Everything the forecast may use. */
struct forecast_input {
	const struct strategy *strategy;	/* its traits and flags */
	struct workload_counts work;		/* what it will move */
	const struct probe_results *probes;	/* the ceilings of this pair of hosts */
	unsigned streams;			/* a multi-stream strategy's streams (-P); 0 = 1 */
	bool warm_source;			/* --warm: the source is read from the page cache */
};

/* The link a forecast is made for: the probed one, or another (--what-if). */
struct link {
	double bytes_per_s;	/* the path's rate for the strategy's streams */
	double rtt_s;		/* one TCP round trip */
	double request_s;	/* one request of the strategy's protocol, host's work included */
};

/*
 * The stages of a pipeline that overlap (forecast.c). On one disk the reads
 * join the disk's stage when the transfer writes back (the tree outgrows the
 * destination's dirty threshold): the same resource, another stage.
 */
enum forecast_stage {
	STAGE_NET, STAGE_OPENS, STAGE_READS, STAGE_CREATES, STAGE_CPU, STAGE_DISK, STAGE_COUNT
};

struct forecast {
	double seconds;			/* the forecast; 0 when none could be made (why says so) */
	double low, high;		/* its range (docs/MODEL.md, "The range") */
	double need_s[RES_COUNT];	/* each resource's time at its ceiling for this work */
	double flush_s;			/* of seconds, the flush after the transfer */
	double flush_creates_s;		/* of flush_s, the creates' durable part (the rest: the writes) */
	double fixed_s;			/* of seconds, a run's fixed cost measured on one file (a
					 * sample's forecast: model/sample_forecast.h); 0: none */
	double once_s;			/* of seconds, a sample's forecast for a real tool over ssh:
					 * the sample's transfer its later bytes' rate leaves out,
					 * its connection's warm-up, paid once a run, not scaled
					 * (model/sample_forecast.c); 0: none */
	enum resource bound;		/* the resource that sets seconds */
	enum forecast_stage working;	/* the slowest overlapped stage: the one a sample's level
					 * calibrates (model/sample_forecast.c) */
	double off_link_s;		/* the slowest overlapped stage but the link's (a pipeline's) */
	double wire_bytes;		/* the bytes it expects on the wire */
	uint64_t requests;		/* round trips waited one after another */
	struct link link;		/* the link it was made for */
	char why[128];			/* "" when made; else why there is none */
};

/* The probed link for in's strategy: its rate at its streams and path, the round trips. */
void forecast_probed_link(const struct forecast_input *in, struct link *out);

/*
 * The forecast of in on link (NULL: the probed one). Returns 0, or -1 (error
 * set) on a bad input; a strategy whose traits are not declared, or probes
 * that measured too little, get seconds 0 and a why.
 */
int forecast_make(const struct forecast_input *in, const struct link *link, struct forecast *out);

/*
 * The concurrencies the probes must measure creates, opens and cold reads
 * at for the forecasts of list[0..n) run with `streams` (-P): 1, and each
 * strategy's depth at each end (times its streams for a multi-stream one);
 * the cold read at 1 and at a multi-stream strategy's streams.
 */
void forecast_depths(const struct strategy *const *list, size_t n, unsigned streams,
		     struct probe_depths *creates, struct probe_depths *opens,
		     struct probe_depths *reads);

#endif
