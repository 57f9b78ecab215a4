/* Every probe in order, each bounded by the same budget: the ceilings of this pair of machines. */
#include "measure/probes.h"

#include "err.h"

#include <stdio.h>
#include <string.h>

int probe_all(const struct probe_plan *plan, struct probe_results *r,
	      void (*progress)(void *ctx, const char *what), void *ctx)
{
	memset(r, 0, sizeof(*r));
	if (probe_check_budget(plan->seconds) < 0)
		return -1;
	if (progress)
		progress(ctx, "network");
	if (probe_network(plan->agent, plan->streams, plan->seconds, r) < 0)
		return err_wrap("network probe");
	if (progress)
		progress(ctx, "destination disk and metadata");
	if (probe_destination(plan->agent, plan->seconds, plan->disk_bytes, r) < 0)
		return err_wrap("destination probe");
	/*
	 * A warm source is read from the page cache, not its disk, and the probe
	 * drops what it reads: run, it would turn --warm into a cold run.
	 */
	if (!plan->warm_source) {
		if (progress)
			progress(ctx, "source disk and metadata");
		if (probe_source(plan->src_root, plan->manifest, plan->seconds, r) < 0)
			return err_wrap("source probe");
	}
	if (progress)
		progress(ctx, "zstd");
	if (probe_zstd(plan->src_root, plan->manifest, plan->zstd_level, plan->zstd_threads,
		       plan->seconds, r) < 0)
		return err_wrap("zstd probe");
	if (plan->ssh_session) {
		if (progress)
			progress(ctx, "ssh");
		if (probe_ssh(plan->ssh_session, plan->seconds, r) < 0)
			return err_wrap("ssh probe");
	}
	return 0;
}
