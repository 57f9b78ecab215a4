/* Connections waiting to say hello. See agent_gate.h. */
#define _GNU_SOURCE
#include "agent/agent_gate.h"

#include "agent/agent.h"
#include "err.h"
#include "netutil.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

void agent_gate_init(struct agent_gate *g, int lfd)
{
	memset(g, 0, sizeof(*g));
	g->lfd = lfd;
}

/* The same host (the port aside); an IPv4-mapped IPv6 address is its IPv4 one. */
static int same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	struct in_addr a4, b4;
	int a_v4 = 0, b_v4 = 0;
	const struct sockaddr_storage *x[2] = { a, b };
	struct in_addr *out[2] = { &a4, &b4 };
	int *is_v4[2] = { &a_v4, &b_v4 };

	for (int k = 0; k < 2; k++) {
		if (x[k]->ss_family == AF_INET) {
			*out[k] = ((const struct sockaddr_in *)x[k])->sin_addr;
			*is_v4[k] = 1;
		} else if (x[k]->ss_family == AF_INET6 &&
			   IN6_IS_ADDR_V4MAPPED(&((const struct sockaddr_in6 *)x[k])->sin6_addr)) {
			memcpy(out[k], &((const struct sockaddr_in6 *)x[k])->sin6_addr.s6_addr[12], 4);
			*is_v4[k] = 1;
		}
	}
	if (a_v4 || b_v4)
		return a_v4 && b_v4 && a4.s_addr == b4.s_addr;
	return a->ss_family == AF_INET6 && b->ss_family == AF_INET6 &&
	       !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		       &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr));
}

/* Forgets entry i; closes its fd when close_it. */
static void forget(struct agent_gate *g, unsigned i, int close_it)
{
	if (close_it)
		close(g->e[i].fd);
	g->n--;
	memmove(&g->e[i], &g->e[i + 1], (g->n - i) * sizeof(g->e[0]));
}

static void drop(struct agent_gate *g, unsigned i)
{
	forget(g, i, 1);
}

/*
 * The entry a newcomer may push out once the gate is full: never a key
 * holder (a connection whose hello carried the session key's tag, waiting
 * for its AUTH), whatever its address; of the others, the oldest of the
 * address that holds the most places. A flood of silent connections thus
 * pushes out its own oldest first: a client behind the same address (NAT,
 * other users of one machine, an agent reached through ssh, where sshd
 * connects from the host's own address) is the newest of them, and its
 * hello, which comes within milliseconds, is read before AGENT_GATE_MAX
 * more newcomers could push it out (each turn of agent_gate_next reads what
 * is ready before it takes the next connection in). -1: none needs to go;
 * -2: none may (every place is a key holder's), the newcomer is refused.
 */
static int victim(const struct agent_gate *g)
{
	unsigned count[AGENT_GATE_MAX] = { 0 }, most = 0;
	int pick = -2;

	if (g->n < AGENT_GATE_MAX)
		return -1;
	for (unsigned i = 0; i < g->n; i++) {
		if (g->e[i].stage != AGENT_GATE_HELLO)
			continue;
		for (unsigned k = 0; k <= i; k++)
			if (g->e[k].stage == AGENT_GATE_HELLO && same_host(&g->e[k].addr, &g->e[i].addr)) {
				count[k]++;	/* counted at the address's oldest entry */
				break;
			}
	}
	/* entries are in order of arrival: the first of an address is its oldest */
	for (unsigned i = 0; i < g->n; i++)
		if (g->e[i].stage == AGENT_GATE_HELLO && count[i] > most) {
			most = count[i];
			pick = (int)i;
		}
	return pick;
}

/* Takes a new connection in, or refuses it (victim says which, if any, goes). */
static void admit(struct agent_gate *g)
{
	struct sockaddr_storage addr;
	socklen_t alen = sizeof(addr);
	int fd = accept4(g->lfd, (struct sockaddr *)&addr, &alen, SOCK_CLOEXEC), one = 1;
	int header = WIRE_HEADER, v;
	clock_ns now = clock_now();

	if (fd < 0)
		return;
	v = victim(g);
	if (v == -2) {
		close(fd);
		return;
	}
	if (v >= 0)
		drop(g, (unsigned)v);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* poll says readable only once a header is there (then: once the frame is) */
	setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &header, sizeof(header));
	g->e[g->n] = (struct agent_gate_entry){
		.fd = fd, .stage = AGENT_GATE_HELLO, .born = now,
		.deadline = now + (clock_ns)AGENT_HELLO_TIMEOUT_MS * 1000000u, .addr = addr,
	};
	g->n++;
}

