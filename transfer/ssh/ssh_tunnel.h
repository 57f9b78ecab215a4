#ifndef XFERCMP_SSH_TUNNEL_H
#define XFERCMP_SSH_TUNNEL_H

/*
 * One TCP connection made by the host's sshd on our behalf: an SSH session
 * of its own (so each tunnel, like each `ssh -W`, has its own connection
 * and cipher, and may run in its own thread), a direct-tcpip channel to
 * host:port as the far end sees them, and a pump thread (channel_pump.h)
 * between that channel and one end of a socket pair. The caller reads and
 * writes the other end as it would a TCP socket (splice, sendfile and
 * io_uring work on it); what crosses the network is encrypted.
 *
 * This is how the raw-TCP strategies reach an agent whose port cannot be
 * reached directly: behind a jump host, or a firewall that admits only
 * ssh's port (client/agent_client.h).
 */

#include "ssh/channel_pump.h"
#include "ssh/ssh_conn.h"

struct ssh_tunnel {
	ssh_session session;
	ssh_channel channel;
	struct channel_pump pump;
};

/*
 * Connects as o says (ProxyJump and all, ssh_conn.h), opens a direct-tcpip
 * channel to host:port (as the host resolves them), waiting at most
 * timeout_ms for sshd to make that connection, and starts the pump; *fd is
 * the caller's end, owned by the caller. Returns 0, or -1 (error set
 * naming what failed, and the wait when it ran out; nothing left open or
 * running).
 */
int ssh_tunnel_open(struct ssh_tunnel *t, const struct ssh_conn_opts *o, const char *host,
		    unsigned port, int timeout_ms, int *fd);

/*
 * Waits for the pump to end, then closes the channel and the session (a
 * proxy child is reaped there). The caller closes its end first: the pump
 * then sends EOF on the channel, so the far end sees the end of the stream,
 * and ends once the far end has closed the connection, having read it all
 * (channel_pump_stop). Safe on a zeroed t, and twice.
 */
void ssh_tunnel_close(struct ssh_tunnel *t);

#endif
