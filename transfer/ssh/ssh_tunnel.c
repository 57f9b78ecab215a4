/* A TCP connection through the host's sshd: a direct-tcpip channel (ssh_tunnel.h). */
#include "ssh/ssh_tunnel.h"

#include "err.h"

#include <string.h>

int ssh_tunnel_open(struct ssh_tunnel *t, const struct ssh_conn_opts *o, const char *host,
		    unsigned port, int *fd)
{
	char e[400];
	int rc;

	memset(t, 0, sizeof(*t));
	*fd = -1;
	if (ssh_conn_open(o, &t->session) < 0)
		return -1;
	t->channel = ssh_channel_new(t->session);
	if (!t->channel) {
		err_set("cannot open an ssh channel to %s: %s", o->target,
			ssh_conn_error_text(t->session, e, sizeof(e), "out of memory"));
		goto fail;
	}
	/* the originator address is informational only (sshd logs it) */
	rc = ssh_channel_open_forward(t->channel, host, (int)port, "127.0.0.1", 0);
	if (rc != SSH_OK) {
		/*
		 * sshd connects from the host to its own address: a firewall
		 * rule on the host that does not spare loopback rejects that
		 * too (seen on the testbed: "Connection refused")
		 */
		err_set("the ssh server of %s did not open a connection to %s port %u for us (%s): "
			"its AllowTcpForwarding or PermitOpen may forbid it, or a firewall on the host "
			"that does not spare the host's own (loopback) traffic",
			o->target, host, port,
			ssh_conn_error_text(t->session, e, sizeof(e), "refused"));
		goto fail;
	}
	if (channel_pump_start(&t->pump, t->channel, fd) < 0)
		goto fail;
	return 0;
fail:
	ssh_tunnel_close(t);
	return -1;
}

void ssh_tunnel_close(struct ssh_tunnel *t)
{
	channel_pump_stop(&t->pump);
	if (t->channel) {
		ssh_channel_close(t->channel);
		ssh_channel_free(t->channel);
		t->channel = NULL;
	}
	ssh_conn_close(t->session);
	t->session = NULL;
}
