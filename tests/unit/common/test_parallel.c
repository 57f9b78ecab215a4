/* Unit tests for common/parallel.c: every index once, failures, progress. */
#include "testutil.h"

#include "err.h"
#include "parallel.h"

#include <pthread.h>

#define N 100003ull

struct visit_ctx {
	unsigned *hits;		/* per index, atomically incremented */
	unsigned *worker_of;	/* which worker ran the index */
	unsigned threads;
	uint64_t fail_at;	/* UINT64_MAX: never */
	unsigned calls;		/* atomic */
	int bad_worker;		/* set if a worker id was out of range */
	pthread_t caller;
	int ran_on_caller;	/* fn ran on the caller's thread */
};

static int visit(void *p, unsigned worker, uint64_t i)
{
	struct visit_ctx *c = p;

	__atomic_fetch_add(&c->hits[i], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&c->calls, 1, __ATOMIC_RELAXED);
	c->worker_of[i] = worker;
	if (worker >= c->threads)
		__atomic_store_n(&c->bad_worker, 1, __ATOMIC_RELAXED);
	if (pthread_equal(pthread_self(), c->caller))
		__atomic_store_n(&c->ran_on_caller, 1, __ATOMIC_RELAXED);
	if (i == c->fail_at)
		return err_set("callback failed at index %llu on worker %u", (unsigned long long)i,
			       worker);
	return 0;
}

static void ctx_init(struct visit_ctx *c, uint64_t n, unsigned threads)
{
	memset(c, 0, sizeof(*c));
	c->hits = calloc(n ? n : 1, sizeof(*c->hits));
	c->worker_of = calloc(n ? n : 1, sizeof(*c->worker_of));
	assert_non_null(c->hits);
	assert_non_null(c->worker_of);
	c->threads = threads ? threads : 1;
	c->fail_at = UINT64_MAX;
	c->caller = pthread_self();
}

static void ctx_free(struct visit_ctx *c)
{
	free(c->hits);
	free(c->worker_of);
}

static void run_all_once(unsigned threads, unsigned chunk)
{
	struct visit_ctx c;
	uint64_t bad = 0, first_bad = 0;
	unsigned used[8] = { 0 }, nused = 0;

	ctx_init(&c, N, threads);
	err_clear();
	assert_int_equal(parallel_for(N, threads, chunk, visit, &c, NULL), 0);
	assert_string_equal(err_msg(), "");
	for (uint64_t i = 0; i < N; i++)
		if (c.hits[i] != 1) {
			if (!bad)
				first_bad = i;
			bad++;
		}
	if (bad) {
		print_error("threads %u chunk %u: %llu indices not visited exactly once (first %llu: %u)\n",
			    threads, chunk, (unsigned long long)bad, (unsigned long long)first_bad,
			    c.hits[first_bad]);
		fail();
	}
	assert_int_equal(c.calls, N);
	assert_false(c.bad_worker);
	assert_false(c.ran_on_caller);	/* the work runs on the pool's threads */
	/* with chunking, each chunk runs on a single worker */
	for (uint64_t i = 0; i < N; i++) {
		if (i % (chunk ? chunk : 1) != 0)
			assert_int_equal(c.worker_of[i], c.worker_of[i - 1]);
		if (c.worker_of[i] < 8 && !used[c.worker_of[i]]++)
			nused++;
	}
	assert_true(nused >= 1 && nused <= c.threads);
	ctx_free(&c);
}

static void test_each_index_once_1_thread(void **state)
{
	(void)state;
	run_all_once(1, 1);
	run_all_once(1, 64);
}

static void test_each_index_once_2_threads(void **state)
{
	(void)state;
	run_all_once(2, 1);
	run_all_once(2, 64);
}

static void test_each_index_once_7_threads(void **state)
{
	(void)state;
	run_all_once(7, 1);
	run_all_once(7, 64);
	run_all_once(7, 1000);	/* n not a multiple of the chunk */
	run_all_once(7, 200000);	/* chunk larger than n */
	run_all_once(7, 0);	/* 0 means 1 */
}

static void test_zero_threads_means_one(void **state)
{
	(void)state;
	run_all_once(0, 16);
}

