/*
 * libFuzzer target: both sides of the handshake (stream/wire_auth.h), the
 * gate's look at what a connection sent (agent/agent_gate.h) and the
 * sealed frame reader (stream/wire.h), on arbitrary bytes. The first byte
 * chooses, the rest is the input:
 *   0  the agent's side: the rest, as JSON, is a HELLO; a parsed one with
 *      a role and a nonce is also given the tag a key holder makes (so the
 *      answer and the AUTH step are reached); after a NUL, the rest is the
 *      AUTH; the agent answers, then checks it (wire_auth_agent_answer,
 *      _finish);
 *   1  the client's side: the rest, cut at a NUL, is the agent's two
 *      frames as they come (its answer to the hello, then to the AUTH);
 *   2  the gate: a connection on loopback sends the rest, then the gate
 *      looks (agent_gate_next, 20 ms) and takes it or drops it;
 *   3  the sealed frame reader, at the agent's end of an authenticated
 *      channel: the rest as it comes (it must fail: nothing is sealed with
 *      the key), then sealed frames cut from it with any header.
 * Beyond the sanitizers: no forged input passes (the client never takes an
 * agent that did not prove the key; the agent never authenticates a peer
 * whose AUTH was not made with it; unsealed bytes never read as a frame);
 * a sealed frame that reads is of a type the agent takes, within its
 * bound, and gives back its payload; the gate hands on only a connection
 * whose whole HELLO frame arrived; no fd is left open.
 */
#define _GNU_SOURCE
#include "agent/agent_gate.h"
#include "harness.h"
#include "stream/seal.h"
#include "stream/wire.h"
#include "stream/wire_auth.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned char key[WIRE_KEY_BYTES];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	harness_session_key(key);
	return 0;
}

static void violation(const char *what)
{
	fprintf(stderr, "INVARIANT VIOLATED: %s\n", what);
	abort();
}

static void pair(int sv[2])
{
	int big = 1 << 20;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		abort();
	for (int i = 0; i < 2; i++)
		setsockopt(sv[i], SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
}

/* The part of data before its first NUL (or all of it), and what follows. */
static size_t cut(const uint8_t *data, size_t size, const uint8_t **rest, size_t *rest_len)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t n = nul ? (size_t)(nul - data) : size;

	*rest = nul ? nul + 1 : data + size;
	*rest_len = nul ? size - n - 1 : 0;
	return n;
}

/* A hello parsed from the input, tagged with the key when it has the fields a tag binds. */
static void tag_it(json_object *hello)
{
	struct wire_binding b;
	unsigned char tag[WIRE_MAC_BYTES];
	char hex[2 * WIRE_MAC_BYTES + 1];

	if (wire_hello_check(key, hello, &b) == 0)
		violation("agent: a hello without the key's tag passed");
	if (!b.role[0] || wire_proof(key, "hello", &b, tag) < 0)
		return;
	wire_hex(tag, sizeof(tag), hex);
	json_object_object_add(hello, "tag", json_object_new_string(hex));
}

static void agent_side(const uint8_t *data, size_t size)
{
	const uint8_t *rest;
	size_t rest_len, n = cut(data, size, &rest, &rest_len);
	struct wire_binding b;
	struct wire_chan chan;
	json_object *hello = NULL, *auth = NULL;
	int sv[2];

	if (wire_parse_json((const char *)data, (uint32_t)n, &hello) < 0)
		return;
	tag_it(hello);
	pair(sv);
	if (wire_auth_agent_answer(sv[0], key, hello, &b) == 0 &&
	    wire_parse_json((const char *)rest, (uint32_t)rest_len, &auth) == 0 &&
	    wire_auth_agent_finish(sv[0], key, &b, WIRE_AUTH, auth, &chan) == 0)
		violation("agent: a peer's AUTH it did not make with the key was taken");
	json_object_put(auth);
	json_object_put(hello);
	close(sv[0]);
	close(sv[1]);
}

static void client_side(const uint8_t *data, size_t size)
{
	struct wire_chan chan;
	int sv[2];

	pair(sv);
	/* the agent's frames, all there before the client reads (the buffer holds them) */
	if (size && write(sv[1], data, size) != (ssize_t)size)
		abort();
	shutdown(sv[1], SHUT_WR);
	if (wire_auth_client(sv[0], key, "data", 3, 1, 100, &chan) == 0)
		violation("client: an agent that did not prove the key was taken");
	close(sv[0]);
	close(sv[1]);
}

