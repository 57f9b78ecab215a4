/*
 * The agent's door (agent_gate.c): strangers wait, a complete hello passes,
 * at most AGENT_GATE_MAX wait, a full gate pushes out the oldest silent
 * connection of the busiest address, never a key holder; a flood of silent
 * connections from the client's own address does not keep it out; only a
 * hello with the session key's tag is answered.
 */
#include "testutil.h"

#include "agent/agent.h"
#include "agent/agent_gate.h"
#include "err.h"
#include "netutil.h"
#include "stream/wire_auth.h"

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#define TOKEN "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/* A listening socket on 127.0.0.1, any port; sa is its address. */
static int listener(struct sockaddr_in *sa)
{
	socklen_t len = sizeof(*sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)sa, sizeof(*sa)), 0);
	assert_int_equal(listen(fd, 64), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)sa, &len), 0);
	return fd;
}

/* A connection to sa from 127.0.0.<from> (the loopback net has them all). */
static int dial_from(const struct sockaddr_in *sa, unsigned from)
{
	struct sockaddr_in me = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000000u | from) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&me, sizeof(me)), 0);
	assert_int_equal(connect(fd, (const struct sockaddr *)sa, sizeof(*sa)), 0);
	return fd;
}

/* Strangers come from 127.0.0.1 unless a test says otherwise. */
static int dial(const struct sockaddr_in *sa)
{
	return dial_from(sa, 1);
}

/* 1 when the agent's side closed fd (what it sent is read and dropped). */
static int closed_by_agent(int fd)
{
	char c;
	ssize_t n = recv(fd, &c, 1, MSG_DONTWAIT);

	return n == 0 || (n < 0 && errno == ECONNRESET);
}

/* Sends a HELLO frame's header announcing len bytes and the first `send` of them. */
static void send_hello(int fd, uint32_t len, uint32_t send)
{
	unsigned char h[WIRE_HEADER] = { 0, 0, (unsigned char)(len >> 8), (unsigned char)len, WIRE_HELLO, 0, 0, 0 };
	char body[256];

	assert_true(len <= sizeof(body) && send <= len);
	memset(body, ' ', sizeof(body));
	assert_int_equal(write(fd, h, sizeof(h)), (ssize_t)sizeof(h));
	if (send)
		assert_int_equal(write(fd, body, send), (ssize_t)send);
}

static void test_hello_passes_strangers(void **state)
{
	struct sockaddr_in sa;
	struct agent_gate g;
	int lfd = listener(&sa), idle = dial(&sa), partial = dial(&sa), good, fd, v = 0;
	socklen_t len = sizeof(v);

	(void)state;
	agent_gate_init(&g, lfd);
	/* strangers alone: the time runs out, nothing is handed on */
	send_hello(partial, 100, 10);
	assert_int_equal(agent_gate_next(&g, 200, NULL), -2);
	assert_int_equal(g.n, 2);
	/* a whole hello passes them, and comes with the peer timeout set */
	good = dial(&sa);
	send_hello(good, 20, 20);
	fd = agent_gate_next(&g, 2000, NULL);
	assert_true(fd >= 0);
	assert_int_equal(getsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &v, &len), 0);
	assert_int_equal(v, NET_PEER_TIMEOUT_S * 1000);
	close(fd);
	assert_int_equal(g.n, 2);
	/* half a hello, then the end: dropped, not waited on until its deadline */
	close(partial);
	assert_int_equal(agent_gate_next(&g, 200, NULL), -2);
	assert_int_equal(g.n, 1);
	/* something that is not a hello is dropped at once */
	{
		unsigned char h[WIRE_HEADER] = { 0, 0, 0, 2, WIRE_REQUEST, 0, 0, 0 };

		assert_int_equal(write(idle, h, sizeof(h)), (ssize_t)sizeof(h));
	}
	assert_int_equal(agent_gate_next(&g, 200, NULL), -2);
	assert_int_equal(g.n, 0);
	agent_gate_release(&g);
	close(idle);
	close(good);
	close(lfd);
}

