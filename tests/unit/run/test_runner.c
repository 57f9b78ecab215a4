/*
 * Unit tests for the runner's loop (transfer/run/runner.c, runner_run): fake
 * strategies, whose run() copies the tree, fails, spoils a byte or cuts the
 * agent's connection on demand, against a real agent in a child process on
 * loopback (tests/unit/agent_child.h) that prepares, flushes, verifies and
 * removes each destination as it does for the real strategies. Every
 * strategy of the list gets a result; a failing one does not stop the
 * others; each runs --repeat times, or until its first failure; one that is
 * not available is skipped with its reason; only a lost agent stops the run,
 * the rest skipped; and the median, min and max are those of the runs.
 */
#define _GNU_SOURCE
#include "testutil.h"

#include "agent_child.h"
#include "client/agent_client.h"
#include "err.h"
#include "fsutil.h"
#include "manifest.h"
#include "run/runner.h"

#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <sys/socket.h>

/* ---- the source: three small files, made once ---- */

static struct {
	char root[PATH_MAX];
	struct manifest m;
	int ready;
} src;

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];
	int fd;

	assert_int_equal(fs_join(path, sizeof(path), dir, name), 0);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(fs_write_all(fd, text, strlen(text)), 0);
	assert_int_equal(close(fd), 0);
}

static void need_source(void)
{
	if (src.ready)
		return;
	test_mkdtemp(src.root, sizeof(src.root), "xfercmp-runner-src");
	write_file(src.root, "a", "alpha\n");
	write_file(src.root, "b", "");
	write_file(src.root, "c", "a third file, of some more bytes than the others\n");
	assert_int_equal(manifest_from_tree(&src.m, src.root, 1), 0);
	assert_int_equal(src.m.count, 3);
	src.ready = 1;
}

/* ---- fake strategies: what each run() does is its priv's `way` ---- */

enum fake_way {
	FAKE_COPY,		/* copies the tree: verifies */
	FAKE_FAIL,		/* fails at once (err_set) */
	FAKE_FAIL_SECOND,	/* copies, but fails its second run */
	FAKE_SPOIL,		/* copies with one byte changed: returns 0, fails verification */
	FAKE_CUT,		/* cuts the agent's control connection, returns 0 */
};

struct fake {
	enum fake_way way;
	unsigned calls;		/* run() calls so far */
};

/* Copies every manifest file into run->dest; spoil: the first non-empty one's first byte changed. */
static int copy_tree(struct xfer_run *run, bool spoil)
{
	const struct manifest *m = run->manifest;

	for (size_t i = 0; i < m->count; i++) {
		char from[PATH_MAX], to[PATH_MAX], buf[256];
		long long n;
		int in, out;

		if (fs_join(from, sizeof(from), run->src_root, m->entries[i].path) < 0 ||
		    fs_join(to, sizeof(to), run->dest, m->entries[i].path) < 0)
			return -1;
		in = open(from, O_RDONLY | O_CLOEXEC);
		if (in < 0)
			return err_errno("fake: cannot open '%s'", from);
		n = fs_read_full(in, buf, sizeof(buf));
		close(in);
		if (n < 0)
			return -1;
		if (spoil && n > 0) {
			buf[0] ^= 1;
			spoil = false;
		}
		out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, m->entries[i].mode);
		if (out < 0)
			return err_errno("fake: cannot create '%s'", to);
		if (fs_write_all(out, buf, (size_t)n) < 0) {
			close(out);
			return -1;
		}
		close(out);
		run->sent.files++;
		run->sent.bytes_read += (uint64_t)n;
	}
	return 0;
}

static int fake_run(struct xfer_run *run)
{
	struct fake *f = run->strategy->priv;
	unsigned k = f->calls++;

	/* names the run: the result's median.sender_own_s says which run it was */
	run->sent.own_s = 1000 + k;
	switch (f->way) {
	case FAKE_FAIL:
		return err_set("fake failure in run %u", k);
	case FAKE_FAIL_SECOND:
		if (k == 1)
			return err_set("fake failure in run %u", k);
		return copy_tree(run, false);
	case FAKE_SPOIL:
		return copy_tree(run, true);
	case FAKE_CUT:
		shutdown(run->target->agent->ctl.fd, SHUT_RDWR);
		return 0;
	case FAKE_COPY:
		break;
	}
	return copy_tree(run, false);
}

