/* The resources' names. See resource.h. */
#include "model/resource.h"

const char *resource_name(enum resource r)
{
	static const char *const names[RES_COUNT + 1] = { "network", "latency", "disk", "metadata",
							  "cpu", "other" };

	return (unsigned)r <= RES_COUNT ? names[r] : "other";
}

const char *resource_verdict_name(enum resource r)
{
	static const char *const names[RES_COUNT + 1] = { "network-bound", "latency-bound", "disk-bound",
							  "metadata-bound", "cpu-bound", "unattributed" };

	return (unsigned)r <= RES_COUNT ? names[r] : "unattributed";
}
