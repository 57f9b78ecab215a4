/* The agent's control protocol (stream/wire): frame headers, JSON frames, tokens. */
#include "testutil.h"

#include "err.h"
#include "stream/wire.h"
#include "stream/wire_auth.h"

#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_header_decode(void **state)
{
	unsigned char h[WIRE_HEADER] = { 0, 0, 0, 5, WIRE_REQUEST, 0, 0, 0 };
	enum wire_type t;
	uint32_t len;

	(void)state;
	assert_int_equal(wire_header_decode(h, &t, &len), 0);
	assert_int_equal(t, WIRE_REQUEST);
	assert_int_equal(len, 5);
	h[4] = 0;
	assert_int_equal(wire_header_decode(h, &t, &len), -1);
	assert_contains(err_msg(), "unknown message type");
	h[4] = 99;
	assert_int_equal(wire_header_decode(h, &t, &len), -1);
	h[4] = WIRE_OK;
	/* the flags: sealed, and more (of a manifest only); any other is refused */
	h[5] = WIRE_FLAG_SEALED;
	assert_int_equal(wire_header_decode(h, &t, &len), 0);
	assert_int_equal(wire_header_flags(h), WIRE_FLAG_SEALED);
	h[5] = WIRE_FLAG_SEALED | WIRE_FLAG_MORE;
	assert_int_equal(wire_header_decode(h, &t, &len), -1);
	assert_contains(err_msg(), "said more follows");
	h[5] = 4;
	assert_int_equal(wire_header_decode(h, &t, &len), -1);
	assert_contains(err_msg(), "unknown header flags");
	h[5] = 0;
	h[6] = 1;
	assert_int_equal(wire_header_decode(h, &t, &len), -1);
	assert_contains(err_msg(), "reserved");
	h[6] = 0;
	/* a JSON frame is bounded at 64 KiB, a manifest's frame at 1 MiB */
	h[0] = 0; h[1] = 1; h[2] = 0; h[3] = 1;
	assert_int_equal(wire_header_decode(h, &t, &len), -1);
	assert_contains(err_msg(), "exceeds the limit");
	h[4] = WIRE_MANIFEST;
	h[5] = WIRE_FLAG_SEALED | WIRE_FLAG_MORE;
	assert_int_equal(wire_header_decode(h, &t, &len), 0);
	h[1] = 0x10;
	h[3] = 0;
	assert_int_equal(wire_header_decode(h, &t, &len), 0);
	h[3] = 1;
	assert_int_equal(wire_header_decode(h, &t, &len), -1);
}

