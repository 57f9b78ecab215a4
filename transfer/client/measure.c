#include "client/measure.h"

#include "err.h"

#include <string.h>

void measure_start(struct measure *m, struct agent_client *agent, const char *src_root, uint64_t job)
{
	/* the real-* strategies' ssh, tar and zstd are our children */
	struct sampler_config c = { .watch = PROC_WATCH_DESCENDANTS };

	memset(m, 0, sizeof(*m));
	if (procstat_device_for_path(src_root, m->src_dev, sizeof(m->src_dev)) == 0)
		c.disk_dev = m->src_dev;
	if (procstat_iface_for_addr(agent->addr, m->iface, sizeof(m->iface)) == 0)
		c.iface = m->iface;
	m->local_running = sampler_start(&m->local, &c) == 0;
	m->remote_running = agent_client_sample_start(agent, job) == 0;
}

int measure_stop(struct measure *m, struct agent_client *agent, struct sampler_summary *local,
		 bool *have_local, struct sampler_summary *remote, bool *have_remote)
{
	*have_local = false;
	*have_remote = false;
	if (m->local_running && sampler_stop(&m->local, local) == 0)
		*have_local = true;
	m->local_running = false;
	if (!m->remote_running)
		return 0;
	m->remote_running = false;
	/* an agent that answers with an error only loses this run's remote samples */
	if (agent_client_sample_stop(agent, remote, have_remote) < 0)
		return agent->lost ? -1 : 0;
	return 0;
}
