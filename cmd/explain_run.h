#ifndef XFERCMP_EXPLAIN_RUN_H
#define XFERCMP_EXPLAIN_RUN_H

/* Running --explain's removals after the comparison (explain.c). */

#include "compare.h"
#include "explain.h"

/*
 * Checks --explain=LIST's names (NULL: none given). Returns 0, or -1 (error
 * set) naming one that is no strategy.
 */
int explain_check_list(const char *list);

/*
 * Chooses the strategies to explain among results[0..n) (the comparison's,
 * which must outlive ex), prints the estimate, runs every removal that can
 * run here into ex (those that cannot are skipped with the reason), and
 * decides each causal verdict. An interrupt meanwhile finds in ex what
 * finished. Returns 0, or -1 (error set) when the comparison's agent was lost.
 */
int explain_run(struct compare_session *s, const struct strategy_result *results, size_t n,
		struct explain_report *ex);

#endif