/* Strangers from several addresses fill it; each newcomer pushes out the busiest address's oldest. */
static void test_full_gate_pushes_out_the_oldest(void **state)
{
	struct sockaddr_in sa;
	struct agent_gate g;
	int lfd = listener(&sa), fds[AGENT_GATE_MAX + 6], good, fd;

	(void)state;
	agent_gate_init(&g, lfd);
	for (unsigned i = 0; i < ARRAY_LEN(fds); i++)
		fds[i] = dial_from(&sa, 10 + i % 3);
	assert_int_equal(agent_gate_next(&g, 300, NULL), -2);
	assert_int_equal(g.n, AGENT_GATE_MAX);
	/* the late ones got in, the first ones went */
	assert_true(closed_by_agent(fds[0]));
	assert_false(closed_by_agent(fds[ARRAY_LEN(fds) - 1]));
	good = dial_from(&sa, 20);
	send_hello(good, 20, 20);
	fd = agent_gate_next(&g, 2000, NULL);
	assert_true(fd >= 0);
	close(fd);
	agent_gate_release(&g);
	assert_int_equal(g.n, 0);
	for (unsigned i = 0; i < ARRAY_LEN(fds); i++)
		close(fds[i]);
	close(good);
	close(lfd);
}

/*
 * The real client has connected and not yet been read when strangers from
 * another machine fill the gate twice over: they push out their own, the
 * client keeps its place.
 */
static void test_strangers_do_not_push_out_the_client(void **state)
{
	struct sockaddr_in sa;
	struct agent_gate g;
	int lfd = listener(&sa), client, strangers[2 * AGENT_GATE_MAX], fd;

	(void)state;
	agent_gate_init(&g, lfd);
	client = dial_from(&sa, 2);
	assert_int_equal(agent_gate_next(&g, 100, NULL), -2);
	for (unsigned i = 0; i < ARRAY_LEN(strangers); i++)
		strangers[i] = dial_from(&sa, 3);
	assert_int_equal(agent_gate_next(&g, 300, NULL), -2);
	assert_false(closed_by_agent(client));
	send_hello(client, 20, 20);
	fd = agent_gate_next(&g, 2000, NULL);
	assert_true(fd >= 0);
	close(fd);
	agent_gate_release(&g);
	for (unsigned i = 0; i < ARRAY_LEN(strangers); i++)
		close(strangers[i]);
	close(client);
	close(lfd);
}

/* The real client's side, in a thread: the whole handshake with the key. */
struct client_end {
	const struct sockaddr_in *sa;
	const unsigned char *key;
	int fd, rc;
	pthread_t tid;
};

static void *client_main(void *arg)
{
	struct client_end *c = arg;
	struct wire_chan chan;

	c->rc = wire_auth_client(c->fd, c->key, "control", 0, 0, 10000, &chan);
	return NULL;
}

/* Sends a hello as the real client's: a fresh nonce and, with key, the tag a key holder makes. */
static void send_json_hello(int fd, const char *role, const unsigned char *key)
{
	static unsigned next_nonce = 7;
	struct wire_binding b = { 0 };
	unsigned char tag[WIRE_MAC_BYTES];
	char body[400], nonce[2 * WIRE_NONCE_BYTES + 1], tag_hex[2 * WIRE_MAC_BYTES + 1] = "";

	snprintf(nonce, sizeof(nonce), "%064x", next_nonce++);
	snprintf(b.role, sizeof(b.role), "%s", role);
	for (unsigned i = 0; i < WIRE_NONCE_BYTES; i++)
		sscanf(nonce + 2 * i, "%2hhx", &b.client_nonce[i]);
	if (key) {
		assert_int_equal(wire_proof(key, "hello", &b, tag), 0);
		wire_hex(tag, sizeof(tag), tag_hex);
	}
	snprintf(body, sizeof(body), "{\"proto\":%d,\"role\":\"%s\",\"nonce\":\"%s\"%s%s%s}",
		 WIRE_PROTO, role, nonce, key ? ",\"tag\":\"" : "", tag_hex, key ? "\"" : "");
	assert_int_equal(wire_send(fd, WIRE_HELLO, body, strlen(body)), 0);
}

/*
 * The finding: idle connections from the client's own address (about 50 a
 * second) kept it out in 5 runs of 5 ("refused the connection"). A flood of
 * silent connections from 127.0.0.1, the client's address, goes on while
 * the real client connects and makes its whole handshake: it gets in, and
 * once its hello is read it is a key holder the flood never pushes out.
 * The old gate (4 places an address, none pushed out in its first second)
 * refused the client.
 */
struct flood {
	const struct sockaddr_in *sa;
	atomic_int stop;
	int fds[400];
	unsigned n;
	pthread_t tid;
};

static void *flood_main(void *arg)
{
	struct flood *f = arg;
	const struct timespec gap = { 0, 5 * 1000 * 1000 };	/* 200 a second */

	while (!atomic_load(&f->stop) && f->n < ARRAY_LEN(f->fds)) {
		f->fds[f->n++] = dial_from(f->sa, 1);
		nanosleep(&gap, NULL);
	}
	return NULL;
}