static void test_small_n_many_threads(void **state)
{
	struct visit_ctx c;

	(void)state;
	for (uint64_t n = 1; n <= 9; n++) {
		ctx_init(&c, n, 64);
		assert_int_equal(parallel_for(n, 64, 1, visit, &c, NULL), 0);
		for (uint64_t i = 0; i < n; i++)
			assert_int_equal(c.hits[i], 1);
		assert_int_equal(c.calls, n);
		assert_false(c.bad_worker);
		ctx_free(&c);
	}
}

static void test_n_zero(void **state)
{
	struct visit_ctx c;

	(void)state;
	ctx_init(&c, 0, 4);
	err_clear();
	assert_int_equal(parallel_for(0, 4, 1, visit, &c, NULL), 0);
	assert_int_equal(c.calls, 0);
	assert_int_equal(parallel_for(0, 1, 64, visit, &c, NULL), 0);
	assert_int_equal(c.calls, 0);
	assert_string_equal(err_msg(), "");
	ctx_free(&c);
}

static void test_failure_single_thread_stops_at_once(void **state)
{
	struct visit_ctx c;

	(void)state;
	ctx_init(&c, N, 1);
	c.fail_at = 10;
	err_clear();
	assert_int_equal(parallel_for(N, 1, 1, visit, &c, NULL), -1);
	/* the message comes from the worker thread's err_set, on the caller's thread */
	assert_string_equal(err_msg(), "callback failed at index 10 on worker 0");
	/* one thread, in order: 0..10 ran, nothing after */
	assert_int_equal(c.calls, 11);
	for (uint64_t i = 0; i < N; i++)
		assert_int_equal(c.hits[i], i <= 10 ? 1 : 0);
	ctx_free(&c);
}

/*
 * Several threads, one failing index. To make "it stopped" checkable without
 * depending on scheduling, calls after the failing index wait until it has
 * failed, and calls made after the failure are slow (2 ms), so the pool must
 * notice the failure long before it could get through the rest.
 */
struct fail_ctx {
	struct visit_ctx v;
	int failed;		/* atomic: the failing call has happened */
	unsigned late;		/* atomic: calls that began after it */
};

static int visit_then_fail(void *p, unsigned worker, uint64_t i)
{
	struct fail_ctx *c = p;
	struct timespec ms = { 0, 2 * 1000 * 1000 }, poll = { 0, 50 * 1000 };

	if (__atomic_load_n(&c->failed, __ATOMIC_ACQUIRE)) {
		__atomic_fetch_add(&c->late, 1, __ATOMIC_RELAXED);
		nanosleep(&ms, NULL);
	} else if (i > c->v.fail_at) {
		while (!__atomic_load_n(&c->failed, __ATOMIC_ACQUIRE))
			nanosleep(&poll, NULL);
	}
	if (i == c->v.fail_at)
		__atomic_store_n(&c->failed, 1, __ATOMIC_RELEASE);
	return visit(&c->v, worker, i);
}

static void test_failure_multi_thread(void **state)
{
	static const unsigned chunks[] = { 1, 64 };
	const unsigned threads = 7;

	(void)state;
	for (size_t k = 0; k < ARRAY_LEN(chunks); k++) {
		struct fail_ctx c;
		char want[128];

		memset(&c, 0, sizeof(c));
		ctx_init(&c.v, N, threads);
		c.v.fail_at = 500;
		err_clear();
		assert_int_equal(parallel_for(N, threads, chunks[k], visit_then_fail, &c, NULL), -1);
		snprintf(want, sizeof(want), "callback failed at index 500 on worker %u",
			 c.v.worker_of[500]);
		assert_string_equal(err_msg(), want);
		assert_int_equal(c.v.hits[500], 1);
		/* every index below the failure was handed out before it, and chunks finish */
		for (uint64_t i = 0; i < 500; i++)
			assert_int_equal(c.v.hits[i], 1);
		for (uint64_t i = 0; i < N; i++)
			assert_true(c.v.hits[i] <= 1);
		/*
		 * After the failure, a worker finishes the chunk it holds (and may
		 * take one more as the failure lands), then stops: typically at
		 * most 2 * threads * chunk late calls. The bound allows for the
		 * failing thread being descheduled on a loaded machine: 1000 late
		 * calls of 2 ms on 6 threads would take a third of a second.
		 */
		if (c.late > 1000) {
			print_error("chunk %u: %u calls after the failure\n", chunks[k], c.late);
			fail();
		}
		assert_true(c.v.calls < 600 + 1000);
		ctx_free(&c.v);
	}
}

