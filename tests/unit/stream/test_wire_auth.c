/*
 * Proving the session key (stream/wire_auth.c): both ends of a socketpair,
 * one of them in a thread; fake agents and fake clients that answer with a
 * wrong or replayed proof are refused, and the token never crosses the wire.
 */
#define _GNU_SOURCE
#include "testutil.h"

#include "err.h"
#include "stream/wire_auth.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#define TOKEN "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define OTHER "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"

static unsigned char key[WIRE_KEY_BYTES], other_key[WIRE_KEY_BYTES];

static int keys_setup(void **state)
{
	(void)state;
	signal(SIGPIPE, SIG_IGN);
	return wire_key_from_token(TOKEN, key) || wire_key_from_token(OTHER, other_key);
}

/* The real agent's side, in a thread. */
struct agent_end {
	int fd;
	const unsigned char *key;
	struct wire_chan chan;
	int rc;
	char error[ERR_MAX];
	pthread_t tid;
};

static void *agent_main(void *arg)
{
	struct agent_end *a = arg;
	enum wire_type type;
	json_object *hello = NULL;

	a->rc = wire_recv_json(a->fd, 2000, &type, &hello);
	if (a->rc == 0)
		a->rc = wire_auth_agent(a->fd, a->key, hello, 2000, &a->chan);
	if (a->rc < 0)
		snprintf(a->error, sizeof(a->error), "%s", err_msg());
	json_object_put(hello);
	return NULL;
}

static void agent_start(struct agent_end *a, int fd, const unsigned char *k)
{
	memset(a, 0, sizeof(*a));
	a->fd = fd;
	a->key = k;
	assert_int_equal(pthread_create(&a->tid, NULL, agent_main, a), 0);
}

/*
 * Copies bytes both ways between a and b until both close, keeping all of
 * them: what anyone on the path sees.
 */
struct relay {
	int a, b;
	char seen[65536];
	size_t nseen;
	pthread_t tid;
};

static void *relay_main(void *arg)
{
	struct relay *r = arg;
	struct pollfd p[2] = { { .fd = r->a, .events = POLLIN }, { .fd = r->b, .events = POLLIN } };
	int open_ends = 2;

	while (open_ends) {
		if (poll(p, 2, 2000) <= 0)
			break;
		for (int i = 0; i < 2; i++) {
			char buf[4096];
			ssize_t n;

			if (!(p[i].revents & (POLLIN | POLLHUP)))
				continue;
			n = read(p[i].fd, buf, sizeof(buf));
			if (n <= 0) {
				shutdown(p[1 - i].fd, SHUT_WR);
				p[i].fd = -1;
				open_ends--;
				continue;
			}
			if (r->nseen + (size_t)n <= sizeof(r->seen)) {
				memcpy(r->seen + r->nseen, buf, (size_t)n);
				r->nseen += (size_t)n;
			}
			if (write(p[1 - i].fd, buf, (size_t)n) != n)
				return NULL;
		}
	}
	return NULL;
}

static void test_handshake_and_no_token_on_the_wire(void **state)
{
	int client_sv[2], agent_sv[2];
	struct relay r = { 0 };
	struct agent_end a;
	struct wire_chan c;
	enum wire_type type;
	json_object *o = NULL, *req = json_object_new_object();
	unsigned char raw[32];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, client_sv), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, agent_sv), 0);
	r.a = client_sv[1];
	r.b = agent_sv[1];
	assert_int_equal(pthread_create(&r.tid, NULL, relay_main, &r), 0);
	agent_start(&a, agent_sv[0], key);
	assert_int_equal(wire_auth_client(client_sv[0], key, "control", 0, 0, 2000, &c), 0);
	pthread_join(a.tid, NULL);
	assert_int_equal(a.rc, 0);
	assert_true(c.authenticated && a.chan.authenticated);

	/* both directions authenticated */
	json_object_object_add(req, "op", json_object_new_string("info"));
	assert_int_equal(wire_chan_send_json(&c, WIRE_REQUEST, req), 0);
	assert_int_equal(wire_chan_recv_json(&a.chan, 2000, &type, &o), 0);
	assert_int_equal(type, WIRE_REQUEST);
	json_object_put(o);
	assert_int_equal(wire_chan_send_json(&a.chan, WIRE_OK, req), 0);
	assert_int_equal(wire_chan_recv_json(&c, 2000, &type, &o), 0);
	assert_int_equal(type, WIRE_OK);
	json_object_put(o);
	json_object_put(req);

	close(client_sv[0]);
	close(agent_sv[0]);
	pthread_join(r.tid, NULL);
	close(client_sv[1]);
	close(agent_sv[1]);
	/* the token is on no byte that crossed, neither as hex nor raw */
	assert_true(r.nseen > 200);
	assert_null(memmem(r.seen, r.nseen, TOKEN, strlen(TOKEN)));
	for (int i = 0; i < 32; i++)
		sscanf(TOKEN + 2 * i, "%2hhx", &raw[i]);
	assert_null(memmem(r.seen, r.nseen, raw, 8));
	assert_null(memmem(r.seen, r.nseen, "token", 5));
}