/* The agent's end: accepts until a key holder has made its whole handshake. */
struct gate_end {
	struct agent_gate *g;
	const unsigned char *key;
	int fd;
	pthread_t tid;
};

static void *gate_main(void *arg)
{
	struct gate_end *e = arg;
	struct wire_chan chan;
	struct wire_binding b;

	e->fd = agent_gate_accept(e->g, e->key, 10000, NULL, NULL, &chan, &b);
	return NULL;
}

static void test_flood_from_the_clients_address(void **state)
{
	struct sockaddr_in sa;
	struct agent_gate g;
	unsigned char key[WIRE_KEY_BYTES];
	struct wire_chan chan;
	struct flood f = { .sa = &sa };
	struct gate_end e = { .g = &g, .key = key };
	int lfd = listener(&sa), client, held, rc;
	const struct timespec flooding = { 0, 300 * 1000 * 1000 };

	(void)state;
	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(wire_key_from_token(TOKEN, key), 0);
	agent_gate_init(&g, lfd);
	atomic_init(&f.stop, 0);
	assert_int_equal(pthread_create(&e.tid, NULL, gate_main, &e), 0);
	assert_int_equal(pthread_create(&f.tid, NULL, flood_main, &f), 0);
	nanosleep(&flooding, NULL);
	/* the gate is full of the flood by now; the client comes from the same address */
	client = dial_from(&sa, 1);
	rc = wire_auth_client(client, key, "control", 0, 0, 10000, &chan);
	if (rc < 0)
		fail_msg("the client was kept out: %s", err_msg());
	assert_int_equal(pthread_join(e.tid, NULL), 0);
	assert_true(e.fd >= 0);
	/* a key holder that stalls after its hello keeps its place through the flood */
	held = dial_from(&sa, 1);
	send_json_hello(held, "control", key);
	nanosleep(&flooding, NULL);
	atomic_store(&f.stop, 1);
	assert_int_equal(pthread_join(f.tid, NULL), 0);
	assert_true(f.n > 2 * AGENT_GATE_MAX);
	assert_int_equal(agent_gate_accept(&g, key, 300, NULL, NULL, &chan, &(struct wire_binding){ 0 }), -2);
	assert_false(closed_by_agent(held));
	for (unsigned i = 0; i < g.n; i++)
		if (g.e[i].stage == AGENT_GATE_AUTH)
			held = -1;
	assert_int_equal(held, -1);
	agent_gate_release(&g);
	for (unsigned i = 0; i < f.n; i++)
		close(f.fds[i]);
	close(client);
	close(e.fd);
	close(lfd);
}

/*
 * A key holder's hello recorded on the wire and sent again (its tag is good,
 * its nonce was seen): refused, so a replay gets no place among the key
 * holders the gate never pushes out.
 */
static void test_replayed_hello_refused(void **state)
{
	struct sockaddr_in sa;
	struct agent_gate g;
	unsigned char key[WIRE_KEY_BYTES], buf[512];
	struct wire_chan chan;
	struct wire_binding b;
	enum wire_type type;
	char *payload = NULL;
	uint32_t len = 0;
	int lfd = listener(&sa), first = dial_from(&sa, 11), again, spy[2];
	ssize_t n;

	(void)state;
	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(wire_key_from_token(TOKEN, key), 0);
	agent_gate_init(&g, lfd);
	/* the hello as it went on the wire, recorded */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, spy), 0);
	send_json_hello(spy[0], "control", key);
	n = read(spy[1], buf, sizeof(buf));
	assert_true(n > WIRE_HEADER);
	assert_int_equal(write(first, buf, (size_t)n), n);
	assert_int_equal(agent_gate_accept(&g, key, 300, NULL, NULL, &chan, &b), -2);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.e[0].stage, AGENT_GATE_AUTH);
	again = dial_from(&sa, 12);
	assert_int_equal(write(again, buf, (size_t)n), n);
	assert_int_equal(agent_gate_accept(&g, key, 300, NULL, NULL, &chan, &b), -2);
	assert_int_equal(g.n, 1);
	assert_int_equal(wire_recv(again, 1000, &type, &payload, &len), 0);
	assert_int_equal(type, WIRE_ERROR);
	assert_non_null(strstr(payload, "replayed"));
	free(payload);
	agent_gate_release(&g);
	close(spy[0]);
	close(spy[1]);
	close(first);
	close(again);
	close(lfd);
}