static void test_roundtrip_socketpair(void **state)
{
	int sv[2];
	json_object *o = json_object_new_object(), *got = NULL;
	enum wire_type t;
	const char *s;
	uint64_t v;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	json_object_object_add(o, "op", json_object_new_string("prepare"));
	json_object_object_add(o, "job", json_object_new_int64(42));
	assert_int_equal(wire_send_json(sv[0], WIRE_REQUEST, o), 0);
	assert_int_equal(wire_recv_json(sv[1], 1000, &t, &got), 0);
	assert_int_equal(t, WIRE_REQUEST);
	assert_int_equal(wire_get_str(got, "op", &s), 0);
	assert_string_equal(s, "prepare");
	assert_int_equal(wire_get_u64(got, "job", &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(wire_get_u64(got, "op", &v), -1);
	assert_contains(err_msg(), "'op'");
	assert_int_equal(wire_get_str(got, "missing", &s), -1);
	json_object_put(got);

	/* an ERROR frame becomes -1 carrying the peer's message */
	assert_int_equal(wire_send_error(sv[0], "disk full on the agent"), 0);
	assert_int_equal(wire_recv_json(sv[1], 1000, &t, &got), -1);
	assert_string_equal(err_msg(), "disk full on the agent");
	/* ... which is no fault of the connection */
	assert_int_equal(wire_last_fault(), WIRE_FAULT_NONE);

	/* garbage payload: not a JSON object */
	assert_int_equal(wire_send(sv[0], WIRE_REQUEST, "[1,2]", 5), 0);
	assert_int_equal(wire_recv_json(sv[1], 1000, &t, &got), -1);
	assert_contains(err_msg(), "not a JSON object");
	assert_int_equal(wire_send(sv[0], WIRE_REQUEST, "{\"a\":1} x", 9), 0);
	assert_int_equal(wire_recv_json(sv[1], 1000, &t, &got), -1);

	/* silence is bounded by the timeout */
	assert_int_equal(wire_recv_json(sv[1], 50, &t, &got), -1);
	assert_contains(err_msg(), "nothing for 50 ms");
	assert_int_equal(wire_last_fault(), WIRE_FAULT_TIMEOUT);

	/* truncated in the middle of a message, then closed */
	{
		unsigned char h[WIRE_HEADER] = { 0, 0, 0, 10, WIRE_REQUEST, 0, 0, 0 };

		assert_int_equal(write(sv[0], h, sizeof(h)), (ssize_t)sizeof(h));
		assert_int_equal(write(sv[0], "{\"a\"", 4), 4);
		close(sv[0]);
		assert_int_equal(wire_recv_json(sv[1], 1000, &t, &got), -1);
		assert_contains(err_msg(), "middle of a message");
	}
	assert_int_equal(wire_recv_json(sv[1], 1000, &t, &got), -1);
	assert_string_equal(err_msg(), "connection closed");
	assert_int_equal(wire_last_fault(), WIRE_FAULT_CLOSED);
	/* sending to a peer that is gone */
	assert_int_equal(wire_send(sv[1], WIRE_REQUEST, "{}", 2), -1);
	assert_int_equal(wire_last_fault(), WIRE_FAULT_CLOSED);
	close(sv[1]);
	json_object_put(o);
}

static void test_tokens(void **state)
{
	char a[WIRE_TOKEN_HEX + 1], b[WIRE_TOKEN_HEX + 1];

	(void)state;
	assert_int_equal(wire_token_generate(a), 0);
	assert_int_equal(wire_token_generate(b), 0);
	assert_true(wire_token_valid(a));
	assert_true(wire_token_equal(a, a));
	assert_false(wire_token_equal(a, b));
	assert_false(wire_token_valid("abc"));
	assert_false(wire_token_equal("", ""));
	memcpy(b, a, sizeof(a));
	b[WIRE_TOKEN_HEX - 1] = b[WIRE_TOKEN_HEX - 1] == 'a' ? 'b' : 'a';
	assert_false(wire_token_equal(a, b));
	b[3] = 'G';
	assert_false(wire_token_valid(b));
}

/* Two ends of one authenticated control connection on a socketpair: agent and client. */
static void authenticated_pair(struct wire_chan *agent, struct wire_chan *client)
{
	static const unsigned char key[WIRE_KEY_BYTES] = { 42 };
	struct wire_binding b = { .role = "control" };
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	memset(b.client_nonce, 1, sizeof(b.client_nonce));
	memset(b.agent_nonce, 2, sizeof(b.agent_nonce));
	wire_chan_init(agent, sv[0]);
	wire_chan_init(client, sv[1]);
	assert_int_equal(wire_chan_authenticate(agent, key, &b, 1), 0);
	assert_int_equal(wire_chan_authenticate(client, key, &b, 0), 0);
}

/*
 * A manifest goes in sealed pieces of at most 1 MiB, WIRE_FLAG_MORE on all
 * but the last, each opened before the next is read; a header announcing a
 * 400 MiB frame is refused by its header (protocol 2 took frames of up to
 * 512 MiB and checked their MAC only once all had come).
 */
static void test_manifest_in_pieces(void **state)
{
	struct wire_chan agent, client;
	size_t len = 3 * WIRE_MAX_FRAME + 12345, got = 0;
	char *text = malloc(len), *payload;
	unsigned pieces = 0;
	enum wire_type t;
	uint32_t n;

	(void)state;
	assert_non_null(text);
	for (size_t i = 0; i < len; i++)
		text[i] = (char)('a' + i % 26);
	authenticated_pair(&agent, &client);
	if (fork() == 0) {
		/* the client's side, in a child: the socket buffer does not hold 3 MiB */
		_exit(wire_chan_send_manifest(&client, text, len) == 0 ? 0 : 1);
	}
	do {
		assert_int_equal(wire_chan_recv(&agent, 5000, &t, &payload, &n), 0);
		assert_int_equal(t, WIRE_MANIFEST);
		assert_true(n <= WIRE_MAX_FRAME);
		assert_memory_equal(payload, text + got, n);
		got += n;
		pieces++;
		free(payload);
	} while (agent.more);
	assert_int_equal(got, len);
	assert_int_equal(pieces, 4);
	{
		int status;

		assert_true(wait(&status) > 0);
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	/* what the client sent was sealed: its text is not on the wire (checked by the pieces above) */
	{
		uint32_t big = 400u << 20;
		unsigned char h[WIRE_HEADER] = { (unsigned char)(big >> 24), (unsigned char)(big >> 16), 0, 0,
						 WIRE_MANIFEST, WIRE_FLAG_SEALED, 0, 0 };

		assert_int_equal(write(client.fd, h, sizeof(h)), (ssize_t)sizeof(h));
		assert_int_equal(wire_chan_recv(&agent, 5000, &t, &payload, &n), -1);
		assert_contains(err_msg(), "exceeds the limit of 1048576");
	}
	close(agent.fd);
	close(client.fd);
	free(text);
}

/*
 * A frame of a type its direction never carries is refused by its header,
 * before its payload is read: the agent's end takes no OK, the client's no
 * REQUEST or MANIFEST.
 */
static void test_wrong_direction_refused(void **state)
{
	struct wire_chan agent, client;
	enum wire_type t;
	char *payload;
	uint32_t n;

	(void)state;
	authenticated_pair(&agent, &client);
	assert_int_equal(wire_chan_send(&client, WIRE_OK, "{}", 2), 0);
	assert_int_equal(wire_chan_recv(&agent, 5000, &t, &payload, &n), -1);
	assert_contains(err_msg(), "is of a type never sent this way");
	assert_int_equal(wire_last_fault(), WIRE_FAULT_AUTH);
	assert_int_equal(wire_chan_send(&agent, WIRE_REQUEST, "{}", 2), 0);
	assert_int_equal(wire_chan_recv(&client, 5000, &t, &payload, &n), -1);
	assert_contains(err_msg(), "is of a type never sent this way");
	close(agent.fd);
	close(client.fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header_decode),
		cmocka_unit_test(test_roundtrip_socketpair),
		cmocka_unit_test(test_tokens),
		cmocka_unit_test(test_manifest_in_pieces),
		cmocka_unit_test(test_wrong_direction_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
