/*
 * The agent's half of live sampling: while a strategy runs, the agent reads
 * its own /proc counters (the destination's disk and the interface the
 * client's traffic arrives on) and hands the summary back at the end.
 */
#define _GNU_SOURCE
#include "agent/agent.h"

#include "err.h"
#include "sample/procstat.h"
#include "sample/sampler.h"
#include "netaddr.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* The interface our client's packets arrive on: the one holding our end of the control connection (IPv4 or IPv6). */
static int client_iface(int fd, char *iface, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t salen = sizeof(ss);
	char addr[NET_ADDR_TEXT_MAX];

	if (getsockname(fd, (struct sockaddr *)&ss, &salen) < 0 ||
	    net_sockaddr_addr((struct sockaddr *)&ss, addr, sizeof(addr)) < 0)
		return 1;
	return procstat_iface_for_addr(addr, iface, len) == 0 ? 0 : 1;
}

int agent_op_sample_start(struct agent_session *s, json_object *req, json_object *reply)
{
	char dev[PROCSTAT_NAME_MAX] = "", iface[PROCSTAT_NAME_MAX] = "";
	/* the SSH strategies run the host's sshd, sftp-server, tar and zstd, not the agent */
	struct sampler_config c = { .watch = PROC_WATCH_HOST_PROGRAMS };
	const char *path = s->root;
	uint64_t job;

	if (s->sampler)
		return err_set("sampling already started");
	if (json_object_object_get_ex(req, "job", NULL) && wire_get_u64(req, "job", &job) == 0)
		for (unsigned i = 0; i < s->njobs; i++)
			if (s->jobs[i].id == job)
				path = s->jobs[i].dest;
	if (procstat_device_for_path(path, dev, sizeof(dev)) == 0)
		c.disk_dev = dev;
	if (client_iface(s->ctl.fd, iface, sizeof(iface)) == 0)
		c.iface = iface;
	s->sampler = calloc(1, sizeof(*s->sampler));
	if (!s->sampler)
		return err_set("out of memory for the sampler");
	if (sampler_start(s->sampler, &c) < 0) {
		free(s->sampler);
		s->sampler = NULL;
		return -1;
	}
	json_object_object_add(reply, "disk", json_object_new_string(dev));
	json_object_object_add(reply, "iface", json_object_new_string(iface));
	return 0;
}

int agent_op_sample_stop(struct agent_session *s, json_object *req, json_object *reply)
{
	struct sampler_summary *sum;
	int rc;

	(void)req;
	if (!s->sampler)
		return err_set("sampling was not started");
	sum = malloc(sizeof(*sum));
	if (!sum)
		return err_set("out of memory for the sampler summary");
	rc = sampler_stop(s->sampler, sum);
	free(s->sampler);
	s->sampler = NULL;
	if (rc == 0)
		json_object_object_add(reply, "summary", sampler_summary_json(sum));
	free(sum);
	return rc;
}

void agent_sampling_release(struct agent_session *s)
{
	if (s->sampler) {
		struct sampler_summary *sum = malloc(sizeof(*sum));

		if (sum) {
			sampler_stop(s->sampler, sum);
			free(sum);
		}
		free(s->sampler);
		s->sampler = NULL;
	}
}
