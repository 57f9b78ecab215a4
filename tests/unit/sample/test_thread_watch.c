/*
 * Unit tests for transfer/sample/thread_watch.c: a process's busiest
 * thread over a window (threads there at the start count from there, those
 * born in it from 0, the sampler's own left out).
 */
#include "testutil.h"

#include "sample/thread_watch.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

static void test_busiest_of_the_window(void **state)
{
	static struct thread_watch w;
	uint64_t delay = 0;

	(void)state;
	thread_watch_init(&w, 0);
	/* the first scan: a main thread at 500 ticks, an idle watcher at 3 */
	thread_watch_update(&w, 100, 500, 7000);
	thread_watch_update(&w, 101, 3, 10);
	thread_watch_scanned(&w);
	assert_int_equal(thread_watch_busiest_ticks(&w, NULL), 0);
	/* a stream thread born in the window counts from 0; the main thread from 500 */
	thread_watch_update(&w, 102, 300, 2500);
	thread_watch_update(&w, 100, 620, 8000);
	thread_watch_scanned(&w);
	assert_int_equal(thread_watch_busiest_ticks(&w, &delay), 300);
	assert_int_equal(delay, 2500);	/* its run-queue wait, from 0 too */
	/* it exits (no more readings): its last reading stands */
	thread_watch_update(&w, 100, 900, 9500);
	thread_watch_scanned(&w);
	assert_int_equal(thread_watch_busiest_ticks(&w, &delay), 400);
	assert_int_equal(delay, 2500);	/* the main thread's over the window: 9500 - 7000 */
	/* every thread's wait for a core, in all: 2500 (main) + 0 (watcher) + 2500 (stream) */
	assert_int_equal(thread_watch_delay_ns(&w), 5000);
	/* the sampler's own thread is left out */
	thread_watch_skip(&w, 100);
	assert_int_equal(thread_watch_busiest_ticks(&w, &delay), 300);
	assert_int_equal(delay, 2500);
	assert_int_equal(thread_watch_delay_ns(&w), 2500);
}

static void test_scan_reads_this_process(void **state)
{
	static struct thread_watch w;
	volatile unsigned long spin = 0;

	(void)state;
	thread_watch_init(&w, 0);
	assert_int_equal(thread_watch_scan(&w), 0);
	assert_true(w.n >= 1);
	for (unsigned long i = 0; i < 200000000ul; i++)
		spin += i;
	assert_int_equal(thread_watch_scan(&w), 0);
	/* this thread burned CPU: its ticks moved (a functional check, not a timing one) */
	assert_true(thread_watch_busiest_ticks(&w, NULL) > 0);
	thread_watch_init(&w, 999999999);
	assert_int_equal(thread_watch_scan(&w), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_busiest_of_the_window),
		cmocka_unit_test(test_scan_reads_this_process),
	};

	return test_run("thread_watch", tests, ARRAY_LEN(tests), NULL, 0);
}
