#define _GNU_SOURCE
#include "netutil.h"

#include "err.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

int net_set_peer_timeout(int fd)
{
	int one = 1, idle = NET_KEEPALIVE_IDLE_S, interval = NET_KEEPALIVE_INTERVAL_S;
	/* probes until the peer timeout has passed since the last sign of life */
	int count = (NET_PEER_TIMEOUT_S - NET_KEEPALIVE_IDLE_S) / NET_KEEPALIVE_INTERVAL_S;
	unsigned user_ms = NET_PEER_TIMEOUT_S * 1000u;

	if (setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one)) < 0 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle)) < 0 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof(interval)) < 0 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof(count)) < 0 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_ms, sizeof(user_ms)) < 0)
		return err_errno("cannot set the peer timeout on a connection");
	return 0;
}

int net_errno_is_timeout(int e)
{
	return e == ETIMEDOUT || e == EHOSTUNREACH || e == ENETUNREACH || e == EHOSTDOWN;
}
