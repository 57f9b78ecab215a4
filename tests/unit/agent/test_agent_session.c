/*
 * Unit tests for the agent's destinations over one session (agent_session.c):
 * a real agent in a child process on loopback, driven through agent_client.
 * `--repeat 100` over three strategies makes 300 destinations in one session,
 * more than the agent has slots for at once: removed and parked destinations
 * must give theirs back, and everything goes when the session ends.
 */
#define _GNU_SOURCE
#include "agent_session_fixture.h"

static void many_destinations(bool with_manifest)
{
	const unsigned runs = AGENT_MAX_JOBS + 44;
	struct agent_child a = { 0 };
	struct agent_client c;
	struct manifest m;
	unsigned parked = 0;
	char root[4096];

	agent_child_start(&a);
	assert_int_equal(agent_client_connect(&c, "127.0.0.1", a.port, TOKEN), 0);
	/* --root names the parent: the agent made its own root in it */
	snprintf(root, sizeof(root), "%s", c.root);
	assert_int_equal(strncmp(root, a.root, strlen(a.root)), 0);
	assert_int_equal(strncmp(root + strlen(a.root), "/" AGENT_ROOT_PREFIX, strlen(AGENT_ROOT_PREFIX) + 1), 0);
	manifest_init(&m);
	if (with_manifest) {
		/* a tiny workload: the disk has room to park every destination */
		assert_int_equal(manifest_add(&m, "f", 10, 0644, 42), 0);
		assert_int_equal(agent_client_send_manifest(&c, &m), 0);
	}
	for (unsigned i = 0; i < runs; i++) {
		uint64_t job = prepare(&c);

		parked += cleanup(&c, job);
		assert_true(destinations(root) <= AGENT_MAX_JOBS);
	}
	assert_int_equal(parked, with_manifest ? runs : 0);
	assert_int_equal(destinations(root), with_manifest ? AGENT_MAX_JOBS : 0);
	/* bye: the parked destinations go, then the root */
	agent_client_close(&c);
	manifest_release(&m);
	agent_child_wait(&a);
}

static void test_removed_destinations_give_their_slots_back(void **state)
{
	(void)state;
	many_destinations(false);
}

static void test_parked_destinations_give_their_slots_back(void **state)
{
	(void)state;
	many_destinations(true);
}

static void count_progress(void *ctx, const struct agent_remove_status *st)
{
	(void)st;
	(*(unsigned *)ctx)++;
}

/*
 * "remove" (agent_cleanup.c): refused while a destination is in use; then
 * every parked destination goes, with what is in it, the marker stays, the
 * progress counts every entry and says what the manifest led it to expect; bye still ends the session and the root.
 */
static void test_remove_all_empties_root(void **state)
{
	struct agent_child a = { 0 };
	struct agent_client c;
	struct agent_remove_status last;
	struct manifest m;
	uint64_t jobs[3];
	unsigned polls = 0;
	char path[4400], marker[4200];
	DIR *d;
	struct dirent *e;

	(void)state;
	agent_child_start(&a);
	assert_int_equal(agent_client_connect(&c, "127.0.0.1", a.port, TOKEN), 0);
	manifest_init(&m);
	assert_int_equal(manifest_add(&m, "f", 10, 0644, 42), 0);
	assert_int_equal(agent_client_send_manifest(&c, &m), 0);
	for (int i = 0; i < 3; i++)
		jobs[i] = prepare(&c);
	/* 100 files in each destination */
	d = opendir(c.root);
	assert_non_null(d);
	while ((e = readdir(d)))
		for (int k = 0; e->d_name[0] != '.' && k < 100; k++) {
			FILE *f;

			snprintf(path, sizeof(path), "%s/%s/f%03d", c.root, e->d_name, k);
			f = fopen(path, "w");
			assert_non_null(f);
			fputs("data\n", f);
			fclose(f);
		}
	closedir(d);
	assert_true(cleanup(&c, jobs[0]) && cleanup(&c, jobs[1]));
	assert_int_equal(agent_client_remove_all(&c, count_progress, &polls, &last), -1);
	assert_contains(err_msg(), "still in use");
	assert_true(cleanup(&c, jobs[2]));
	if (agent_client_remove_all(&c, count_progress, &polls, &last) != 0)
		fail_msg("remove: %s", err_msg());
	assert_true(last.done && last.walked);
	assert_true(polls >= 1);
	assert_int_equal(last.removed, 3 * 101);
	assert_int_equal(last.found, last.removed);
	/* what the manifest said each parked copy holds (its one file and its directory), not what was found */
	assert_int_equal(last.expected, 3 * 2);
	assert_int_equal(destinations(c.root), 0);
	snprintf(marker, sizeof(marker), "%s/" AGENT_ROOT_MARKER, c.root);
	assert_int_equal(access(marker, F_OK), 0);
	/* again: nothing left, nothing to say */
	assert_int_equal(agent_client_remove_all(&c, NULL, NULL, &last), 0);
	agent_client_close(&c);
	manifest_release(&m);
	agent_child_wait(&a);
}

