/* Every probe in order, each bounded by the same budget: the ceilings of this pair of machines. */
#include "probe/probes.h"

#include "err.h"
#include "nospace.h"

#include <stdio.h>
#include <string.h>

/* Whether plan runs the probe of that kind. */
static bool plan_runs(const struct probe_plan *plan, enum probe_kind kind)
{
	switch (kind) {
	case PROBE_SOURCE:
		return !plan->warm_source;
	case PROBE_SHARED_DISK:
		return !plan->warm_source && plan->one_disk;
	case PROBE_SSH:
		return plan->ssh_session != NULL;
	default:
		return true;
	}
}

unsigned probe_plan_count(const struct probe_plan *plan)
{
	unsigned n = 0;

	for (int k = 0; k < PROBE_KINDS; k++)
		n += plan_runs(plan, (enum probe_kind)k);
	return n;
}

/* Tells plan's progress that the probe of that kind begins (done NULL) or ended. */
static void tell(const struct probe_plan *plan, enum probe_kind kind, const struct probe_results *done)
{
	static const char *const names[PROBE_KINDS] = {
		[PROBE_NETWORK] = "network", [PROBE_DESTINATION] = "destination", [PROBE_SOURCE] = "source",
		[PROBE_SHARED_DISK] = "shared disk", [PROBE_ZSTD] = "zstd", [PROBE_SSH] = "ssh",
	};
	struct probe_step step = { .kind = kind, .name = names[kind], .count = probe_plan_count(plan),
				   .done = done };

	if (!plan->progress)
		return;
	for (int k = 0; k <= (int)kind; k++)
		step.index += plan_runs(plan, (enum probe_kind)k);
	plan->progress(plan->progress_ctx, &step);
}

int probe_all_network(const struct probe_plan *plan, struct probe_results *r)
{
	memset(r, 0, sizeof(*r));
	if (probe_check_budget(plan->seconds) < 0)
		return -1;
	tell(plan, PROBE_NETWORK, NULL);
	if (probe_network(plan->agent, plan->streams, plan->seconds, r) < 0)
		return err_wrap("network probe");
	tell(plan, PROBE_NETWORK, r);
	return 0;
}

int probe_all(const struct probe_plan *plan, struct probe_results *r)
{
	if (probe_all_network(plan, r) < 0)
		return -1;
	return probe_all_rest(plan, r);
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

int probe_all_rest(const struct probe_plan *plan, struct probe_results *r)
{
	probe_hosts(plan->agent_info, plan->one_disk, r);
	tell(plan, PROBE_DESTINATION, NULL);
	if (probe_destination(plan->agent, plan->seconds, plan->disk_bytes, &plan->creates, r) < 0)
		return destination_failed("destination probe");
	tell(plan, PROBE_DESTINATION, r);
	/*
	 * A warm source is read from the page cache, not its disk, and the probe
	 * drops what it reads: run, it would turn --warm into a cold run.
	 */
	if (plan_runs(plan, PROBE_SOURCE)) {
		tell(plan, PROBE_SOURCE, NULL);
		if (probe_source_at(plan->src_root, plan->manifest, plan->seconds, &plan->opens, &plan->reads, r) < 0)
			return err_wrap("source probe");
		tell(plan, PROBE_SOURCE, r);
	}
	if (plan_runs(plan, PROBE_SHARED_DISK)) {
		tell(plan, PROBE_SHARED_DISK, NULL);
		if (probe_disk_at_once(plan->agent, plan->src_root, plan->manifest, plan->seconds,
				       &plan->reads, r) < 0)
			return destination_failed("disk probe");
		tell(plan, PROBE_SHARED_DISK, r);
	}
	tell(plan, PROBE_ZSTD, NULL);
	if (probe_zstd(plan->src_root, plan->manifest, plan->zstd_level, plan->zstd_threads,
		       plan->seconds, r) < 0)
		return err_wrap("zstd probe");
	tell(plan, PROBE_ZSTD, r);
	if (plan_runs(plan, PROBE_SSH)) {
		tell(plan, PROBE_SSH, NULL);
		if (probe_ssh(plan->ssh_session, plan->seconds, r) < 0)
			return err_wrap("ssh probe");
		tell(plan, PROBE_SSH, r);
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
