/*
 * Unit tests for the agent's side of the probes (transfer/agent/agent_probes.h):
 * the disk and create probes called directly on a session whose root is a
 * temp dir, and the "discard" and "echo" receivers over socketpairs. The
 * client's probes are tests/unit/measure/test_probes.c.
 */
#define _GNU_SOURCE
#include "testutil.h"

#include "agent/agent.h"
#include "agent/agent_probes.h"
#include "clock.h"
#include "err.h"
#include "fsutil.h"
#include "stream/xfer_stats.h"

#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- agent side ---- */

/* The running test's session root; the teardown removes it if an assertion failed first. */
static char session_root[64];

static void session_make(struct agent_session *s)
{
	memset(s, 0, sizeof(*s));
	snprintf(session_root, sizeof(session_root), "/var/tmp/xfercmp-probes-agent-XXXXXX");
	assert_non_null(mkdtemp(session_root));
	s->ctl.fd = -1;
	s->listen_fd = -1;
	s->root = session_root;
}

static void session_remove(void)
{
	/* the probe left nothing behind */
	assert_int_equal(fs_dir_is_empty(session_root), 1);
	assert_int_equal(fs_remove_tree(session_root), 0);
	session_root[0] = '\0';
}

static int session_teardown(void **state)
{
	(void)state;
	if (session_root[0])
		fs_remove_tree(session_root);
	session_root[0] = '\0';
	return 0;
}

typedef int (*agent_op)(struct agent_session *, json_object *, json_object *);

/* Runs op on a request parsed from json; returns its result, *reply owned by the caller. */
static int call(agent_op op, struct agent_session *s, const char *json, json_object **reply)
{
	json_object *req = json_tokener_parse(json);
	int rc;

	assert_non_null(req);
	*reply = json_object_new_object();
	rc = op(s, req, *reply);
	json_object_put(req);
	return rc;
}

static double get_num(json_object *o, const char *key)
{
	json_object *v;

	assert_true(json_object_object_get_ex(o, key, &v));
	return json_object_get_double(v);
}

static void test_agent_probe_disk(void **state)
{
	struct agent_session s;
	json_object *reply, *v;
	clock_ns start;

	(void)state;
	session_make(&s);
	start = clock_now();
	if (call(agent_op_probe_disk, &s, "{\"seconds\":0.5,\"max_bytes\":134217728}", &reply) < 0)
		fail_msg("probe_disk: %s", err_msg());
	print_message("# probe_disk: %s in %.2f s\n", json_object_to_json_string(reply),
		      clock_seconds(start, clock_now()));
	assert_true(clock_seconds(start, clock_now()) < 20.0);	/* a bound, not a speed target */
	assert_true(get_num(reply, "bytes") > 0 && get_num(reply, "bytes") <= 134217728);
	assert_true(get_num(reply, "seconds") > 0);
	assert_true(get_num(reply, "bps") > 1e6);
	assert_true(json_object_object_get_ex(reply, "dest_fs", &v));
	assert_true(json_object_get_string_len(v) > 0);
	json_object_put(reply);
	/*
	 * The time budget holds with a cap no disk reaches: without the
	 * writeback kept going while writing, the final fsync would run long.
	 */
	if (call(agent_op_probe_disk, &s, "{\"seconds\":0.3,\"max_bytes\":68719476736}", &reply) < 0)
		fail_msg("probe_disk: %s", err_msg());
	print_message("# probe_disk 0.3 s: %s\n", json_object_to_json_string(reply));
	assert_true(get_num(reply, "seconds") < 1.5);
	assert_true(get_num(reply, "bytes") < 68719476736.0);
	json_object_put(reply);
	/* the byte cap holds, to the byte, with no whole block at the end */
	if (call(agent_op_probe_disk, &s, "{\"seconds\":5,\"max_bytes\":3000000}", &reply) < 0)
		fail_msg("probe_disk: %s", err_msg());
	assert_true(get_num(reply, "bytes") == 3000000);
	json_object_put(reply);
	session_remove();
}