static void gate(const uint8_t *data, size_t size)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	struct agent_gate g;
	struct agent_gate_entry ready;
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), c, fd;

	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(lfd, 8) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&sa, &len) < 0)
		abort();
	c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c < 0 || connect(c, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		abort();
	if (size > 65536)
		size = 65536;
	if (size && send(c, data, size, MSG_NOSIGNAL) < 0)
		abort();
	agent_gate_init(&g, lfd);
	fd = agent_gate_next(&g, 20, &ready);
	if (fd >= 0) {
		enum wire_type type;
		uint32_t n;

		/* handed on: a whole HELLO of at most AGENT_GATE_MAX_HELLO bytes is there */
		if (size < WIRE_HEADER || wire_header_decode(data, &type, &n) < 0 || type != WIRE_HELLO ||
		    n > AGENT_GATE_MAX_HELLO || size < WIRE_HEADER + n)
			violation("gate: a connection handed on without a whole hello");
		close(fd);
	}
	agent_gate_release(&g);
	close(c);
	close(lfd);
}

/* Sealed frames at the agent's end: each a header from the input and a payload. */
static void frame_reader(const uint8_t *data, size_t size)
{
	struct wire_binding b = { .role = "control" };
	struct wire_chan agent, client;
	enum wire_type type;
	char *payload;
	uint32_t len;
	int sv[2];

	memset(b.client_nonce, 1, sizeof(b.client_nonce));
	pair(sv);
	wire_chan_init(&agent, sv[0]);
	wire_chan_init(&client, sv[1]);
	if (wire_chan_authenticate(&agent, key, &b, 1) < 0 || wire_chan_authenticate(&client, key, &b, 0) < 0)
		abort();
	/* unsealed, as they come: never a frame */
	if (size && write(sv[1], data, size) != (ssize_t)size)
		abort();
	shutdown(sv[1], SHUT_WR);
	if (wire_chan_recv(&agent, 100, &type, &payload, &len) == 0)
		violation("frame reader: unsealed bytes read as a frame");
	close(sv[0]);
	close(sv[1]);

	/* sealed with the client's key, each with an 8-byte header from the input */
	pair(sv);
	agent.fd = sv[0];
	agent.recv_seq = 0;
	client.send_seq = 0;
	while (size >= WIRE_HEADER + 2) {
		unsigned char h[WIRE_HEADER], tag[SEAL_TAG_BYTES], *body;
		size_t n = data[WIRE_HEADER] | (size_t)data[WIRE_HEADER + 1] << 8;
		struct seal s;

		memcpy(h, data, WIRE_HEADER);
		data += WIRE_HEADER + 2;
		size -= WIRE_HEADER + 2;
		if (n > size)
			n = size;
		/* the header announces what it likes; the payload is what the input has */
		body = malloc(n + 1);
		memcpy(body, data, n);
		if (seal_init(&s, client.send_key) < 0 ||
		    seal_encrypt(&s, client.send_seq++, h, sizeof(h), body, n, tag) < 0)
			abort();
		seal_release(&s);
		if (write(sv[1], h, sizeof(h)) != (ssize_t)sizeof(h) ||
		    (n && write(sv[1], body, n) != (ssize_t)n) || write(sv[1], tag, sizeof(tag)) != (ssize_t)sizeof(tag))
			abort();
		if (wire_chan_recv(&agent, 100, &type, &payload, &len) == 0) {
			if (type != WIRE_REQUEST && type != WIRE_MANIFEST)
				violation("frame reader: a type the agent never takes");
			if (len != n || memcmp(payload, data, n) ||
			    len > (type == WIRE_MANIFEST ? WIRE_MAX_FRAME : WIRE_MAX_JSON))
				violation("frame reader: the payload read is not the one sealed, or over its bound");
			if (agent.more && type != WIRE_MANIFEST)
				violation("frame reader: more follows a frame that is not a manifest's");
			free(payload);
		} else {
			free(body);
			break;	/* the stream is lost after a refused frame */
		}
		free(body);
		data += n;
		size -= n;
	}
	close(sv[0]);
	close(sv[1]);
	wire_chan_wipe(&agent);
	wire_chan_wipe(&client);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fds = harness_count_fds();

	if (size < 1)
		return 0;
	switch (data[0] % 4) {
	case 0: agent_side(data + 1, size - 1); break;
	case 1: client_side(data + 1, size - 1); break;
	case 2: gate(data + 1, size - 1); break;
	default: frame_reader(data + 1, size - 1); break;
	}
	if (harness_count_fds() != fds)
		violation("an fd was left open");
	return 0;
}
