#ifndef XFERCMP_MEASURE_H
#define XFERCMP_MEASURE_H

/*
 * Measuring a run while it happens, on both ends: the client's sampler
 * (source disk, the interface towards the agent) and the agent's (its disk,
 * its interface), started before the timed window and stopped after the
 * flush, so the window is the strategy's and nothing else.
 */

#include "client/agent_client.h"
#include "sample/sampler.h"

#include <stdbool.h>

struct measure {
	struct sampler local;
	bool local_running, remote_running;
	char src_dev[PROCSTAT_NAME_MAX];
	char iface[PROCSTAT_NAME_MAX];
};

/* Starts both samplers; a side that cannot sample is left out, not an error. */
void measure_start(struct measure *m, struct agent_client *agent, const char *src_root, uint64_t job);

/* Stops both; fills what was measured. Returns -1 only when the agent is gone. */
int measure_stop(struct measure *m, struct agent_client *agent, struct sampler_summary *local,
		 bool *have_local, struct sampler_summary *remote, bool *have_remote);

#endif
