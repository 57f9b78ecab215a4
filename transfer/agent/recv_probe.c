/*
 * The agent's receivers for the network probes: the mirror of probe_net.c.
 * "discard" is the sink of the throughput phases (it counts and drops, like
 * iperf3's server); "echo" answers the round-trip phase byte for byte. Neither
 * writes anything under dest.
 */
#include "agent/agent_probes.h"

#include "err.h"
#include "stream/xfer_stats.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#define DISCARD_BUF (256u << 10)
#define ECHO_BUF (64u << 10)

int recv_discard(int sock, const struct recv_opts *o, int destfd, const char *dest,
		 struct recv_stats *st)
{
	char *buf = malloc(DISCARD_BUF);

	(void)o;
	(void)destfd;
	(void)dest;
	if (!buf)
		return err_set("out of memory for a receive buffer");
	for (;;) {
		ssize_t n = recv(sock, buf, DISCARD_BUF, 0);

		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err_errno("cannot read the probe stream");
			free(buf);
			return -1;
		}
		st->wire_bytes += (uint64_t)n;
	}
	free(buf);
	return 0;
}

int recv_echo(int sock, const struct recv_opts *o, int destfd, const char *dest,
	      struct recv_stats *st)
{
	char buf[ECHO_BUF];

	(void)o;
	(void)destfd;
	(void)dest;
	for (;;) {
		ssize_t n = recv(sock, buf, sizeof(buf), 0), done = 0;

		if (n == 0)
			return 0;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return err_errno("cannot read the echo stream");
		}
		st->wire_bytes += (uint64_t)n;
		while (done < n) {
			ssize_t w = send(sock, buf + done, (size_t)(n - done), MSG_NOSIGNAL);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				return err_errno("cannot write the echo stream");
			done += w;
		}
	}
}
