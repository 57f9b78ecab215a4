/*
 * Unit tests for the agent's side of the probes (transfer/agent/agent_probes.h):
 * the disk and create probes called directly on a session whose scratch root is
 * made by agent_root_make (on /var/tmp, each for its budget of seconds:
 * slow_unit_test, run by tests/integration/unit_slow.t), and the "discard" and
 * "echo" receivers over socketpairs. The
 * client's probes are tests/unit/probe/test_probes.c.
 */
#define _GNU_SOURCE
#include "testutil.h"

#include "agent/agent.h"
#include "agent/agent_probes.h"
#include "agent/agent_root.h"
#include "clock.h"
#include "err.h"
#include "fsutil.h"
#include "stream/xfer_stats.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- agent side ---- */

/*
 * The running test's scratch root, made by agent_root_make in a parent of
 * its own as the agent makes it; the teardown removes the parent if an
 * assertion failed first.
 */
static char session_parent[64];
static struct agent_root scratch = { .fd = -1, .parent_fd = -1 };

static void session_make(struct agent_session *s)
{
	memset(s, 0, sizeof(*s));
	snprintf(session_parent, sizeof(session_parent), "/var/tmp/xfercmp-probes-agent-XXXXXX");
	assert_non_null(mkdtemp(session_parent));
	if (agent_root_make(&scratch, session_parent, "00112233445566778899aabbccddeeff") < 0)
		fail_msg("agent_root_make: %s", err_msg());
	s->ctl.fd = -1;
	s->listen_fd = -1;
	s->root = scratch.path;
	s->scratch = &scratch;
}

/* Entries of the open directory fd, but . and .. */
static int entries_at(int fd)
{
	int dup_fd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), n = 0;
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	struct dirent *e;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/*
 * Entries of the open directory fd whose name starts with prefix: what the
 * create probes keep until the session's end (agent_probes.c says why).
 */
static int entries_named(int fd, const char *prefix)
{
	int dup_fd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), n = 0;
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	struct dirent *e;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, prefix, strlen(prefix)))
			n++;
	closedir(d);
	return n;
}

/*
 * The root holds its marker and the directories of the kept_creates create
 * probes that measured, nothing else (the disk probe's is gone); then it is
 * removed as at the session's end.
 */
static void session_remove(int kept_creates)
{
	assert_int_equal(entries_named(scratch.fd, "probe-create"), kept_creates);
	assert_int_equal(entries_at(scratch.fd), 1 + kept_creates);
	assert_int_equal(agent_root_remove_all(&scratch), 0);
	assert_int_equal(fs_remove_tree(session_parent), 0);
	session_parent[0] = '\0';
}

static int session_teardown(void **state)
{
	(void)state;
	agent_root_close(&scratch);
	if (session_parent[0])
		fs_remove_tree(session_parent);
	session_parent[0] = '\0';
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
	session_remove(0);
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
	 * The time budget holds: create + syncfs stay near it. The wall bound is
	 * looser: a loaded disk may take its time to answer.
	 */
	start = clock_now();
	if (call(agent_op_probe_create, &s, "{\"seconds\":0.3,\"max_files\":1000000}", &reply) < 0)
		fail_msg("probe_create: %s", err_msg());
	assert_true(get_num(reply, "seconds") < 2.0);
	assert_true(clock_seconds(start, clock_now()) < 10.0);
	assert_true(get_num(reply, "files") > 0 && get_num(reply, "files") < 1000000);
	json_object_put(reply);
	session_remove(2);
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
	session_remove(1);
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
	session_remove(0);
}

/* A root whose directory is gone (removed under the agent): both probes fail, naming why. */
static void test_agent_probe_unwritable_root(void **state)
{
	struct agent_session s;
	json_object *reply;

	(void)state;
	session_make(&s);
	assert_int_equal(fs_remove_tree(s.root), 0);
	assert_int_equal(call(agent_op_probe_disk, &s, "{\"seconds\":0.1}", &reply), -1);
	assert_contains(err_msg(), "cannot create a probe directory");
	json_object_put(reply);
	assert_int_equal(call(agent_op_probe_create, &s, "{\"seconds\":0.1}", &reply), -1);
	assert_contains(err_msg(), "cannot create a probe directory");
	json_object_put(reply);
}

/* Watches dir for anything made, changed or removed in it; returns the inotify fd. */
static int watch(const char *dir)
{
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	assert_true(fd >= 0);
	assert_true(inotify_add_watch(fd, dir, IN_CREATE | IN_MODIFY | IN_DELETE | IN_MOVED_TO |
				      IN_ATTRIB) >= 0);
	return fd;
}

/*
 * Whether the watch saw anything: the events are queued by the time the
 * call that caused them returns.
 */
static int saw_events(int fd)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n = read(fd, buf, sizeof(buf));

	if (n < 0)
		assert_int_equal(errno, EAGAIN);
	return n > 0;
}

/*
 * The scratch root's path swapped for a symbolic link to a directory
 * outside it (the root renamed away, a link in its place, as another
 * process with the agent's rights could do): the probes work beneath the
 * root's descriptor, in the directory the agent made, and nothing is made,
 * written or removed at the link's target. Worked by path, both probes made
 * their directory at the target (and removed it after).
 */
static void test_agent_probe_root_swapped_for_link(void **state)
{
	struct agent_session s;
	char outside[128], moved[128];
	json_object *reply;
	int out_watch, root_watch;

	(void)state;
	session_make(&s);
	snprintf(outside, sizeof(outside), "%s/outside", session_parent);
	snprintf(moved, sizeof(moved), "%s/moved", session_parent);
	assert_int_equal(mkdir(outside, 0755), 0);
	assert_int_equal(rename(s.root, moved), 0);
	assert_int_equal(symlink(outside, s.root), 0);
	out_watch = watch(outside);
	root_watch = watch(moved);
	if (call(agent_op_probe_disk, &s, "{\"seconds\":0.1,\"max_bytes\":1048576}", &reply) < 0)
		fail_msg("probe_disk: %s", err_msg());
	json_object_put(reply);
	if (call(agent_op_probe_create, &s, "{\"seconds\":0.1,\"max_files\":100}", &reply) < 0)
		fail_msg("probe_create: %s", err_msg());
	json_object_put(reply);
	assert_false(saw_events(out_watch));
	assert_int_equal(fs_dir_is_empty(outside), 1);
	/* the probes did run, in the root the agent made */
	assert_true(saw_events(root_watch));
	close(out_watch);
	close(root_watch);
	session_remove(1);
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
	assert_int_equal(recv_discard(sv[0], NULL, -1, dest, &st), 0);
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
	assert_int_equal(recv_discard(-1, NULL, -1, "/nonexistent", &st), -1);
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

	e->rc = recv_echo(e->fd, NULL, -1, "/nonexistent", &e->st);
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
		slow_unit_test_teardown(test_agent_probe_disk, session_teardown),
		slow_unit_test_teardown(test_agent_probe_create, session_teardown),
		slow_unit_test_teardown(test_agent_probe_create_depths, session_teardown),
		cmocka_unit_test_teardown(test_agent_probe_bad_requests, session_teardown),
		cmocka_unit_test_teardown(test_agent_probe_unwritable_root, session_teardown),
		cmocka_unit_test_teardown(test_agent_probe_root_swapped_for_link, session_teardown),
		cmocka_unit_test(test_recv_discard_counts_to_eof),
		cmocka_unit_test(test_recv_discard_read_error),
		cmocka_unit_test(test_recv_echo_returns_every_byte),
	};

	return test_run("agent_probes", tests, ARRAY_LEN(tests), NULL, 0);
}