/*
 * Looks at what connection i has sent, without taking it: 1 when a whole
 * frame of its stage (HELLO, or AUTH) is there, 0 to wait for more, -1 to
 * drop the connection (it closed, or sent something else or too long).
 */
static int frame_ready(struct agent_gate *g, unsigned i)
{
	unsigned char buf[WIRE_HEADER + AGENT_GATE_MAX_HELLO];
	enum wire_type type;
	uint32_t len;
	enum wire_type want_type = g->e[i].stage == AGENT_GATE_HELLO ? WIRE_HELLO : WIRE_AUTH;
	ssize_t n = recv(g->e[i].fd, buf, sizeof(buf), MSG_PEEK | MSG_DONTWAIT);
	int want, one = 1;

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
		return -1;
	if (n < WIRE_HEADER)
		return 0;
	if (wire_header_decode(buf, &type, &len) < 0 || type != want_type || len > AGENT_GATE_MAX_HELLO)
		return -1;
	want = WIRE_HEADER + (int)len;
	if (n >= want) {
		setsockopt(g->e[i].fd, SOL_SOCKET, SO_RCVLOWAT, &one, sizeof(one));
		return 1;
	}
	setsockopt(g->e[i].fd, SOL_SOCKET, SO_RCVLOWAT, &want, sizeof(want));
	return 0;
}

