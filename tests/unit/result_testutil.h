/* A strategy's result as the runner fills it, for the unit tests of run/ and the reports (header only). */
#ifndef XFERCMP_RESULT_TESTUTIL_H
#define XFERCMP_RESULT_TESTUTIL_H

#include "run/runner.h"
#include "strategy/list.h"

/* A result of strategy name that ran once and verified in seconds, its statistics as the runner fills them. */
static inline struct strategy_result test_result(const char *name, double seconds)
{
	struct strategy_result r = { .strategy = strategy_find(name), .status = RESULT_OK, .verified = true,
				     .runs = 1 };

	r.median.transfer = seconds;
	r.time = (struct stats){ .n = 1, .mean = seconds, .min = seconds, .max = seconds };
	return r;
}

#endif
