/*
 * The agent's door (agent_gate.c): strangers wait, a complete hello passes,
 * at most 8 wait, at most 4 from one address, a young connection is not
 * pushed out, the preferred address always gets in.
 */
#include "testutil.h"

#include "agent/agent.h"
#include "agent/agent_gate.h"
#include "netutil.h"
#include "stream/wire_auth.h"

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

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

/* Strangers from several addresses fill it; once they are old, a newcomer pushes the oldest out. */
static void test_at_most_eight(void **state)
{
	struct sockaddr_in sa;
	struct agent_gate g;
	int lfd = listener(&sa), fds[AGENT_GATE_MAX + 4], good, fd;

	(void)state;
	agent_gate_init(&g, lfd);
	for (unsigned i = 0; i < ARRAY_LEN(fds); i++)
		fds[i] = dial_from(&sa, 10 + i % 3);
	assert_int_equal(agent_gate_next(&g, 300, NULL), -2);
	assert_int_equal(g.n, AGENT_GATE_MAX);
	/* young ones are not pushed out: the late ones were refused */
	assert_false(closed_by_agent(fds[0]));
	assert_true(closed_by_agent(fds[ARRAY_LEN(fds) - 1]));
	/* once the waiting ones are a second old, a newcomer pushes out the oldest */
	assert_int_equal(agent_gate_next(&g, AGENT_GATE_MIN_AGE_MS + 100, NULL), -2);
	good = dial_from(&sa, 20);
	send_hello(good, 20, 20);
	fd = agent_gate_next(&g, 2000, NULL);
	assert_true(fd >= 0);
	assert_true(closed_by_agent(fds[0]));
	close(fd);
	agent_gate_release(&g);
	assert_int_equal(g.n, 0);
	for (unsigned i = 0; i < ARRAY_LEN(fds); i++)
		close(fds[i]);
	close(good);
	close(lfd);
}

/*
 * The case: the real client has connected and not yet been read
 * when nine strangers from one machine connect. Before, the ninth pushed
 * the real client out; now one address holds at most 4 places and a young
 * connection is never pushed out.
 */
static void test_strangers_do_not_push_out_the_client(void **state)
{
	struct sockaddr_in sa;
	struct agent_gate g;
	int lfd = listener(&sa), client, strangers[9], fd, held = 0;

	(void)state;
	agent_gate_init(&g, lfd);
	client = dial_from(&sa, 2);
	assert_int_equal(agent_gate_next(&g, 100, NULL), -2);
	for (unsigned i = 0; i < ARRAY_LEN(strangers); i++)
		strangers[i] = dial_from(&sa, 3);
	assert_int_equal(agent_gate_next(&g, 300, NULL), -2);
	for (unsigned i = 0; i < ARRAY_LEN(strangers); i++)
		held += !closed_by_agent(strangers[i]);
	assert_int_equal(held, AGENT_GATE_PER_ADDR);
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

/* The SSH client's address always gets in, even into a gate full of young strangers. */
static void test_preferred_always_gets_in(void **state)
{
	struct sockaddr_in sa;
	struct agent_gate g;
	int lfd = listener(&sa), strangers[AGENT_GATE_MAX], client, fd;

	(void)state;
	assert_int_equal(agent_gate_prefer("127.0.0.9"), 1);
	agent_gate_init(&g, lfd);
	for (unsigned i = 0; i < ARRAY_LEN(strangers); i++)
		strangers[i] = dial_from(&sa, 30 + i % 2);
	assert_int_equal(agent_gate_next(&g, 300, NULL), -2);
	assert_int_equal(g.n, AGENT_GATE_MAX);
	client = dial_from(&sa, 9);
	send_hello(client, 20, 20);
	fd = agent_gate_next(&g, 2000, NULL);
	assert_true(fd >= 0);
	assert_true(closed_by_agent(strangers[0]));
	close(fd);
	agent_gate_release(&g);
	assert_int_equal(agent_gate_prefer(NULL), 0);
	for (unsigned i = 0; i < ARRAY_LEN(strangers); i++)
		close(strangers[i]);
	close(client);
	close(lfd);
}

#define TOKEN "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

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

/* Sends a hello as the real client's, a fresh nonce and all. */
static void send_json_hello(int fd, const char *role)
{
	char body[256];

	snprintf(body, sizeof(body),
		 "{\"proto\":%d,\"role\":\"%s\",\"nonce\":\"%064x\"}", WIRE_PROTO, role, 7);
	assert_int_equal(wire_send(fd, WIRE_HELLO, body, strlen(body)), 0);
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
	/* two strangers first: each a good hello, then nothing */
	send_json_hello(stalled, "control");
	send_json_hello(stalled2, "control");
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
		slow_unit_test(test_at_most_eight),
		cmocka_unit_test(test_strangers_do_not_push_out_the_client),
		cmocka_unit_test(test_preferred_always_gets_in),
		slow_unit_test(test_stalled_handshake_does_not_hold_the_door),
	};

	return test_run("agent_gate", tests, ARRAY_LEN(tests), NULL, 0);
}