/*
 * A fake agent, in a thread: reads the hello, answers with a nonce and a
 * proof made with key k for its binding (the client's nonce from the hello
 * unless one is preset: a proof recorded from another connection), then
 * counts the bytes the client still sends before it closes.
 */
struct fake_agent {
	int fd;
	const unsigned char *k;
	struct wire_binding b;
	int preset_client_nonce;
	int rc;
	ssize_t after;
	pthread_t tid;
};

static void *fake_agent_main(void *arg)
{
	struct fake_agent *f = arg;
	enum wire_type type;
	json_object *hello = NULL, *o;
	unsigned char proof[WIRE_MAC_BYTES];
	char hex[2 * WIRE_MAC_BYTES + 1], buf[256];
	const char *role;
	ssize_t n;

	f->rc = -1;
	if (wire_recv_json(f->fd, 2000, &type, &hello) < 0 || type != WIRE_HELLO ||
	    wire_get_str(hello, "role", &role) < 0) {
		json_object_put(hello);
		return NULL;
	}
	snprintf(f->b.role, sizeof(f->b.role), "%s", role);
	if (!f->preset_client_nonce &&
	    wire_get_hex(hello, "nonce", f->b.client_nonce, WIRE_NONCE_BYTES) < 0) {
		json_object_put(hello);
		return NULL;
	}
	json_object_put(hello);
	if (wire_proof(f->k, "agent", &f->b, proof) < 0)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "proto", json_object_new_int(WIRE_PROTO));
	wire_hex(f->b.agent_nonce, WIRE_NONCE_BYTES, hex);
	json_object_object_add(o, "nonce", json_object_new_string(hex));
	wire_hex(proof, WIRE_MAC_BYTES, hex);
	json_object_object_add(o, "proof", json_object_new_string(hex));
	f->rc = wire_send_json(f->fd, WIRE_OK, o);
	json_object_put(o);
	f->after = 0;
	while ((n = read(f->fd, buf, sizeof(buf))) > 0)
		f->after += n;
	return NULL;
}

/* The client refuses the fake agent's proof, and sends nothing after its hello. */
static void expect_proof_refused(struct fake_agent *f)
{
	int sv[2];
	struct wire_chan c;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	f->fd = sv[1];
	memset(f->b.agent_nonce, 9, sizeof(f->b.agent_nonce));
	assert_int_equal(pthread_create(&f->tid, NULL, fake_agent_main, f), 0);
	assert_int_equal(wire_auth_client(sv[0], key, "control", 0, 0, 2000, &c), -1);
	assert_contains(err_msg(), "the agent did not prove it holds the session key");
	close(sv[0]);
	pthread_join(f->tid, NULL);
	close(sv[1]);
	assert_int_equal(f->rc, 0);
	assert_int_equal(f->after, 0);
}

static void test_fake_agent_wrong_key(void **state)
{
	struct fake_agent f = { .k = other_key };

	(void)state;
	expect_proof_refused(&f);
}

/* A genuine proof, recorded from a connection with another client nonce. */
static void test_fake_agent_replayed_proof(void **state)
{
	struct fake_agent f = { .k = key, .preset_client_nonce = 1 };

	(void)state;
	memset(f.b.client_nonce, 5, sizeof(f.b.client_nonce));
	expect_proof_refused(&f);
}

/*
 * A fake client, against the real agent's side: hello, then an AUTH frame
 * holding proof (hex). Returns the agent's answer's error, "" for OK.
 */
static void fake_client(const char *proof_hex, const unsigned char *agent_key, char *answer,
			size_t len, struct agent_end *a)
{
	int sv[2];
	enum wire_type type;
	json_object *o = json_object_new_object(), *reply = NULL;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	agent_start(a, sv[1], agent_key);
	json_object_object_add(o, "proto", json_object_new_int(WIRE_PROTO));
	json_object_object_add(o, "role", json_object_new_string("control"));
	json_object_object_add(o, "nonce", json_object_new_string(
		"1111111111111111111111111111111111111111111111111111111111111111"));
	{
		/* the hello's tag: this client holds the key, only its AUTH is wrong */
		struct wire_binding hb = { .role = "control" };
		unsigned char tag[WIRE_MAC_BYTES];
		char tag_hex[2 * WIRE_MAC_BYTES + 1];

		memset(hb.client_nonce, 0x11, sizeof(hb.client_nonce));
		assert_int_equal(wire_proof(agent_key, "hello", &hb, tag), 0);
		wire_hex(tag, sizeof(tag), tag_hex);
		json_object_object_add(o, "tag", json_object_new_string(tag_hex));
	}
	assert_int_equal(wire_send_json(sv[0], WIRE_HELLO, o), 0);
	json_object_put(o);
	assert_int_equal(wire_recv_json(sv[0], 2000, &type, &reply), 0);
	json_object_put(reply);
	o = json_object_new_object();
	json_object_object_add(o, "proof", json_object_new_string(proof_hex));
	assert_int_equal(wire_send_json(sv[0], WIRE_AUTH, o), 0);
	json_object_put(o);
	if (wire_recv_json(sv[0], 2000, &type, &reply) < 0)
		snprintf(answer, len, "%s", err_msg());
	else
		answer[0] = '\0';
	json_object_put(reply);
	pthread_join(a->tid, NULL);
	close(sv[0]);
	close(sv[1]);
}