/*
 * A stranger that says a good hello, takes the agent's answer and then
 * never proves the key (or stalls) must not hold the door: the real client,
 * connecting after it, completes its handshake while the stranger is still
 * waiting in the gate. With the handshake made after the gate (the old
 * agent), agent_gate_accept's first fd was the stranger's and the agent sat
 * in its recv until the stranger's 5 s ran out.
 */
static void test_stalled_handshake_does_not_hold_the_door(void **state)
{
	struct sockaddr_in sa;
	struct agent_gate g;
	unsigned char key[WIRE_KEY_BYTES];
	struct wire_chan chan;
	struct wire_binding b;
	struct client_end c;
	enum wire_type type;
	json_object *answer = NULL;
	int lfd = listener(&sa), stalled = dial_from(&sa, 5), stalled2 = dial_from(&sa, 6), fd;

	(void)state;
	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(wire_key_from_token(TOKEN, key), 0);
	agent_gate_init(&g, lfd);
	/* a stranger's hello, without the key's tag: refused at once, never answered with a proof */
	{
		int stranger = dial_from(&sa, 4);
		char *payload = NULL;
		uint32_t len = 0;

		send_json_hello(stranger, "control", NULL);
		assert_int_equal(agent_gate_accept(&g, key, 300, NULL, NULL, &chan, &b), -2);
		/* the two silent ones dialled first still wait; the stranger is gone */
		assert_int_equal(g.n, 2);
		assert_int_equal(wire_recv(stranger, 1000, &type, &payload, &len), 0);
		assert_int_equal(type, WIRE_ERROR);
		assert_non_null(strstr(payload, "no proof of the session key"));
		free(payload);
		close(stranger);
	}
	/* two key holders first: each a good hello, then nothing */
	send_json_hello(stalled, "control", key);
	send_json_hello(stalled2, "control", key);
	assert_int_equal(agent_gate_accept(&g, key, 300, NULL, NULL, &chan, &b), -2);
	/* both were answered with the agent's proof and wait for theirs */
	assert_int_equal(wire_recv_json(stalled, 1000, &type, &answer), 0);
	assert_int_equal(type, WIRE_OK);
	json_object_put(answer);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.e[0].stage, AGENT_GATE_AUTH);
	/* the real client comes after them and gets in at once */
	c = (struct client_end){ .sa = &sa, .key = key, .fd = dial_from(&sa, 7) };
	assert_int_equal(pthread_create(&c.tid, NULL, client_main, &c), 0);
	fd = agent_gate_accept(&g, key, 10000, NULL, NULL, &chan, &b);
	assert_true(fd >= 0);
	assert_int_equal(pthread_join(c.tid, NULL), 0);
	assert_int_equal(c.rc, 0);
	assert_true(chan.authenticated);
	assert_string_equal(b.role, "control");
	/* the strangers are still waiting: the client did not wait for them */
	assert_int_equal(g.n, 2);
	assert_false(closed_by_agent(stalled));
	/* a wrong proof from a stranger is told and dropped, not held */
	{
		char bad[200], *payload = NULL;
		uint32_t len = 0;

		snprintf(bad, sizeof(bad), "{\"proof\":\"%064x\"}", 1);
		assert_int_equal(wire_send(stalled2, WIRE_AUTH, bad, strlen(bad)), 0);
		assert_int_equal(agent_gate_accept(&g, key, 300, NULL, NULL, &chan, &b), -2);
		assert_int_equal(g.n, 1);
		assert_int_equal(wire_recv_json(stalled2, 1000, &type, &answer), 0);	/* its OK */
		json_object_put(answer);
		assert_int_equal(wire_recv(stalled2, 1000, &type, &payload, &len), 0);
		assert_int_equal(type, WIRE_ERROR);
		free(payload);
	}
	close(fd);
	close(c.fd);
	agent_gate_release(&g);
	close(stalled);
	close(stalled2);
	close(lfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		slow_unit_test(test_hello_passes_strangers),
		slow_unit_test(test_full_gate_pushes_out_the_oldest),
		cmocka_unit_test(test_strangers_do_not_push_out_the_client),
		cmocka_unit_test(test_flood_from_the_clients_address),
		cmocka_unit_test(test_replayed_hello_refused),
		slow_unit_test(test_stalled_handshake_does_not_hold_the_door),
	};

	return test_run("agent_gate", tests, ARRAY_LEN(tests), NULL, 0);
}