/* True if this host has ::1 (IPv6 loopback) up, as /proc/net/if_inet6 lists it. */
static bool have_ipv6_loopback(void)
{
	char line[256];
	bool found = false;
	FILE *f = fopen("/proc/net/if_inet6", "r");

	while (f && !found && fgets(line, sizeof(line), f))
		found = !strncmp(line, "00000000000000000000000000000001 ", 33);
	if (f)
		fclose(f);
	return found;
}

/*
 * An agent told to listen on [::1]:0 listens on IPv6, says so in brackets,
 * and a client reaches it there: the control connection, a job, a data
 * connection, and the address it names in messages.
 */
static void test_agent_over_ipv6(void **state)
{
	struct agent_child a = { 0 };
	struct agent_client c;
	char dest[4096], fs[32], payload[4096] = { 0 };
	struct recv_stats got;
	uint64_t job = 0;
	int fd;

	(void)state;
	if (!have_ipv6_loopback())
		skip();
	agent_child_start_on(&a, "[::1]:0");
	assert_string_equal(a.host, "::1");
	assert_int_equal(agent_client_connect(&c, a.host, a.port, TOKEN), 0);
	assert_string_equal(c.addr, "::1");
	assert_true(!strncmp(c.where, "[::1]:", 6));
	assert_string_equal(c.where + 6, a.port);
	/* the network probe's job: a data connection into the "discard" receiver */
	assert_int_equal(agent_client_prepare(&c, "probe", &job, dest, sizeof(dest), fs, sizeof(fs)), 0);
	assert_int_equal(raw_stream_open(&c, job, "discard", 1, &fd, NULL), 0);
	assert_int_equal(write(fd, payload, sizeof(payload)), (ssize_t)sizeof(payload));
	assert_int_equal(raw_stream_finish(&c, &fd, 1, 0, &got), 0);
	assert_int_equal(got.wire_bytes, sizeof(payload));
	assert_int_equal(agent_client_cleanup(&c, job, NULL), 0);
	agent_client_close(&c);
	agent_child_wait(&a);
}

/*
 * 24 data connections open four at a time (raw_stream.c) through the
 * agent's gate, none turned away, each carrying its own bytes; asked to
 * size its receive buffers, the agent says what stream 0 ended with and
 * its limits.
 */
static void test_many_streams_open_at_once(void **state)
{
	struct agent_child a = { 0 };
	struct agent_client c;
	char payload[4096] = { 0 };
	int fds[24];
	struct recv_stats got;
	uint64_t job, want = 0;

	(void)state;
	agent_child_start(&a);
	assert_int_equal(agent_client_connect(&c, "127.0.0.1", a.port, TOKEN), 0);
	job = prepare(&c);
	assert_int_equal(raw_stream_open_sized(&c, job, "discard", 24, 8e6, fds, NULL), 0);
	for (unsigned i = 0; i < 24; i++) {
		assert_true(fds[i] >= 0);
		assert_int_equal(write(fds[i], payload, 100 + i), (ssize_t)(100 + i));
		want += 100 + i;
	}
	assert_int_equal(raw_stream_finish(&c, fds, 24, 0, &got), 0);
	assert_int_equal(got.wire_bytes, want);
	assert_true(got.rcvbuf_sized);
	assert_true(got.rcvbuf_bytes > 0);
	assert_true(got.rcvbuf_limits.auto_max > 0);
	assert_int_equal(agent_client_flush(&c, job), 0);
	agent_client_close(&c);
	agent_child_wait(&a);
}

