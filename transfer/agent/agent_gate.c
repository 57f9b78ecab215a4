/* Connections waiting to say hello. See agent_gate.h. */
#define _GNU_SOURCE
#include "agent/agent_gate.h"

#include "agent/agent.h"
#include "err.h"
#include "netutil.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

void agent_gate_init(struct agent_gate *g, int lfd)
{
	memset(g, 0, sizeof(*g));
	g->lfd = lfd;
}

static void drop(struct agent_gate *g, unsigned i)
{
	close(g->fd[i]);
	g->n--;
	memmove(&g->fd[i], &g->fd[i + 1], (g->n - i) * sizeof(g->fd[0]));
	memmove(&g->deadline[i], &g->deadline[i + 1], (g->n - i) * sizeof(g->deadline[0]));
}

/* Takes a new connection in, pushing out the oldest when the gate is full. */
static void admit(struct agent_gate *g)
{
	int fd = accept4(g->lfd, NULL, NULL, SOCK_CLOEXEC), one = 1, header = WIRE_HEADER;

	if (fd < 0)
		return;
	if (g->n == AGENT_GATE_MAX)
		drop(g, 0);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* poll says readable only once a header is there (then: once the frame is) */
	setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &header, sizeof(header));
	g->fd[g->n] = fd;
	g->deadline[g->n] = clock_now() + (clock_ns)AGENT_HELLO_TIMEOUT_MS * 1000000u;
	g->n++;
}

/*
 * Looks at what connection i has sent, without taking it: 1 when a whole
 * HELLO frame is there, 0 to wait for more, -1 to drop the connection (it
 * closed, or sent something that is not a short hello).
 */
static int hello_ready(struct agent_gate *g, unsigned i)
{
	unsigned char buf[WIRE_HEADER + AGENT_GATE_MAX_HELLO];
	enum wire_type type;
	uint32_t len;
	ssize_t n = recv(g->fd[i], buf, sizeof(buf), MSG_PEEK | MSG_DONTWAIT);
	int want, one = 1;

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
		return -1;
	if (n < WIRE_HEADER)
		return 0;
	if (wire_header_decode(buf, &type, &len) < 0 || type != WIRE_HELLO || len > AGENT_GATE_MAX_HELLO)
		return -1;
	want = WIRE_HEADER + (int)len;
	if (n >= want) {
		setsockopt(g->fd[i], SOL_SOCKET, SO_RCVLOWAT, &one, sizeof(one));
		return 1;
	}
	setsockopt(g->fd[i], SOL_SOCKET, SO_RCVLOWAT, &want, sizeof(want));
	return 0;
}

int agent_gate_next(struct agent_gate *g, int timeout_ms)
{
	clock_ns end = clock_now() + (clock_ns)(timeout_ms < 0 ? 0 : timeout_ms) * 1000000u;

	for (;;) {
		struct pollfd p[AGENT_GATE_MAX + 1];
		clock_ns now = clock_now(), next = timeout_ms < 0 ? 0 : end;
		int wait_ms, r;

		/* the overdue leave first */
		for (unsigned i = 0; i < g->n;)
			if (g->deadline[i] <= now)
				drop(g, i);
			else
				i++;
		if (timeout_ms >= 0 && now >= end)
			return -2;
		for (unsigned i = 0; i < g->n; i++)
			if (!next || g->deadline[i] < next)
				next = g->deadline[i];
		wait_ms = next ? (int)((next - now) / 1000000u) + 1 : -1;
		p[0] = (struct pollfd){ .fd = g->lfd, .events = POLLIN };
		for (unsigned i = 0; i < g->n; i++)
			p[i + 1] = (struct pollfd){ .fd = g->fd[i], .events = POLLIN | POLLRDHUP };
		r = poll(p, g->n + 1, wait_ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return err_errno("cannot wait for connections");
		/* from the back: drop() moves the later entries down */
		for (unsigned i = g->n; i-- > 0;) {
			int ready;

			if (!p[i + 1].revents)
				continue;
			ready = hello_ready(g, i);
			/* half a hello and then the end: no more is coming */
			if (ready == 0 && (p[i + 1].revents & (POLLRDHUP | POLLHUP | POLLERR)))
				ready = -1;
			if (ready < 0) {
				drop(g, i);
			} else if (ready > 0) {
				int fd = g->fd[i];

				g->fd[i] = -1;
				memmove(&g->fd[i], &g->fd[i + 1], (g->n - i - 1) * sizeof(g->fd[0]));
				memmove(&g->deadline[i], &g->deadline[i + 1], (g->n - i - 1) * sizeof(g->deadline[0]));
				g->n--;
				net_set_peer_timeout(fd);
				return fd;
			}
		}
		if (p[0].revents & POLLIN)
			admit(g);
		else if (p[0].revents & (POLLERR | POLLNVAL))
			return err_set("the listening socket failed");
	}
}

void agent_gate_release(struct agent_gate *g)
{
	while (g->n)
		drop(g, g->n - 1);
}
