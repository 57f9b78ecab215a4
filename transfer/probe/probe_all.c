/* Every probe in order, each bounded by the same budget: the ceilings of this pair of machines. */
#include "probe/probes.h"

#include "err.h"
#include "nospace.h"

#include <stdio.h>
#include <string.h>

int probe_all_network(const struct probe_plan *plan, struct probe_results *r,
		      void (*progress)(void *ctx, const char *what), void *ctx)
{
	memset(r, 0, sizeof(*r));
	if (probe_check_budget(plan->seconds) < 0)
		return -1;
	if (progress)
		progress(ctx, "network");
	if (probe_network(plan->agent, plan->streams, plan->seconds, r) < 0)
		return err_wrap("network probe");
	return 0;
}

int probe_all(const struct probe_plan *plan, struct probe_results *r,
	      void (*progress)(void *ctx, const char *what), void *ctx)
{
	if (probe_all_network(plan, r, progress, ctx) < 0)
		return -1;
	return probe_all_rest(plan, r, progress, ctx);
}

/*
 * A destination probe failed: what filled up is said with what to do (the
 * probes write more than the workload's space check asks for).
 */
static int destination_failed(const char *probe)
{
	char msg[ERR_MAX];

	if (!strstr(err_msg(), NOSPACE_TEXT))
		return err_wrap("%s", probe);
	snprintf(msg, sizeof(msg), "%s", err_msg());
	return err_set("%s: %s; free some space there or choose a --remote-dir with more room "
		       "(--disk-probe-size sets what the disk probe writes)", probe, msg);
}

int probe_all_rest(const struct probe_plan *plan, struct probe_results *r,
		   void (*progress)(void *ctx, const char *what), void *ctx)
{
	probe_hosts(plan->agent_info, plan->one_disk, r);
	if (progress)
		progress(ctx, "destination disk and metadata");
	if (probe_destination(plan->agent, plan->seconds, plan->disk_bytes, &plan->creates, r) < 0)
		return destination_failed("destination probe");
	/*
	 * A warm source is read from the page cache, not its disk, and the probe
	 * drops what it reads: run, it would turn --warm into a cold run.
	 */
	if (!plan->warm_source) {
		if (progress)
			progress(ctx, "source disk and metadata");
		if (probe_source_at(plan->src_root, plan->manifest, plan->seconds, &plan->opens, &plan->reads, r) < 0)
			return err_wrap("source probe");
		if (plan->one_disk) {
			if (progress)
				progress(ctx, "one disk read and written at once");
			if (probe_disk_at_once(plan->agent, plan->src_root, plan->manifest, plan->seconds,
					       &plan->reads, r) < 0)
				return destination_failed("disk probe");
		}
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

void probe_depths_add(struct probe_depths *d, unsigned depth)
{
	unsigned i;

	if (depth < 1)
		depth = 1;
	if (depth > PROBE_MAX_DEPTH)
		depth = PROBE_MAX_DEPTH;
	if (d->n == 0)
		d->depth[d->n++] = 1;
	for (i = 0; i < d->n; i++)
		if (d->depth[i] == depth)
			return;
	if (d->n == PROBE_DEPTHS_MAX) {
		if (depth < d->depth[d->n - 1])
			return;
		d->n--;
	}
	for (i = d->n; i > 0 && d->depth[i - 1] > depth; i--)
		d->depth[i] = d->depth[i - 1];
	d->depth[i] = depth;
	d->n++;
}

double probe_rate_at(const struct probe_rate *rates, unsigned n, unsigned depth)
{
	const struct probe_rate *lowest = NULL;
	double best = 0;

	for (unsigned i = 0; i < n; i++) {
		if (!(rates[i].per_s > 0))
			continue;
		if (rates[i].depth <= depth && rates[i].per_s > best)
			best = rates[i].per_s;
		if (!lowest || rates[i].depth < lowest->depth)
			lowest = &rates[i];
	}
	return best > 0 ? best : lowest ? lowest->per_s : 0;
}