/* The first index fails: the message still arrives even though no chunk completes. */
static void test_failure_at_first_and_last(void **state)
{
	struct visit_ctx c;

	(void)state;
	ctx_init(&c, 1000, 2);
	c.fail_at = 0;
	assert_int_equal(parallel_for(1000, 2, 1000, visit, &c, NULL), -1);
	assert_contains(err_msg(), "index 0");
	ctx_free(&c);

	ctx_init(&c, 1000, 3);
	c.fail_at = 999;
	assert_int_equal(parallel_for(1000, 3, 7, visit, &c, NULL), -1);
	assert_contains(err_msg(), "index 999");
	for (uint64_t i = 0; i < 1000; i++)
		assert_int_equal(c.hits[i], 1);
	ctx_free(&c);
}

/* Every index fails on its own thread: exactly one message comes back, intact. */
static int fail_always(void *p, unsigned worker, uint64_t i)
{
	(void)p;
	return err_set("worker %u failed index %llu", worker, (unsigned long long)i);
}

static void test_failure_message_is_whole(void **state)
{
	unsigned w;
	unsigned long long i;
	char tail;

	(void)state;
	for (int round = 0; round < 20; round++) {
		err_clear();
		assert_int_equal(parallel_for(10000, 7, 1, fail_always, NULL, NULL), -1);
		if (sscanf(err_msg(), "worker %u failed index %llu%c", &w, &i, &tail) != 2) {
			print_error("garbled message '%s'\n", err_msg());
			fail();
		}
		assert_true(w < 7);
		assert_true(i < 10000);
	}
}

struct progress_ctx {
	struct visit_ctx v;
	uint64_t calls, last_done, last_total;
	int went_back, over, wrong_thread;
	pthread_t caller;
};

static int slow_visit(void *p, unsigned worker, uint64_t i)
{
	struct progress_ctx *c = p;

	(void)worker;
	__atomic_fetch_add(&c->v.hits[i], 1, __ATOMIC_RELAXED);
	if (i % 100 == 0) {
		struct timespec ts = { 0, 1000 * 1000 };	/* about 0.3 s in all */

		nanosleep(&ts, NULL);
	}
	return 0;
}

static void on_progress(void *p, uint64_t done, uint64_t total)
{
	struct progress_ctx *c = p;

	if (!pthread_equal(pthread_self(), c->caller))
		c->wrong_thread = 1;
	if (done < c->last_done)
		c->went_back = 1;
	if (done > total)
		c->over = 1;
	c->last_done = done;
	c->last_total = total;
	c->calls++;
}

static void test_progress(void **state)
{
	struct progress_ctx c;
	const uint64_t n = 60000;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.v.hits = calloc(n, sizeof(*c.v.hits));
	assert_non_null(c.v.hits);
	c.caller = pthread_self();
	assert_int_equal(parallel_for(n, 2, 50, slow_visit, &c, on_progress), 0);
	for (uint64_t i = 0; i < n; i++)
		assert_int_equal(c.v.hits[i], 1);
	assert_true(c.calls >= 1);	/* at least the final call (ticks depend on scheduling) */
	assert_int_equal(c.last_done, n);
	assert_int_equal(c.last_total, n);
	assert_false(c.went_back);
	assert_false(c.over);
	assert_false(c.wrong_thread);
	free(c.v.hits);
}

static void test_cpus(void **state)
{
	(void)state;
	assert_true(parallel_cpus() >= 1);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_index_once_1_thread),
		cmocka_unit_test(test_each_index_once_2_threads),
		cmocka_unit_test(test_each_index_once_7_threads),
		cmocka_unit_test(test_zero_threads_means_one),
		cmocka_unit_test(test_small_n_many_threads),
		cmocka_unit_test(test_n_zero),
		cmocka_unit_test(test_failure_single_thread_stops_at_once),
		cmocka_unit_test(test_failure_multi_thread),
		cmocka_unit_test(test_failure_at_first_and_last),
		cmocka_unit_test(test_failure_message_is_whole),
		cmocka_unit_test(test_progress),
		cmocka_unit_test(test_cpus),
	};

	return test_run("parallel", tests, ARRAY_LEN(tests), NULL, 0);
}
