/* A TCP connection through the host's sshd: a direct-tcpip channel (ssh_tunnel.h). */
#include "ssh/ssh_tunnel.h"

#include "clock.h"
#include "err.h"

#include <poll.h>
#include <string.h>

/*
 * The longest one wait on the session's socket before asking libssh again:
 * an answer libssh has already read into its own buffer wakes no poll.
 */
#define OPEN_POLL_SLICE_MS 100

/*
 * Asks the host's sshd for the direct-tcpip channel and waits at most
 * timeout_ms for its answer. libssh's blocking open waits without a limit
 * (ssh_conn.h clears the session's timeout), and sshd answers only once its
 * connect ends: against a firewall on the host that drops, rather than
 * rejects, the host's own traffic, that is the kernel's SYN retries, 136 s
 * on the testbed (ipv6.t, 2026-12-07). So the open runs non-blocking and
 * waits on the session's socket here. Returns SSH_OK, SSH_ERROR, or
 * SSH_AGAIN when the time ran out.
 */
static int open_forward(ssh_session s, ssh_channel ch, const char *host, unsigned port, int timeout_ms)
{
	clock_ns deadline = clock_now() + (clock_ns)timeout_ms * 1000000u, now;
	struct pollfd pf = { .fd = ssh_get_fd(s), .events = POLLIN };
	int rc, left_ms;

	ssh_set_blocking(s, 0);
	for (;;) {
		/* the originator address is informational only (sshd logs it) */
		rc = ssh_channel_open_forward(ch, host, (int)port, "127.0.0.1", 0);
		now = clock_now();
		if (rc != SSH_AGAIN || now >= deadline)
			break;
		left_ms = (int)((deadline - now) / 1000000u) + 1;
		(void)poll(&pf, 1, left_ms < OPEN_POLL_SLICE_MS ? left_ms : OPEN_POLL_SLICE_MS);
	}
	ssh_set_blocking(s, 1);
	return rc;
}

int ssh_tunnel_open(struct ssh_tunnel *t, const struct ssh_conn_opts *o, const char *host,
		    unsigned port, int timeout_ms, int *fd)
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
	rc = open_forward(t->session, t->channel, host, port, timeout_ms);
	if (rc == SSH_AGAIN) {
		err_set("the ssh server of %s did not open a connection to %s port %u for us within %d s: "
			"a firewall on the host that drops the host's own (loopback) traffic, or a port "
			"that no longer answers", o->target, host, port, timeout_ms / 1000);
		goto fail;
	}
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
