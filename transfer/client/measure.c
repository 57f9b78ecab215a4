#include "client/measure.h"

#include "err.h"

#include <arpa/inet.h>
#include <string.h>

void measure_start(struct measure *m, struct agent_client *agent, const char *src_root, uint64_t job)
{
	struct sampler_config c = { 0 };
	struct in_addr a;
	json_object *req, *reply = NULL;

	memset(m, 0, sizeof(*m));
	if (procstat_device_for_path(src_root, m->src_dev, sizeof(m->src_dev)) == 0)
		c.disk_dev = m->src_dev;
	if (inet_pton(AF_INET, agent->host, &a) == 1 &&
	    procstat_iface_for_addr(agent->host, m->iface, sizeof(m->iface)) == 0)
		c.iface = m->iface;
	m->local_running = sampler_start(&m->local, &c) == 0;
	req = json_object_new_object();
	json_object_object_add(req, "op", json_object_new_string("sample_start"));
	json_object_object_add(req, "job", json_object_new_int64((int64_t)job));
	m->remote_running = agent_client_call(agent, req, &reply) == 0;
	json_object_put(req);
	json_object_put(reply);
}

int measure_stop(struct measure *m, struct agent_client *agent, struct sampler_summary *local,
		 bool *have_local, struct sampler_summary *remote, bool *have_remote)
{
	json_object *reply = NULL, *sum;

	*have_local = false;
	*have_remote = false;
	if (m->local_running && sampler_stop(&m->local, local) == 0)
		*have_local = true;
	m->local_running = false;
	if (!m->remote_running)
		return 0;
	m->remote_running = false;
	/* an agent that answers with an error only loses this run's remote samples */
	if (agent_client_simple(agent, "sample_stop", 0, &reply) < 0)
		return agent->lost ? -1 : 0;
	if (json_object_object_get_ex(reply, "summary", &sum) &&
	    sampler_summary_from_json(sum, remote) == 0)
		*have_remote = true;
	json_object_put(reply);
	return 0;
}