/* More streams than the session's memory cap holds are refused; the session goes on. */
static void test_streams_over_the_memory_cap(void **state)
{
	struct agent_child a = { 0 };
	struct agent_client c;
	struct manifest m;
	uint64_t job;

	(void)state;
	agent_child_start(&a);
	assert_int_equal(agent_client_connect(&c, "127.0.0.1", a.port, TOKEN), 0);
	manifest_init(&m);
	assert_int_equal(manifest_add(&m, "f", 3, 0644, 42), 0);
	assert_int_equal(agent_client_send_manifest(&c, &m), 0);
	manifest_release(&m);
	job = prepare(&c);
	assert_int_equal(agent_client_receive(&c, job, "frames", 40, 0), -1);
	assert_contains(err_msg(), "over the agent's cap of 1024 MiB a session: use -P 30 or fewer");
	assert_false(c.lost);
	assert_int_equal(agent_client_flush(&c, job), 0);
	agent_client_close(&c);
	agent_child_wait(&a);
}

/*
 * An agent that cannot be reached at all: the error names the address
 * tried, bracketed for IPv6, and says what to do. (The port of an agent
 * that has exited: nothing listens there.)
 */
static void test_unreachable_agent_names_the_address(void **state)
{
	struct agent_child a = { 0 };
	struct agent_client c;
	char want[64];

	(void)state;
	if (!have_ipv6_loopback())
		skip();
	agent_child_start_on(&a, "[::1]:0");
	assert_int_equal(agent_client_connect(&c, a.host, a.port, TOKEN), 0);
	agent_client_close(&c);
	agent_child_wait(&a);
	assert_int_equal(agent_client_connect(&c, "::1", a.port, TOKEN), -1);
	snprintf(want, sizeof(want), "cannot connect to [::1]:%s: connection refused; ", a.port);
	assert_contains(err_msg(), want);
	assert_contains(err_msg(), "--agent ADDR:PORT");
	/* a name: the name, then the address it resolved to */
	assert_int_equal(agent_client_connect(&c, "localhost", a.port, TOKEN), -1);
	assert_contains(err_msg(), "cannot connect to localhost (");
}

/*
 * An authenticated client that goes silent with no destination in use: the
 * agent ends the session (and, --once, exits and removes its root). Before,
 * it waited for ever. With a destination in use it waits on.
 */
static void test_silent_session_ends(void **state)
{
	struct agent_child a = { .session_idle_s = 1 };
	struct agent_client c;
	struct pollfd p;
	struct timespec two_s = { 2, 0 };
	uint64_t job;
	char byte;

	(void)state;
	agent_child_start(&a);
	assert_int_equal(agent_client_connect(&c, "127.0.0.1", a.port, TOKEN), 0);
	job = prepare(&c);
	nanosleep(&two_s, NULL);
	/* in use: still served */
	assert_int_equal(agent_client_flush(&c, job), 0);
	assert_false(cleanup(&c, job));
	/* nothing in use, nothing said: the agent closes (30 s is only the test's own bound) */
	p = (struct pollfd){ .fd = c.ctl.fd, .events = POLLIN };
	assert_int_equal(poll(&p, 1, 30000), 1);
	assert_int_equal(read(c.ctl.fd, &byte, 1), 0);
	close(c.ctl.fd);
	c.ctl.fd = -1;
	agent_client_close(&c);
	agent_child_wait(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_removed_destinations_give_their_slots_back),
		cmocka_unit_test(test_parked_destinations_give_their_slots_back),
		cmocka_unit_test(test_remove_all_empties_root),
		cmocka_unit_test(test_agent_over_ipv6),
		cmocka_unit_test(test_unreachable_agent_names_the_address),
		cmocka_unit_test(test_many_streams_open_at_once),
		cmocka_unit_test(test_streams_over_the_memory_cap),
		slow_unit_test(test_silent_session_ends),
	};

	signal(SIGPIPE, SIG_IGN);
	return test_run("agent_session", tests, ARRAY_LEN(tests), NULL, 0);
}