/*
 * A hello without the session key's tag, or with another key's: the agent
 * answers with an error and no proof of its own (protocol 3; protocol 2
 * answered every hello with the agent's proof).
 */
static void test_hello_without_the_keys_tag(void **state)
{
	struct wire_binding b = { .role = "data", .job = 3, .stream = 1 }, got;
	unsigned char tag[WIRE_MAC_BYTES];
	char tag_hex[2 * WIRE_MAC_BYTES + 1];
	json_object *hello = json_object_new_object();

	(void)state;
	memset(b.client_nonce, 0x22, sizeof(b.client_nonce));
	json_object_object_add(hello, "proto", json_object_new_int(WIRE_PROTO));
	json_object_object_add(hello, "role", json_object_new_string("data"));
	json_object_object_add(hello, "job", json_object_new_int(3));
	json_object_object_add(hello, "stream", json_object_new_int(1));
	json_object_object_add(hello, "nonce", json_object_new_string(
		"2222222222222222222222222222222222222222222222222222222222222222"));
	assert_int_equal(wire_hello_check(key, hello, &got), -1);
	assert_contains(err_msg(), "no proof of the session key");
	assert_int_equal(wire_proof(other_key, "hello", &b, tag), 0);
	wire_hex(tag, sizeof(tag), tag_hex);
	json_object_object_add(hello, "tag", json_object_new_string(tag_hex));
	assert_int_equal(wire_hello_check(key, hello, &got), -1);
	assert_contains(err_msg(), "not of the session key");
	/* the key's own tag passes, and binds role, job and stream: another stream fails */
	assert_int_equal(wire_hello_check(other_key, hello, &got), 0);
	assert_string_equal(got.role, "data");
	assert_int_equal(got.stream, 1);
	json_object_object_add(hello, "stream", json_object_new_int(2));
	assert_int_equal(wire_hello_check(other_key, hello, &got), -1);
	json_object_put(hello);
}

static void test_fake_client_wrong_proof(void **state)
{
	struct agent_end a;
	char answer[ERR_MAX], hex[2 * WIRE_MAC_BYTES + 1];
	struct wire_binding b = { .role = "control" };
	unsigned char proof[WIRE_MAC_BYTES];

	(void)state;
	/* any bytes */
	fake_client("0000000000000000000000000000000000000000000000000000000000000000",
		    key, answer, sizeof(answer), &a);
	assert_string_equal(answer, "wrong proof of the session key");
	assert_int_equal(a.rc, -1);
	assert_string_equal(a.error, "a peer gave a wrong proof of the session key");
	assert_false(a.chan.authenticated);

	/* a genuine client proof, but for another agent nonce: recorded from another connection */
	memset(b.client_nonce, 0x11, sizeof(b.client_nonce));
	memset(b.agent_nonce, 3, sizeof(b.agent_nonce));
	assert_int_equal(wire_proof(key, "client", &b, proof), 0);
	wire_hex(proof, sizeof(proof), hex);
	fake_client(hex, key, answer, sizeof(answer), &a);
	assert_string_equal(answer, "wrong proof of the session key");
	assert_int_equal(a.rc, -1);
}

/* A proof is bound to its role, job and stream: each changes it. */
static void test_proof_binding(void **state)
{
	struct wire_binding b = { .role = "data", .job = 4, .stream = 1 }, c;
	unsigned char p1[WIRE_MAC_BYTES], p2[WIRE_MAC_BYTES];

	(void)state;
	assert_int_equal(wire_proof(key, "client", &b, p1), 0);
	c = b;
	c.job = 5;
	assert_int_equal(wire_proof(key, "client", &c, p2), 0);
	assert_false(wire_mac_equal(p1, p2));
	c = b;
	c.stream = 2;
	assert_int_equal(wire_proof(key, "client", &c, p2), 0);
	assert_false(wire_mac_equal(p1, p2));
	snprintf(c.role, sizeof(c.role), "control");
	c.stream = 1;
	assert_int_equal(wire_proof(key, "client", &c, p2), 0);
	assert_false(wire_mac_equal(p1, p2));
	/* the agent's proof is not the client's */
	assert_int_equal(wire_proof(key, "agent", &b, p2), 0);
	assert_false(wire_mac_equal(p1, p2));
	assert_int_equal(wire_proof(key, "client", &b, p2), 0);
	assert_true(wire_mac_equal(p1, p2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handshake_and_no_token_on_the_wire),
		cmocka_unit_test(test_fake_agent_wrong_key),
		cmocka_unit_test(test_fake_agent_replayed_proof),
		cmocka_unit_test(test_hello_without_the_keys_tag),
		cmocka_unit_test(test_fake_client_wrong_proof),
		cmocka_unit_test(test_proof_binding),
	};

	if (keys_setup(NULL))
		return 1;
	return test_run("wire_auth", tests, ARRAY_LEN(tests), NULL, 0);
}
