#ifndef XFERCMP_WINNER_H
#define XFERCMP_WINNER_H

/*
 * Which strategy won, decided once: the table's "← fastest", the
 * recommendation, the JSON's "fastest" and the HTML's mark all ask here, so
 * a report never names two winners. Pure over the results; no I/O.
 */

#include "run/runner.h"

#include <stdbool.h>
#include <stddef.h>

/* The most strategies a tie names (more than any comparison runs). */
#define WINNER_MAX_TIED 32

struct winner {
	const struct strategy_result *best;	/* least median time among those that ran; NULL: none ran */
	const struct strategy_result *next;	/* the runner-up, or NULL */
	/*
	 * best's runs all beat every other strategy's runs: its range
	 * [min, max] lies below each other range. Single runs are ranges
	 * of one point, so a tie needs equal times.
	 */
	bool clear;
	/* when not clear: best, then each strategy whose range overlaps best's, fastest first */
	const struct strategy_result *tied[WINNER_MAX_TIED];
	size_t ntied;
};

/* A result's time: its median run's transfer + flush. */
double winner_seconds(const struct strategy_result *r);

/* Fills w from results[0..n); only those with status RESULT_OK and at least one run compete. */
void winner_decide(const struct strategy_result *results, size_t n, struct winner *w);

/*
 * res's forecast on the --what-if link k (0 ≤ k < RUNNER_WHAT_IF_MAX), or
 * with k < 0 the one made before it ran, from the probes; 0 when none.
 */
double winner_forecast(const struct strategy_result *res, int k);

/* What a recommendation compares: with k ≥ 0 the forecast on that link (when there is one), else the measured time. */
double winner_projected(const struct strategy_result *res, int k);

/*
 * The strategy to recommend: with k < 0 (this link) the winner_decide
 * winner, the fastest measured (one of the tied when not clear); with
 * k ≥ 0 the least winner_projected on that --what-if link. NULL when
 * none ran.
 */
const struct strategy_result *winner_recommended(const struct strategy_result *results, size_t n, int k);

#endif