static int fake_unavailable(const struct xfer_target *t, char *why, size_t len)
{
	(void)t;
	snprintf(why, len, "fake: not here");
	return 1;
}

static struct fake way_ok, way_ok2, way_fail, way_fail_second, way_spoil, way_cut, way_absent;

#define FAKE(var, label, way_var, avail) \
	static const struct strategy var = { .name = label, .summary = "a fake", .run = fake_run, \
					     .available = avail, .priv = &way_var }
FAKE(fake_ok, "fake-ok", way_ok, NULL);
FAKE(fake_ok2, "fake-ok2", way_ok2, NULL);
FAKE(fake_fail, "fake-fail", way_fail, NULL);
FAKE(fake_fail_second, "fake-fail-second", way_fail_second, NULL);
FAKE(fake_spoil, "fake-spoil", way_spoil, NULL);
FAKE(fake_cut, "fake-cut", way_cut, NULL);
FAKE(fake_absent, "fake-absent", way_absent, fake_unavailable);

static void fakes_reset(void)
{
	way_ok = (struct fake){ FAKE_COPY, 0 };
	way_ok2 = (struct fake){ FAKE_COPY, 0 };
	way_fail = (struct fake){ FAKE_FAIL, 0 };
	way_fail_second = (struct fake){ FAKE_FAIL_SECOND, 0 };
	way_spoil = (struct fake){ FAKE_SPOIL, 0 };
	way_cut = (struct fake){ FAKE_CUT, 0 };
	way_absent = (struct fake){ FAKE_COPY, 0 };
}

/* ---- the progress callback: what the runner told it ---- */

struct progress_log {
	unsigned before, after;			/* calls before a run, after a strategy */
	const struct strategy *done[8];		/* the strategies "after" named, in order */
	unsigned last_run, last_runs;		/* the last "before": run k of n */
	char phases[64];			/* each phase's first letter, in order */
};

static void on_phase(void *ctx, const char *what)
{
	struct progress_log *p = ctx;
	size_t n = strlen(p->phases);

	if (n + 1 < sizeof(p->phases))
		p->phases[n] = what[0];
}

static void on_progress(void *ctx, const struct strategy *s, unsigned run, unsigned runs,
			const struct strategy_result *done)
{
	struct progress_log *p = ctx;

	if (done) {
		assert_ptr_equal(done->strategy, s);
		if (p->after < ARRAY_LEN(p->done))
			p->done[p->after] = s;
		p->after++;
		return;
	}
	p->before++;
	p->last_run = run;
	p->last_runs = runs;
}

/* ---- one agent, one session ---- */

struct session {
	struct agent_child a;
	struct agent_client c;
	struct xfer_target t;
};

/* A test's fixture: an agent, connected, holding the source's manifest; the fakes reset. */
static int session_setup(void **state)
{
	struct session *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	need_source();
	fakes_reset();
	agent_child_start(&s->a);
	if (agent_client_connect(&s->c, s->a.host, s->a.port, TEST_AGENT_TOKEN) < 0)
		fail_msg("connect: %s", err_msg());
	assert_int_equal(agent_client_send_manifest(&s->c, &src.m), 0);
	s->t = (struct xfer_target){ .agent = &s->c, .label = "loopback" };
	*state = s;
	return 0;
}

/* Ends the session: the agent exits 0 and leaves nothing behind. */
static int session_teardown(void **state)
{
	struct session *s = *state;

	agent_client_close(&s->c);
	agent_child_wait_keep_base(&s->a);
	assert_int_equal(fs_remove_tree(s->a.base), 0);
	free(s);
	return 0;
}

static int run_list(struct session *s, unsigned repeat, const struct strategy *const *list, size_t n,
		    struct strategy_result *results, struct progress_log *log)
{
	struct runner_opts o = { .repeat = repeat, .progress = on_progress, .phase = on_phase,
				 .progress_ctx = log };

	err_clear();
	return runner_run(&o, src.root, &src.m, &s->t, list, n, results);
}

/* ---- the tests ---- */

/*
 * Every strategy of the list gets its result, in its place: the ones that
 * copy run --repeat times and verify; one that fails, one that is not
 * available and one whose copy does not verify do not stop those after them.
 */
