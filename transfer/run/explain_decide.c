/*
 * --explain's causal verdict (explain.h): from an item's ablations, the
 * resource whose removal saved most, split into disk or metadata by the
 * workload at its ceilings; and the names of the removals. The runs are
 * explain.c's; the reports render what this decided (cmd/report).
 */
#include "run/explain.h"

#include <math.h>

static const char *const removed_names[EXPLAIN_REMOVED_COUNT] = {
	[EXPLAIN_DEST_DISK] = "dest_disk",
	[EXPLAIN_DURABLE_WRITE] = "durable_write",
	[EXPLAIN_SOURCE_DISK] = "source_disk",
	[EXPLAIN_NETWORK] = "network",
	[EXPLAIN_CIPHER] = "cipher",
};

static const char *const removed_texts[EXPLAIN_REMOVED_COUNT] = {
	[EXPLAIN_DEST_DISK] = "the destination disk (null sink)",
	[EXPLAIN_DURABLE_WRITE] = "durable writes (tmpfs)",
	[EXPLAIN_SOURCE_DISK] = "the source disk (warm)",
	[EXPLAIN_NETWORK] = "the network (loopback)",
	[EXPLAIN_CIPHER] = "the cipher cost",
};

const char *explain_removed_name(enum explain_removed r)
{
	return r < EXPLAIN_REMOVED_COUNT ? removed_names[r] : "?";
}

const char *explain_removed_text(enum explain_removed r)
{
	return r < EXPLAIN_REMOVED_COUNT ? removed_texts[r] : "?";
}

const char *explain_status_name(enum explain_status s)
{
	switch (s) {
	case EXPLAIN_OK: return "ok";
	case EXPLAIN_SKIPPED: return "skipped";
	case EXPLAIN_FAILED: return "failed";
	default: return "not_run";
	}
}

/* Network and latency are both the link: loopback takes both away. */
static enum resource link_class(enum resource r)
{
	return r == RES_LATENCY ? RES_NETWORK : r;
}

/* Disk or metadata for one end's work: files at the create (open) rate against bytes at the write (read) rate. */
static enum resource split_end(uint64_t files, uint64_t bytes, double per_s, double bps)
{
	if (per_s > 0 && bps > 0)
		return (double)files / per_s > (double)bytes / bps ? RES_METADATA : RES_DISK;
	return files && bytes / files <= (64u << 10) ? RES_METADATA : RES_DISK;
}

double explain_reference(const struct explain_item *it)
{
	return it->control_status == EXPLAIN_OK && it->control_seconds > 0 ? it->control_seconds
									  : it->baseline_seconds;
}

void explain_check_baseline(struct explain_item *it)
{
	double b = it->baseline_seconds, c = it->control_seconds, noise;

	it->baseline_outlier = false;
	if (it->control_status != EXPLAIN_OK || !(b > 0) || !(c > 0))
		return;
	noise = EXPLAIN_NOISE * (b > c ? b : c);
	if (it->result && it->result->time.n > 1 && it->result->time.max - it->result->time.min > noise)
		noise = it->result->time.max - it->result->time.min;
	it->baseline_outlier = fabs(b - c) > noise;
}

void explain_decide(struct explain_item *it, uint64_t files, uint64_t bytes, double create_per_s,
		    double write_bps, double open_per_s, double read_bps)
{
	double best = EXPLAIN_NOISE;
	bool all_ran = true, any_ran = false;
	enum resource model = it->result && it->result->have_accounting ? it->result->accounting.verdict
									 : RES_COUNT;

	it->causal = RES_COUNT;
	it->by_elimination = false;
	explain_check_baseline(it);
	/* the baseline disagrees with the control: no saving can be trusted to name a cause */
	if (it->baseline_outlier) {
		it->has_agreement = it->agrees = false;
		return;
	}
	for (int k = 0; k < EXPLAIN_REMOVED_COUNT; k++) {
		const struct explain_ablation *a = &it->ab[k];

		if (a->status == EXPLAIN_NOT_RUN || a->status == EXPLAIN_FAILED)
			all_ran = false;
		if (a->status != EXPLAIN_OK)
			continue;
		any_ran = true;
		if (a->saved_fraction <= best)
			continue;
		best = a->saved_fraction;
		it->causal_by = (enum explain_removed)k;
		switch (k) {
		case EXPLAIN_DEST_DISK:
		case EXPLAIN_DURABLE_WRITE:
			it->causal = split_end(files, bytes, create_per_s, write_bps);
			break;
		case EXPLAIN_SOURCE_DISK:
			it->causal = split_end(files, bytes, open_per_s, read_bps);
			break;
		case EXPLAIN_NETWORK:
			it->causal = RES_NETWORK;
			break;
		default:
			it->causal = RES_CPU;
			break;
		}
	}
	/* nothing taken away made it faster: what is left is its own work, the CPU */
	if (it->causal == RES_COUNT && any_ran && all_ran) {
		it->causal = RES_CPU;
		it->by_elimination = true;
	}
	it->has_agreement = it->causal != RES_COUNT && model != RES_COUNT;
	it->agrees = it->has_agreement && link_class(it->causal) == link_class(model);
}

bool explain_ablation_verified(const struct explain_ablation *a)
{
	/* the null sink keeps nothing: whatever its flag says, not a copy */
	return a->status == EXPLAIN_OK && a->verified && a->removed != EXPLAIN_DEST_DISK;
}
