/*
 * Unit tests for transfer/model/attribution_window.c: a stream held back
 * by its window waits on the round trip, so the time beyond the link's need
 * is latency (window-limited), not network; the wait overlaps the other
 * stages (a slower disk leaves none); a what-if round trip moves the cap.
 * The numbers are the testbed's at 20 ms: one stream 170 MB/s (a 4 MiB
 * send buffer), the link 650 MB/s with 8 streams.
 */
#include "testutil.h"

#include "model/attribution.h"
#include "model/attribution_window.h"

#include <math.h>
#include <string.h>

#define GIB 1073741824ull

static struct ceilings wan(void)
{
	return (struct ceilings){
		.net_bps = 650e6,
		.stream_cap_bps = 170e6,
		.window_bytes = 4.0 * 1024 * 1024,
		.rtt_s = 0.020,
		.disk_write_bps = 2e9,
		.disk_read_bps = 2e9,
	};
}

static struct attribution_input splice_2g(double wall)
{
	return (struct attribution_input){
		.wall_s = wall, .transfer_s = wall, .bytes = 2 * GIB, .wire_bytes = 2 * GIB, .files = 1,
		.streams = 1, .bulk_stream = true, .structure = ATTR_PIPELINE, .cpu_stage_s = -1,
		.own_cpu_s = -1, .peer_cpu_s = -1, .foreign_cpu_s = -1, .dest_disk_busy = -1,
		.src_disk_busy = -1, .cpu_busy = -1,
	};
}

static void test_window_limited_is_latency(void **state)
{
	struct ceilings c = wan();
	struct attribution_input in = splice_2g(12.9);
	struct attribution a;
	double expect = 2.0 * GIB / 170e6;

	(void)state;
	assert_int_equal(attribution_compute(&in, &c, &a), 0);
	assert_int_equal(a.verdict, RES_LATENCY);
	/* the stream's own rate sets the time, whatever the link could do */
	assert_true(fabs(a.predicted_s - expect) < 0.5);
	assert_true(a.share[RES_LATENCY] > a.share[RES_NETWORK]);
	assert_non_null(strstr(a.reason, "window-limited at 170 MB/s"));
	assert_non_null(strstr(a.reason, "4.0 MiB window"));
	assert_non_null(strstr(a.reason, "the link carries 650 MB/s"));
}

static void test_no_cap_stays_network(void **state)
{
	struct ceilings c = wan();
	struct attribution_input in = splice_2g(3.4);
	struct attribution a;
	double need[RES_COUNT] = { 0 };

	(void)state;
	c.stream_cap_bps = 0;
	assert_int_equal(attribution_compute(&in, &c, &a), 0);
	assert_int_equal(a.verdict, RES_NETWORK);
	assert_true(attribution_window_wait(&in, &c, need) == 0);
	/* a cap at or above the link is no window limit */
	c.stream_cap_bps = 700e6;
	assert_true(attribution_window_wait(&in, &c, need) == 0);
}

static void test_wait_overlaps_a_slower_stage(void **state)
{
	struct ceilings c = wan();
	struct attribution_input in = splice_2g(17);
	double need[RES_COUNT] = { 0 };

	(void)state;
	/* a disk at 130 MB/s needs longer than the window does: nothing waits on the window */
	need[RES_NETWORK] = 2.0 * GIB / c.net_bps;
	need[RES_DISK] = 2.0 * GIB / 130e6;
	assert_true(attribution_window_wait(&in, &c, need) == 0);
	/* at 300 MB/s the window's 12.6 s is 5.5 s beyond the disk's 7.2 s */
	need[RES_DISK] = 2.0 * GIB / 300e6;
	assert_true(fabs(attribution_window_wait(&in, &c, need) - (2.0 * GIB / 170e6 - 2.0 * GIB / 300e6)) < 1e-6);
}

static void test_what_if_round_trip_moves_the_cap(void **state)
{
	struct ceilings c = wan(), there;
	struct attribution_input in = splice_2g(12.9);
	struct what_if w = { .rtt_s = 0.010 };

	(void)state;
	attribution_what_if_ceilings(&in, &c, &w, &there);
	/* half the round trip, the same window: twice the rate */
	assert_true(fabs(there.stream_cap_bps - 340e6) < 1);
	assert_true(attribution_what_if(&in, &c, 0, &w) < 2.0 * GIB / 170e6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window_limited_is_latency),
		cmocka_unit_test(test_no_cap_stays_network),
		cmocka_unit_test(test_wait_overlaps_a_slower_stage),
		cmocka_unit_test(test_what_if_round_trip_moves_the_cap),
	};

	return test_run("attribution_window", tests, ARRAY_LEN(tests), NULL, 0);
}