static void test_agent_probe_create(void **state)
{
	struct agent_session s;
	json_object *reply;
	clock_ns start;

	(void)state;
	session_make(&s);
	/* the file cap holds */
	if (call(agent_op_probe_create, &s, "{\"seconds\":5,\"max_files\":500}", &reply) < 0)
		fail_msg("probe_create: %s", err_msg());
	print_message("# probe_create: %s\n", json_object_to_json_string(reply));
	assert_true(get_num(reply, "files") == 500);
	assert_true(get_num(reply, "per_s") > 0);
	assert_true(get_num(reply, "seconds") > 0);
	json_object_put(reply);
	/*
	 * The time budget holds: create + syncfs stay near it. The removal after
	 * it is untimed and, on a loaded disk, slow: the wall bound is looser.
	 */
	start = clock_now();
	if (call(agent_op_probe_create, &s, "{\"seconds\":0.3,\"max_files\":1000000}", &reply) < 0)
		fail_msg("probe_create: %s", err_msg());
	assert_true(get_num(reply, "seconds") < 2.0);
	assert_true(clock_seconds(start, clock_now()) < 10.0);
	assert_true(get_num(reply, "files") > 0 && get_num(reply, "files") < 1000000);
	json_object_put(reply);
	session_remove();
}

/* Several depths in one request: each its own rate, the budget and one syncfs shared. */
static void test_agent_probe_create_depths(void **state)
{
	struct agent_session s;
	json_object *reply, *at;
	clock_ns start;

	(void)state;
	session_make(&s);
	start = clock_now();
	if (call(agent_op_probe_create, &s, "{\"seconds\":0.6,\"depths\":[1,4,16]}", &reply) < 0)
		fail_msg("probe_create: %s", err_msg());
	print_message("# probe_create at depths: %s\n", json_object_to_json_string(reply));
	assert_true(json_object_object_get_ex(reply, "at", &at));
	assert_int_equal(json_object_array_length(at), 3);
	for (size_t i = 0; i < 3; i++) {
		static const double depth[] = { 1, 4, 16 };
		json_object *o = json_object_array_get_idx(at, i);

		assert_true(get_num(o, "depth") == depth[i]);
		assert_true(get_num(o, "files") > 0 && get_num(o, "per_s") > 0);
	}
	/* the first depth's rate is the reply's own */
	assert_true(get_num(reply, "per_s") == get_num(json_object_array_get_idx(at, 0), "per_s"));
	assert_true(clock_seconds(start, clock_now()) < 10.0);	/* a bound, not a speed */
	json_object_put(reply);
	session_remove();
}

static void test_agent_probe_bad_requests(void **state)
{
	static const struct {
		agent_op op;
		const char *req, *error;
	} cases[] = {
		{ agent_op_probe_disk, "{\"seconds\":\"2\"}", "'seconds'" },
		{ agent_op_probe_disk, "{\"seconds\":0}", "budget" },
		{ agent_op_probe_disk, "{\"seconds\":1000}", "budget" },
		{ agent_op_probe_disk, "{\"max_bytes\":0}", "max_bytes" },
		{ agent_op_probe_disk, "{\"max_bytes\":-5}", "max_bytes" },
		{ agent_op_probe_create, "{\"max_files\":0}", "max_files" },
		{ agent_op_probe_create, "{\"max_files\":100000000}", "max_files" },
		{ agent_op_probe_create, "{\"seconds\":-1}", "budget" },
		{ agent_op_probe_create, "{\"depths\":[]}", "'depths'" },
		{ agent_op_probe_create, "{\"depths\":[1,2,3,4,5]}", "'depths'" },
		{ agent_op_probe_create, "{\"depths\":[0]}", "each must be 1 to" },
		{ agent_op_probe_create, "{\"depths\":[1,\"x\"]}", "each must be 1 to" },
		{ agent_op_probe_create, "{\"threads\":1000}", "threads" },
	};
	struct agent_session s;
	json_object *reply;

	(void)state;
	session_make(&s);
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		assert_int_equal(call(cases[i].op, &s, cases[i].req, &reply), -1);
		assert_contains(err_msg(), cases[i].error);
		json_object_put(reply);
	}
	session_remove();
}

static void test_agent_probe_unwritable_root(void **state)
{
	struct agent_session s;
	json_object *reply;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.root = "/var/tmp/xfercmp-probes-no-such-root";
	assert_int_equal(call(agent_op_probe_disk, &s, "{\"seconds\":0.1}", &reply), -1);
	assert_contains(err_msg(), "cannot create a probe directory");
	json_object_put(reply);
	assert_int_equal(call(agent_op_probe_create, &s, "{\"seconds\":0.1}", &reply), -1);
	assert_contains(err_msg(), "cannot create a probe directory");
	json_object_put(reply);
}

