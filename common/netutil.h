#ifndef XFERCMP_NETUTIL_H
#define XFERCMP_NETUTIL_H

/*
 * How long a connection may go without a sign of life from its peer before
 * it counts as lost. Without this, a cut link or a host that vanished leaves
 * a blocked send waiting for TCP's retransmissions (about 15 minutes) and a
 * blocked receive waiting for ever. Every connection between client and
 * agent, and the client's SSH connection, carries these settings on both
 * ends, so both notice a lost peer within about NET_PEER_TIMEOUT_S:
 *
 * - sent data left unacknowledged that long fails the connection
 *   (TCP_USER_TIMEOUT), and
 * - a connection that is quiet (a receive waiting on its peer) is probed
 *   (TCP keepalive: first probe after NET_KEEPALIVE_IDLE_S, then every
 *   NET_KEEPALIVE_INTERVAL_S), so a peer that is gone is noticed too.
 *
 * The kernel answers keepalive probes by itself: a peer that is merely busy
 * (verifying 20 GiB) is never taken for lost.
 */
#define NET_PEER_TIMEOUT_S 15
#define NET_KEEPALIVE_IDLE_S 5
#define NET_KEEPALIVE_INTERVAL_S 2

/* Applies the settings above to the TCP socket fd. Returns 0, or -1 (error set). */
int net_set_peer_timeout(int fd);

/*
 * Classifies errno after a failed send or receive on such a connection: 1 when
 * it says the peer went silent (ETIMEDOUT, EHOSTUNREACH, ENETUNREACH), 0 otherwise.
 */
int net_errno_is_timeout(int e);

#endif