static void test_every_strategy_gets_a_result(void **state)
{
	static const struct strategy *const list[] = { &fake_ok, &fake_fail, &fake_absent, &fake_spoil,
						       &fake_ok2 };
	struct strategy_result r[ARRAY_LEN(list)];
	struct progress_log log = { 0 };
	struct session *s = *state;

	assert_int_equal(run_list(s, 3, list, ARRAY_LEN(list), r, &log), 0);
	for (size_t i = 0; i < ARRAY_LEN(list); i++)
		assert_ptr_equal(r[i].strategy, list[i]);

	assert_int_equal(r[0].status, RESULT_OK);
	assert_true(r[0].verified);
	assert_int_equal(r[0].runs, 3);
	assert_int_equal(way_ok.calls, 3);
	assert_int_equal(r[0].sent.files, 3);

	/* a failure ends that strategy's runs at once, with its error */
	assert_int_equal(r[1].status, RESULT_FAILED);
	assert_false(r[1].verified);
	assert_string_equal(r[1].error, "fake failure in run 0");
	assert_int_equal(r[1].runs, 0);
	assert_int_equal(way_fail.calls, 1);

	/* not available: skipped with its reason, never run */
	assert_int_equal(r[2].status, RESULT_SKIPPED);
	assert_string_equal(r[2].error, "fake: not here");
	assert_int_equal(way_absent.calls, 0);

	/* returned 0 but the agent's verification failed it */
	assert_int_equal(r[3].status, RESULT_FAILED);
	assert_false(r[3].verified);
	assert_true(strstr(r[3].error, "verification failed: ") == r[3].error);
	assert_contains(r[3].error, "(first: content differs: a)");
	assert_int_equal(way_spoil.calls, 1);

	/* the last one ran all the same */
	assert_int_equal(r[4].status, RESULT_OK);
	assert_true(r[4].verified);
	assert_int_equal(r[4].runs, 3);
	assert_int_equal(way_ok2.calls, 3);

	/* progress: before each run (3 + 1 + 1 + 3), after each strategy, skipped one included */
	assert_int_equal(log.before, 8);
	assert_int_equal(log.after, ARRAY_LEN(list));
	for (size_t i = 0; i < ARRAY_LEN(list); i++)
		assert_ptr_equal(log.done[i], list[i]);
	assert_int_equal(log.last_run, 3);
	assert_int_equal(log.last_runs, 3);
	/*
	 * the phases after the bytes: flushing, verifying, cleaning up, in each
	 * run that sent them (3 + 1 + 3; the spoilt copy's included); none in
	 * the run that failed nor in the skipped one
	 */
	assert_string_equal(log.phases, "fvcfvcfvcfvcfvcfvcfvc");
}

