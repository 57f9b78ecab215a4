#ifndef XFERCMP_EXPLAIN_PLAN_H
#define XFERCMP_EXPLAIN_PLAN_H

/*
 * --explain's decisions before anything runs, pure over their inputs
 * (explain_plan.c): which strategies to rerun, and whether a destination
 * has room for a removal's copy. explain.c acts on them.
 */

#include "manifest.h"
#include "run/explain.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether r ran and verified in the comparison: the only kind a removal can be measured against. */
bool explain_ran_ok(const struct strategy_result *r);

/*
 * Fills ex->items with the strategies to explain among results[0..n) (which
 * must outlive ex): those named in list (comma-separated, in the
 * comparison's order), or with list NULL recommended (the one the
 * recommendation names; NULL: none) and the slowest measured that ran, once
 * when they are one. Each item's ablations are NOT_RUN, its baseline the
 * result's time (transfer + flush of its median run), its causal verdict none.
 */
void explain_choose(const char *list, const struct strategy_result *results, size_t n,
		    const struct strategy_result *recommended, struct explain_report *ex);

/*
 * Room a copy of m needs at a destination: its bytes, a 4 KiB block a file
 * and 64 MiB to spare (what the comparison asks of the host).
 */
uint64_t explain_room_needed(const struct manifest *m);

/*
 * Whether a destination with free_bytes free has room for m
 * (explain_room_needed). When it has not, "WHERE has 1.0 MiB free, the
 * workload needs about 2.1 GiB" into why (len bytes); why is untouched when
 * it has.
 */
bool explain_has_room(const struct manifest *m, uint64_t free_bytes, const char *where, char *why,
		      size_t len);

#endif