int agent_gate_next(struct agent_gate *g, int timeout_ms, struct agent_gate_entry *ready)
{
	clock_ns end = clock_now() + (clock_ns)(timeout_ms < 0 ? 0 : timeout_ms) * 1000000u;

	for (;;) {
		struct pollfd p[AGENT_GATE_MAX + 1];
		clock_ns now = clock_now(), next = timeout_ms < 0 ? 0 : end;
		int wait_ms, r;

		/* the overdue leave first */
		for (unsigned i = 0; i < g->n;)
			if (g->e[i].deadline <= now)
				drop(g, i);
			else
				i++;
		if (timeout_ms >= 0 && now >= end)
			return -2;
		for (unsigned i = 0; i < g->n; i++)
			if (!next || g->e[i].deadline < next)
				next = g->e[i].deadline;
		wait_ms = next ? (int)((next - now) / 1000000u) + 1 : -1;
		p[0] = (struct pollfd){ .fd = g->lfd, .events = POLLIN };
		for (unsigned i = 0; i < g->n; i++)
			p[i + 1] = (struct pollfd){ .fd = g->e[i].fd, .events = POLLIN | POLLRDHUP };
		r = poll(p, g->n + 1, wait_ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return err_errno("cannot wait for connections");
		/* from the back: drop() moves the later entries down */
		for (unsigned i = g->n; i-- > 0;) {
			int ok;

			if (!p[i + 1].revents)
				continue;
			ok = frame_ready(g, i);
			/* half a frame and then the end: no more is coming */
			if (ok == 0 && (p[i + 1].revents & (POLLRDHUP | POLLHUP | POLLERR)))
				ok = -1;
			if (ok < 0) {
				drop(g, i);
			} else if (ok > 0) {
				int fd = g->e[i].fd;

				if (ready)
					*ready = g->e[i];
				forget(g, i, 0);
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

void agent_gate_hold(struct agent_gate *g, const struct agent_gate_entry *ready,
		     const struct wire_binding *b)
{
	int header = WIRE_HEADER;

	/* agent_gate_next just took it out: there is room */
	if (g->n >= AGENT_GATE_MAX) {
		close(ready->fd);
		return;
	}
	setsockopt(ready->fd, SOL_SOCKET, SO_RCVLOWAT, &header, sizeof(header));
	g->e[g->n] = *ready;
	g->e[g->n].stage = AGENT_GATE_AUTH;
	g->e[g->n].binding = *b;
	g->n++;
}

/* Reads the frame agent_gate_next found whole (it is all there: no waiting on the peer). */
static int read_whole_frame(int fd, enum wire_type *type, json_object **o)
{
	return wire_recv_json(fd, AGENT_HELLO_TIMEOUT_MS, type, o);
}

/*
 * The client nonces of the last SEEN_MAX hellos that carried a good tag, in
 * a ring: a hello recorded on the wire and sent again gets no place among
 * the key holders (its tag is good, but its nonce was seen). One agent
 * thread runs every gate, one after the other: no lock.
 */
#define SEEN_MAX 1024
static unsigned char seen[SEEN_MAX][WIRE_NONCE_BYTES];
static unsigned nseen, seen_next;

/* 1 when nonce was seen before; else 0, and it is noted. */
static int replayed(const unsigned char nonce[WIRE_NONCE_BYTES])
{
	for (unsigned i = 0; i < nseen; i++)
		if (!memcmp(seen[i], nonce, WIRE_NONCE_BYTES))
			return 1;
	memcpy(seen[seen_next], nonce, WIRE_NONCE_BYTES);
	seen_next = (seen_next + 1) % SEEN_MAX;
	if (nseen < SEEN_MAX)
		nseen++;
	return 0;
}

/*
 * The HELLO step: its tag checked first (a stranger is refused at once and
 * learns nothing of the key), then the caller's check; a key holder is
 * answered and goes back in the gate for its AUTH, never to be pushed out.
 */
static void answer_hello(struct agent_gate *g, const unsigned char key[WIRE_KEY_BYTES],
			 const struct agent_gate_entry *ready, agent_hello_check check, void *arg)
{
	struct wire_binding b;
	enum wire_type type;
	json_object *hello = NULL;
	uint64_t proto;

	if (read_whole_frame(ready->fd, &type, &hello) < 0) {
		close(ready->fd);
		return;
	}
	if (type != WIRE_HELLO || wire_get_u64(hello, "proto", &proto) < 0) {
		wire_send_error(ready->fd, "protocol error: expected a hello");
	} else if (proto != WIRE_PROTO) {
		char msg[128];

		snprintf(msg, sizeof(msg), "protocol version %llu not supported (agent speaks %d)",
			 (unsigned long long)proto, WIRE_PROTO);
		wire_send_error(ready->fd, msg);
	} else if (wire_hello_check(key, hello, &b) < 0) {
		wire_send_error(ready->fd, err_msg());
	} else if (replayed(b.client_nonce)) {
		wire_send_error(ready->fd, "protocol error: a hello seen before (replayed)");
	} else if (check && check(arg, hello) < 0) {
		wire_send_error(ready->fd, err_msg());
	} else if (wire_auth_agent_answer(ready->fd, key, hello, &b) == 0) {
		json_object_put(hello);
		agent_gate_hold(g, ready, &b);
		return;
	}
	json_object_put(hello);
	close(ready->fd);
}

int agent_gate_accept(struct agent_gate *g, const unsigned char key[WIRE_KEY_BYTES], int timeout_ms,
		      agent_hello_check check, void *arg, struct wire_chan *chan,
		      struct wire_binding *b)
{
	clock_ns end = clock_now() + (clock_ns)(timeout_ms < 0 ? 0 : timeout_ms) * 1000000u;

	for (;;) {
		struct agent_gate_entry ready;
		clock_ns now = clock_now();
		enum wire_type type;
		json_object *auth = NULL;
		int fd, rc;

		if (timeout_ms >= 0 && now >= end)
			return -2;
		fd = agent_gate_next(g, timeout_ms < 0 ? -1 : (int)((end - now) / 1000000u) + 1, &ready);
		if (fd < 0)
			return fd;
		if (ready.stage == AGENT_GATE_HELLO) {
			answer_hello(g, key, &ready, check, arg);
			continue;
		}
		if (read_whole_frame(fd, &type, &auth) < 0) {
			close(fd);
			continue;
		}
		rc = wire_auth_agent_finish(fd, key, &ready.binding, type, auth, chan);
		json_object_put(auth);
		if (rc < 0) {
			close(fd);
			continue;
		}
		*b = ready.binding;
		return fd;
	}
}