/* ---- receivers ---- */

struct feeder {
	pthread_t thread;
	int fd;
	size_t bytes;
};

/* Writes f->bytes of a pattern, then closes its end. */
static void *feed_main(void *arg)
{
	struct feeder *f = arg;
	unsigned char buf[65536];
	size_t done = 0;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 7);
	while (done < f->bytes) {
		size_t n = f->bytes - done < sizeof(buf) ? f->bytes - done : sizeof(buf);

		if (fs_write_all(f->fd, buf, n) < 0)
			break;
		done += n;
	}
	close(f->fd);
	return NULL;
}

static void test_recv_discard_counts_to_eof(void **state)
{
	int sv[2];
	struct feeder f;
	struct recv_stats st = { 0 };
	const char *dest = "/var/tmp/xfercmp-probes-discard-never-made";

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	f = (struct feeder){ .fd = sv[1], .bytes = (5u << 20) + 123 };
	assert_int_equal(pthread_create(&f.thread, NULL, feed_main, &f), 0);
	assert_int_equal(recv_discard(sv[0], -1, dest, &st), 0);
	pthread_join(f.thread, NULL);
	close(sv[0]);
	assert_int_equal(st.wire_bytes, (5u << 20) + 123);
	assert_int_equal(st.files, 0);
	assert_int_equal(st.bytes, 0);
	assert_int_equal(access(dest, F_OK), -1);
}

static void test_recv_discard_read_error(void **state)
{
	struct recv_stats st = { 0 };

	(void)state;
	/* not a socket: the first read fails */
	assert_int_equal(recv_discard(-1, -1, "/nonexistent", &st), -1);
	assert_contains(err_msg(), "cannot read");
}

struct echoer {
	pthread_t thread;
	int fd, rc;
	struct recv_stats st;
};

static void *echo_main(void *arg)
{
	struct echoer *e = arg;

	e->rc = recv_echo(e->fd, -1, "/nonexistent", &e->st);
	return NULL;
}

static void test_recv_echo_returns_every_byte(void **state)
{
	int sv[2];
	struct echoer e = { 0 };
	unsigned char out[3000], in[3000];
	size_t got = 0;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	e.fd = sv[1];
	assert_int_equal(pthread_create(&e.thread, NULL, echo_main, &e), 0);
	/* one byte at a time, as the round-trip probe does */
	for (int i = 0; i < 100; i++) {
		unsigned char b = (unsigned char)i, back = 0;

		assert_int_equal(write(sv[0], &b, 1), 1);
		assert_int_equal(read(sv[0], &back, 1), 1);
		assert_int_equal(back, b);
	}
	/* and a larger burst */
	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = (unsigned char)(i * 13 + 1);
	assert_int_equal(fs_write_all(sv[0], out, sizeof(out)), 0);
	while (got < sizeof(in)) {
		ssize_t n = read(sv[0], in + got, sizeof(in) - got);

		assert_true(n > 0);
		got += (size_t)n;
	}
	assert_memory_equal(in, out, sizeof(out));
	shutdown(sv[0], SHUT_WR);
	pthread_join(e.thread, NULL);
	close(sv[0]);
	close(sv[1]);
	assert_int_equal(e.rc, 0);
	assert_int_equal(e.st.wire_bytes, 100 + sizeof(out));
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_agent_probe_disk, session_teardown),
		cmocka_unit_test_teardown(test_agent_probe_create, session_teardown),
		cmocka_unit_test_teardown(test_agent_probe_create_depths, session_teardown),
		cmocka_unit_test_teardown(test_agent_probe_bad_requests, session_teardown),
		cmocka_unit_test(test_agent_probe_unwritable_root),
		cmocka_unit_test(test_recv_discard_counts_to_eof),
		cmocka_unit_test(test_recv_discard_read_error),
		cmocka_unit_test(test_recv_echo_returns_every_byte),
	};

	return cmocka_run_group_tests_name("agent_probes", tests, NULL, NULL);
}
