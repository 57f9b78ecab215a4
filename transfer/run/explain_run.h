#ifndef XFERCMP_EXPLAIN_RUN_H
#define XFERCMP_EXPLAIN_RUN_H

/* Running --explain's removals after the comparison (explain.c). */

#include "client/destination.h"
#include "run/explain.h"
#include "run/runner.h"

#include <stdbool.h>
#include <stddef.h>

/* What the removals run with: the comparison's own setup. */
struct explain_setup {
	const struct runner_opts *run;	/* the comparison's (its probes, --warm, strategy options) */
	const char *src_root;
	const struct manifest *m;
	/*
	 * The comparison's destination: the removals that keep it run there,
	 * and the extra destinations open as it did (its destination_opts).
	 */
	struct destination *dest;
	const char *list;	/* --explain=LIST; NULL: the recommended and the slowest */
	const struct strategy_result *recommended;	/* what the recommendation names; NULL: none */
	/* a progress line ("explain 1/4: splice without ..."), no '\n'; NULL: none */
	void (*progress)(void *ctx, const char *line);
	/* closing an extra destination failed (error set); NULL: not told */
	void (*cleanup_failed)(void *ctx);
	void *ctx;
};

/*
 * Checks --explain=LIST's names (NULL: none given). Returns 0, or -1 (error
 * set) naming one that is no strategy.
 */
int explain_check_list(const char *list);

/*
 * Chooses the strategies to explain among results[0..n) (the comparison's,
 * which must outlive ex), tells the estimate, runs every removal that can
 * run here into ex (those that cannot are skipped with the reason), and
 * decides each causal verdict. An interrupt meanwhile finds in ex what
 * finished. Returns 0, or -1 (error set) when the comparison's agent was lost.
 */
int explain_run(const struct explain_setup *e, const struct strategy_result *results, size_t n,
		struct explain_report *ex);

#endif
