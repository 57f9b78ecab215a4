/*
 * Opening and closing a destination (destination.h): the one place that
 * starts an agent, connects to it and hands the strategies their target.
 */
#include "client/destination.h"

#include "stream/agent_startup.h"
#include "err.h"
#include "netaddr.h"

#include <stdio.h>
#include <string.h>

void destination_init(struct destination *d)
{
	memset(d, 0, sizeof(*d));
	d->proc = (struct agent_process){ .pid = -1, .stdin_fd = -1 };
	d->agent = (struct agent_client){ .ctl.fd = -1 };
}

/* The agent someone started with `xfercmp serve`, at o->agent. */
static int open_by_hand(struct destination *d)
{
	char token[WIRE_TOKEN_HEX + 1], host[256], port[8];
	int rc;

	if (net_hostport_split(d->o.agent, host, sizeof(host), port, sizeof(port)) < 0 || !host[0])
		return err_set("--agent '%s': expected ADDR:PORT or [IPV6]:PORT", d->o.agent);
	if (agent_token_load(d->o.token_file, token) < 0)
		return -1;
	rc = agent_client_connect(&d->agent, host, port, token);
	/* the client keeps the key it derived; the token goes */
	explicit_bzero(token, sizeof(token));
	return rc;
}

/* An agent started on the host over SSH, reached directly or through ssh. */
static int open_over_ssh(struct destination *d)
{
	struct ssh_target_opts so = {
		.conn = { .target = d->o.host, .config_file = d->o.ssh_config,
			  .accept_new_hostkey = d->o.accept_new_hostkey, .ciphers = d->o.ciphers },
		.remote_dir = d->o.scratch_dir,
	};
	int rc;

	if (ssh_target_open(&d->ssh, &so) < 0)
		return -1;
	rc = agent_client_connect_ssh(&d->agent, d->ssh.agent_host, d->ssh.agent_port, d->ssh.token,
				      &so.conn, d->o.agent_via_ssh);
	explicit_bzero(d->ssh.token, sizeof(d->ssh.token));
	if (rc < 0)
		return err_wrap("the agent started on '%s' cannot be reached", d->o.host);
	ssh_target_set_agent_root(&d->ssh, d->agent.root);
	snprintf(d->agent.label, sizeof(d->agent.label), "%s", d->o.host);
	return 0;
}

int destination_open(struct destination *d, const struct destination_opts *o)
{
	int rc;

	d->o = *o;
	if (o->agent)
		return open_by_hand(d);
	if (strcmp(o->host, "local"))
		return open_over_ssh(d);
	if (agent_launch_local(&d->proc, o->scratch_dir) < 0)
		return -1;
	rc = agent_client_connect(&d->agent, d->proc.host, d->proc.port, d->proc.token);
	explicit_bzero(d->proc.token, sizeof(d->proc.token));
	return rc;
}

int destination_send_manifest(struct destination *d, const struct manifest *m)
{
	if (agent_client_send_manifest(&d->agent, m) < 0)
		return -1;
	d->target = (struct xfer_target){
		.agent = &d->agent, .ssh = d->ssh.session ? &d->ssh : NULL, .label = d->o.host,
		.ssh_config = d->o.ssh_config, .accept_new_hostkey = d->o.accept_new_hostkey,
	};
	return 0;
}

bool destination_free_bytes(const struct destination *d, uint64_t *free_bytes)
{
	json_object *v;

	if (!d->agent.info || !json_object_object_get_ex(d->agent.info, "root_free_bytes", &v) || !v)
		return false;
	*free_bytes = (uint64_t)json_object_get_int64(v);
	return true;
}

int destination_close(struct destination *d, void (*failed)(void *ctx), void *ctx)
{
	int rc = 0;

	if (agent_client_close(&d->agent) < 0) {
		rc = -1;
		if (failed)
			failed(ctx);
	}
	if (ssh_target_close(&d->ssh) < 0) {
		rc = -1;
		if (failed)
			failed(ctx);
	}
	agent_process_stop(&d->proc);
	return rc;
}
