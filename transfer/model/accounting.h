#ifndef XFERCMP_ACCOUNTING_H
#define XFERCMP_ACCOUNTING_H

/*
 * The accounting: where a run's measured time went (docs/MODEL.md, "The
 * accounting"). It adds up to the measured time by construction, from
 * everything the run measured, and claims no accuracy: it is no forecast.
 * Beside the shares, each resource's load during the run, so a resource
 * close behind the verdict reads as such.
 */

#include "model/forecast.h"
#include "model/resource.h"
#include "model/run_record.h"

#include <stdbool.h>

/*
 * A resource loaded at least this much (its work at its ceiling over the
 * transfer's time), or needing at least this share of what the verdict's
 * resource needs, is close behind: relieving the verdict's resource alone
 * gains little before this one binds.
 */
#define ACCOUNTING_CLOSE_BEHIND 0.75

/* A resource loaded more than this ran faster than its probe said it can: the probe understated it. */
#define ACCOUNTING_UNDERSTATED 1.10

struct accounting {
	double measured_s;		/* transfer and flush, the run's time */
	double share[RES_COUNT + 1];	/* network, latency, disk, metadata, cpu, other: they add to 1 */
	/*
	 * Each resource's load during the run: its work at its probed ceiling
	 * over the transfer's time (the link, the creates and opens, the
	 * disk's reads and durable writes), the disk also as its samplers saw
	 * it busy, the CPU as the machine was busy. -1: not known.
	 */
	double load[RES_COUNT];
	double need_s[RES_COUNT];	/* the run's work at the probed ceilings */
	enum resource verdict;		/* the largest share; RES_COUNT when none */
	enum resource close_behind;	/* a resource close behind the verdict's (RES_COUNT: none) */
	unsigned understated;		/* 1 << resource: ceilings the run beat (said in the note) */
	char reason[256];		/* the numbers behind the verdict */
	char note[384];			/* close behind, understated ceilings; "" when none */
};

/*
 * Accounts for run (its median run) against the probes; in says what ran
 * and on which workload (its forecast input). Returns 0, or -1 (error set)
 * when the run has no time to account for.
 */
int accounting_make(const struct run_record *run, const struct forecast_input *in,
		    struct accounting *out);

#endif