/* A strategy that fails its second run keeps its first: one run, failed, the error of the second. */
static void test_repeat_stops_at_the_first_failed_run(void **state)
{
	static const struct strategy *const list[] = { &fake_fail_second, &fake_ok };
	struct strategy_result r[ARRAY_LEN(list)];
	struct progress_log log = { 0 };
	struct session *s = *state;

	assert_int_equal(run_list(s, 4, list, ARRAY_LEN(list), r, &log), 0);
	assert_int_equal(r[0].status, RESULT_FAILED);
	assert_string_equal(r[0].error, "fake failure in run 1");
	assert_int_equal(way_fail_second.calls, 2);
	assert_int_equal(r[0].runs, 1);
	assert_int_equal(r[0].time.n, 1);
	assert_true(r[0].median.sender_own_s == 1000);
	assert_true(r[0].min_seconds == r[0].run_seconds[0] && r[0].max_seconds == r[0].run_seconds[0]);
	assert_int_equal(r[1].status, RESULT_OK);
	assert_int_equal(r[1].runs, 4);
	assert_int_equal(way_ok.calls, 4);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Five runs: run_seconds holds each run's transfer + flush in run order;
 * min and max are theirs; the median is the run in the middle of them, its
 * own figures kept (the fake names each run in sender_own_s); time is their
 * statistics. Whatever the times were: nothing here depends on them.
 */
static void test_median_min_max_of_the_runs(void **state)
{
	static const struct strategy *const list[] = { &fake_ok };
	struct strategy_result r;
	struct progress_log log = { 0 };
	struct session *s = *state;
	double sorted[5], sum = 0;
	unsigned k;

	assert_int_equal(run_list(s, 5, list, 1, &r, &log), 0);
	assert_int_equal(r.status, RESULT_OK);
	assert_int_equal(r.runs, 5);
	assert_int_equal(r.time.n, 5);
	for (k = 0; k < 5; k++) {
		assert_true(r.run_seconds[k] > 0);
		sorted[k] = r.run_seconds[k];
		sum += r.run_seconds[k];
	}
	qsort(sorted, 5, sizeof(sorted[0]), cmp_double);
	assert_true(r.min_seconds == sorted[0]);
	assert_true(r.max_seconds == sorted[4]);
	assert_true(r.time.min == sorted[0] && r.time.max == sorted[4]);
	assert_true(fabs(r.time.mean - sum / 5) < 1e-12);
	/* the median run: the middle time, and that run's own figures */
	assert_true(r.median.transfer > 0 && r.median.flush >= 0);
	assert_true(r.median.transfer + r.median.flush == sorted[2]);
	assert_true(r.median.index < 5);
	assert_true(r.median.sender_own_s == 1000 + r.median.index);
	assert_true(r.run_seconds[r.median.index] == sorted[2]);
}

/* Only a lost agent stops the run: that strategy fails with it, the rest are skipped, naming it. */
static void test_lost_agent_skips_the_rest(void **state)
{
	static const struct strategy *const list[] = { &fake_ok, &fake_cut, &fake_ok2, &fake_fail };
	struct strategy_result r[ARRAY_LEN(list)];
	struct progress_log log = { 0 };
	struct session *s = *state;

	assert_int_equal(run_list(s, 2, list, ARRAY_LEN(list), r, &log), -1);
	assert_contains(err_msg(), "strategy fake-cut");
	assert_int_equal(r[0].status, RESULT_OK);
	assert_int_equal(r[0].runs, 2);
	assert_int_equal(r[1].status, RESULT_FAILED);
	assert_contains(r[1].error, "strategy fake-cut");
	assert_int_equal(way_cut.calls, 1);
	for (size_t i = 2; i < ARRAY_LEN(list); i++) {
		assert_ptr_equal(r[i].strategy, list[i]);
		assert_int_equal(r[i].status, RESULT_SKIPPED);
		assert_string_equal(r[i].error, "not run: the run stopped at fake-cut");
	}
	assert_int_equal(way_ok2.calls + way_fail.calls, 0);
	/* the "after" of the ones that finished; none for the one that lost the agent */
	assert_int_equal(log.after, 1);
}

/* More runs than the runner keeps samples for: refused before anything runs. */
static void test_repeat_over_the_limit_refused(void **state)
{
	static const struct strategy *const list[] = { &fake_ok };
	struct strategy_result r;
	struct progress_log log = { 0 };
	struct xfer_target t = { 0 };
	struct runner_opts o = { .repeat = RUNNER_MAX_REPEAT + 1, .progress = on_progress,
				 .progress_ctx = &log };

	(void)state;
	need_source();
	fakes_reset();
	assert_int_equal(runner_run(&o, src.root, &src.m, &t, list, 1, &r), -1);
	assert_string_equal(err_msg(), "--repeat: at most 100");
	assert_int_equal(way_ok.calls, 0);
	assert_int_equal(log.before + log.after, 0);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_every_strategy_gets_a_result, session_setup, session_teardown),
		cmocka_unit_test_setup_teardown(test_repeat_stops_at_the_first_failed_run, session_setup, session_teardown),
		cmocka_unit_test_setup_teardown(test_median_min_max_of_the_runs, session_setup, session_teardown),
		cmocka_unit_test_setup_teardown(test_lost_agent_skips_the_rest, session_setup, session_teardown),
		cmocka_unit_test(test_repeat_over_the_limit_refused),
	};
	int rc;

	/* a cut connection's next write raises SIGPIPE */
	signal(SIGPIPE, SIG_IGN);
	rc = test_run("runner", tests, ARRAY_LEN(tests), NULL, 0);
	if (src.ready) {
		manifest_release(&src.m);
		if (fs_remove_tree(src.root) < 0)
			rc++;
	}
	return rc;
}
