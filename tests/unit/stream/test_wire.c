/* The agent's control protocol (stream/wire): frame headers, JSON frames, tokens. */
#include "testutil.h"

#include "err.h"
#include "stream/wire.h"

#include <sys/resource.h>
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
	/* the one flag: a MAC follows; any other is refused */
	h[5] = WIRE_FLAG_MAC;
	assert_int_equal(wire_header_decode(h, &t, &len), 0);
	assert_int_equal(wire_header_flags(h), WIRE_FLAG_MAC);
	h[5] = 2;
	assert_int_equal(wire_header_decode(h, &t, &len), -1);
	assert_contains(err_msg(), "unknown header flags");
	h[5] = 0;
	h[6] = 1;
	assert_int_equal(wire_header_decode(h, &t, &len), -1);
	assert_contains(err_msg(), "reserved");
	h[6] = 0;
	/* a JSON frame is bounded at 64 KiB, a manifest at 512 MiB */
	h[0] = 0; h[1] = 1; h[2] = 0; h[3] = 1;
	assert_int_equal(wire_header_decode(h, &t, &len), -1);
	assert_contains(err_msg(), "exceeds the limit");
	h[4] = WIRE_MANIFEST;
	assert_int_equal(wire_header_decode(h, &t, &len), 0);
	h[0] = 0x40;
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

/*
 * A header announcing a 400 MiB manifest, then 10 bytes and the end: the
 * payload is allocated as it arrives, so with the address space capped at
 * 200 MiB more than now the receive fails because the peer went away, not
 * for memory (which allocating the whole frame first did).
 */
static void test_frame_allocated_as_it_arrives(void **state)
{
	int sv[2], status;
	pid_t pid;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit as;
		FILE *f = fopen("/proc/self/statm", "r");
		unsigned long pages = 0;
		enum wire_type t;
		char *payload;
		uint32_t len;

		if (!f || fscanf(f, "%lu", &pages) != 1)
			_exit(3);
		fclose(f);
		as.rlim_cur = as.rlim_max = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (200u << 20);
		if (setrlimit(RLIMIT_AS, &as) < 0)
			_exit(3);
		close(sv[0]);
		if (wire_recv(sv[1], 5000, &t, &payload, &len) == 0)
			_exit(4);
		_exit(strstr(err_msg(), "middle of a message") ? 0 : strstr(err_msg(), "out of memory") ? 1 : 2);
	}
	close(sv[1]);
	{
		uint32_t n = 400u << 20;
		unsigned char h[WIRE_HEADER] = { (unsigned char)(n >> 24), (unsigned char)(n >> 16), 0, 0,
						 WIRE_MANIFEST, 0, 0, 0 };

		assert_int_equal(write(sv[0], h, sizeof(h)), (ssize_t)sizeof(h));
		assert_int_equal(write(sv[0], "0123456789", 10), 10);
	}
	close(sv[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 1)
		fail_msg("the receiver allocated the whole announced frame before its bytes came");
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header_decode),
		cmocka_unit_test(test_roundtrip_socketpair),
		cmocka_unit_test(test_tokens),
		cmocka_unit_test(test_frame_allocated_as_it_arrives),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
