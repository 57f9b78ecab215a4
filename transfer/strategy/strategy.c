/*
 * What every strategy may use beside the interface (strategy.h). Knows no
 * strategy and not the table, so that a strategy calling in here does not
 * call back into the table that lists it.
 */
#include "strategy/strategy.h"

#include <stdio.h>

int strategy_needs_ssh(const struct xfer_target *target, char *why, size_t len)
{
	if (target->ssh)
		return 0;
	snprintf(why, len, "needs an SSH host (xfercmp [OPTIONS] HOST)");
	return 1;
}

void strategy_free(const struct strategy *s)
{
	if (s && s->release)
		s->release(s);
}
