/* The agent's door (agent_gate.c): strangers wait, a complete hello passes, at most 8 wait. */
#include "testutil.h"

#include "agent/agent.h"
#include "agent/agent_gate.h"
#include "netutil.h"

#include <arpa/inet.h>
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

static int dial(const struct sockaddr_in *sa)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (const struct sockaddr *)sa, sizeof(*sa)), 0);
	return fd;
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
	assert_int_equal(agent_gate_next(&g, 200), -2);
	assert_int_equal(g.n, 2);
	/* a whole hello passes them, and comes with the peer timeout set */
	good = dial(&sa);
	send_hello(good, 20, 20);
	fd = agent_gate_next(&g, 2000);
	assert_true(fd >= 0);
	assert_int_equal(getsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &v, &len), 0);
	assert_int_equal(v, NET_PEER_TIMEOUT_S * 1000);
	close(fd);
	assert_int_equal(g.n, 2);
	/* half a hello, then the end: dropped, not waited on until its deadline */
	close(partial);
	assert_int_equal(agent_gate_next(&g, 200), -2);
	assert_int_equal(g.n, 1);
	/* something that is not a hello is dropped at once */
	{
		unsigned char h[WIRE_HEADER] = { 0, 0, 0, 2, WIRE_REQUEST, 0, 0, 0 };

		assert_int_equal(write(idle, h, sizeof(h)), (ssize_t)sizeof(h));
	}
	assert_int_equal(agent_gate_next(&g, 200), -2);
	assert_int_equal(g.n, 0);
	agent_gate_release(&g);
	close(idle);
	close(good);
	close(lfd);
}

static void test_at_most_eight(void **state)
{
	struct sockaddr_in sa;
	struct agent_gate g;
	int lfd = listener(&sa), fds[AGENT_GATE_MAX + 4], good, fd;

	(void)state;
	agent_gate_init(&g, lfd);
	for (unsigned i = 0; i < ARRAY_LEN(fds); i++)
		fds[i] = dial(&sa);
	assert_int_equal(agent_gate_next(&g, 300), -2);
	assert_int_equal(g.n, AGENT_GATE_MAX);
	/* the oldest were pushed out: the agent closed them */
	{
		char c;

		assert_int_equal(read(fds[0], &c, 1), 0);
	}
	/* a newcomer with a hello still gets in, pushing out another */
	good = dial(&sa);
	send_hello(good, 20, 20);
	fd = agent_gate_next(&g, 2000);
	assert_true(fd >= 0);
	close(fd);
	agent_gate_release(&g);
	assert_int_equal(g.n, 0);
	for (unsigned i = 0; i < ARRAY_LEN(fds); i++)
		close(fds[i]);
	close(good);
	close(lfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hello_passes_strangers),
		cmocka_unit_test(test_at_most_eight),
	};

	return test_run("agent_gate", tests, ARRAY_LEN(tests), NULL, 0);
}
