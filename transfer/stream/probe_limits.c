#include "stream/probe_limits.h"
#include "err.h"

int probe_check_budget(double seconds)
{
	if (!(seconds > 0 && seconds <= PROBE_MAX_SECONDS))
		return err_set("probe budget of %g s is out of range (above 0, at most %g)", seconds,
			       PROBE_MAX_SECONDS);
	return 0;
}

