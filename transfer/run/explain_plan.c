/*
 * --explain's choices made before any removal runs (explain_plan.h): which
 * strategies, and whether a removal's destination has room. Pure, so the
 * unit tests reach them without an agent.
 */
#include "run/explain_plan.h"

#include "units.h"

#include <stdio.h>
#include <string.h>

bool explain_ran_ok(const struct strategy_result *r)
{
	return r->status == RESULT_OK && r->runs > 0;
}

/* A result's time, as the reports give it: its median run's transfer + flush. */
static double seconds(const struct strategy_result *r)
{
	return r->median.transfer + r->median.flush;
}

/* Whether name is in the comma-separated list. */
static bool in_list(const char *list, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = list; p && *p;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);

		if (n == len && !strncmp(p, name, len))
			return true;
		p = comma ? comma + 1 : NULL;
	}
	return false;
}

static void add(struct explain_report *ex, const struct strategy_result *res)
{
	if (ex->n < sizeof(ex->items) / sizeof(ex->items[0]))
		ex->items[ex->n++].result = res;
}

void explain_choose(const char *list, const struct strategy_result *results, size_t n,
		    const struct strategy_result *recommended, struct explain_report *ex)
{
	const struct strategy_result *slow = NULL;

	ex->n = 0;
	for (size_t i = 0; i < n; i++) {
		const struct strategy_result *res = &results[i];

		if (list && in_list(list, res->strategy->name))
			add(ex, res);
		else if (!list && explain_ran_ok(res) && (!slow || seconds(res) > seconds(slow)))
			slow = res;
	}
	if (!list) {
		/* what the reader is told to use is what most wants its verdict checked */
		if (recommended)
			add(ex, recommended);
		if (slow && slow != recommended)
			add(ex, slow);
	}
	for (size_t i = 0; i < ex->n; i++) {
		struct explain_item *it = &ex->items[i];
		const struct strategy_result *res = it->result;

		*it = (struct explain_item){ .result = res, .baseline_seconds = seconds(res),
					     .causal = RES_COUNT };
		for (int k = 0; k < EXPLAIN_REMOVED_COUNT; k++)
			it->ab[k] = (struct explain_ablation){ .removed = (enum explain_removed)k };
	}
}

uint64_t explain_room_needed(const struct manifest *m)
{
	return m->total_bytes + m->count * 4096ull + (64ull << 20);
}

bool explain_has_room(const struct manifest *m, uint64_t free_bytes, const char *where, char *why,
		      size_t len)
{
	char need[32], have[32];

	if (free_bytes >= explain_room_needed(m))
		return true;
	snprintf(why, len, "%s has %s free, the workload needs about %s", where,
		 units_format_bytes(free_bytes, have, sizeof(have)),
		 units_format_bytes(explain_room_needed(m), need, sizeof(need)));
	return false;
}
