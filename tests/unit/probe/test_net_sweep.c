/*
 * Unit tests for transfer/probe/net_sweep.c: the sweep's stop rule (a step
 * gaining less than 10% ends it, so does the cap), its saturation point, the
 * rate between two steps, -P auto's choice and caps, and the window
 * arithmetic (buffer over round trip, when one stream is window-limited, the
 * bandwidth-delay product). The cases are the testbed's: 20 ms unshaped
 * (1.36, 2.7, 5.2, 5.3 Gbit/s at 1, 2, 4, 8 streams), 1 Gbit/s shaped.
 */
#include "testutil.h"

#include "probe/net_sweep.h"

#include <math.h>

#define MIB (1024.0 * 1024.0)

static void test_next_doubles_until_gain_small(void **state)
{
	struct net_sweep_step s[NET_SWEEP_MAX_STEPS] = {
		{ 1, 1.36e9 }, { 2, 2.7e9 }, { 4, 5.2e9 }, { 8, 5.3e9 },
	};

	(void)state;
	assert_int_equal(net_sweep_next(s, 0, 64), 1);
	assert_int_equal(net_sweep_next(s, 1, 64), 2);
	assert_int_equal(net_sweep_next(s, 2, 64), 4);
	assert_int_equal(net_sweep_next(s, 3, 64), 8);
	/* 5.2 -> 5.3 is 2%: the link is found */
	assert_int_equal(net_sweep_next(s, 4, 64), 0);
}

static void test_next_stops_at_exactly_the_gain(void **state)
{
	struct net_sweep_step s[2] = { { 1, 1e9 }, { 2, 1.0999e9 } };

	(void)state;
	assert_int_equal(net_sweep_next(s, 2, 64), 0);
	s[1].bits_per_s = 1.1e9;
	assert_int_equal(net_sweep_next(s, 2, 64), 4);
	/* a step that lost (a busy machine) stops it too */
	s[1].bits_per_s = 0.8e9;
	assert_int_equal(net_sweep_next(s, 2, 64), 0);
}

static void test_next_cap(void **state)
{
	struct net_sweep_step s[NET_SWEEP_MAX_STEPS] = { { 1, 1e9 }, { 2, 2e9 }, { 4, 4e9 } };

	(void)state;
	/* the cap is measured itself, also when it is not a power of two */
	assert_int_equal(net_sweep_next(s, 2, 3), 3);
	s[2].streams = 3;
	assert_int_equal(net_sweep_next(s, 3, 3), 0);
	assert_int_equal(net_sweep_next(s, 1, 1), 0);
	/* 1, 2, 4, ... 64 fits the table, every step gaining */
	for (unsigned i = 0; i < NET_SWEEP_MAX_STEPS; i++)
		s[i] = (struct net_sweep_step){ 1u << i, 1e9 * (1u << i) };
	assert_int_equal(net_sweep_next(s, 7, 64), 0);
	assert_int_equal(net_sweep_next(s, 6, 64), 64);
	assert_int_equal(net_sweep_next(s, NET_SWEEP_MAX_STEPS, 1000), 0);
}

static void test_saturation_and_best(void **state)
{
	struct net_sweep_step wan[] = { { 1, 1.36e9 }, { 2, 2.7e9 }, { 4, 5.2e9 }, { 8, 5.3e9 } };
	struct net_sweep_step shaped[] = { { 1, 0.94e9 }, { 2, 0.95e9 } };

	(void)state;
	assert_true(net_sweep_best(wan, 4) == 5.3e9);
	assert_int_equal(net_sweep_saturation(wan, 4), 4);
	assert_int_equal(net_sweep_saturation(shaped, 2), 1);
	assert_int_equal(net_sweep_saturation(wan, 0), 0);
	assert_true(net_sweep_best(wan, 0) == 0);
}

static void test_rate_at(void **state)
{
	struct net_sweep_step s[] = { { 1, 1e9 }, { 2, 2e9 }, { 4, 4e9 }, { 8, 5e9 } };

	(void)state;
	assert_true(net_sweep_rate_at(s, 4, 1) == 1e9);
	assert_true(net_sweep_rate_at(s, 4, 4) == 4e9);
	assert_true(fabs(net_sweep_rate_at(s, 4, 3) - 3e9) < 1);
	assert_true(fabs(net_sweep_rate_at(s, 4, 6) - 4.5e9) < 1);
	/* beyond the sweep: its last rate, never extrapolated */
	assert_true(net_sweep_rate_at(s, 4, 16) == 5e9);
	assert_true(net_sweep_rate_at(s, 0, 4) == 0);
}

static void test_auto(void **state)
{
	struct net_sweep_step wan[] = { { 1, 1.36e9 }, { 2, 2.7e9 }, { 4, 5.2e9 }, { 8, 5.9e9 }, { 16, 6.0e9 } };
	struct net_sweep_step shaped[] = { { 1, 0.94e9 }, { 2, 0.95e9 } };

	(void)state;
	/* the saturation point (8: 5.9 is within 10% of 6.0, 5.2 is not) */
	assert_int_equal(net_sweep_auto(wan, 5, 2, 16, 0), 8);
	/* capped by what the cores drive and by the pieces to share out */
	assert_int_equal(net_sweep_auto(wan, 5, 2, 4, 0), 4);
	assert_int_equal(net_sweep_auto(wan, 5, 2, 16, 3), 3);
	/* a full link at one stream: one a core still */
	assert_int_equal(net_sweep_auto(shaped, 2, 2, 16, 0), 2);
	assert_int_equal(net_sweep_auto(shaped, 2, 1, 16, 0), 1);
	/* no sweep: the floor; never 0 */
	assert_int_equal(net_sweep_auto(wan, 0, 2, 16, 0), 2);
	assert_int_equal(net_sweep_auto(wan, 0, 0, 0, 0), 1);
}

static void test_window_limited(void **state)
{
	/* 4 MiB over 20 ms: 1.68 Gbit/s; one stream moved 1.36, the link 5.3 */
	struct net_window w = { .sndbuf_bytes = 4 * MIB, .wmem_max_bytes = 4 * MIB, .rtt_s = 0.020 };

	(void)state;
	net_window_judge(&w, 1.36e9, 5.3e9);
	assert_true(fabs(w.window_bits_per_s - 4 * MIB * 8 / 0.020) < 1);
	assert_true(w.limited);
	/* the link full with one stream (1 Gbit/s shaped): not window-limited */
	net_window_judge(&w, 0.94e9, 0.95e9);
	assert_false(w.limited);
}

static void test_window_not_the_reason(void **state)
{
	/* 0.5 ms: 4 MiB carries 67 Gbit/s; one stream's 10 Gbit/s is the CPU's, not the window's */
	struct net_window w = { .sndbuf_bytes = 4 * MIB, .rtt_s = 0.0005 };
	struct net_window none = { .rtt_s = 0.020 };
	struct net_window from_sysctl = { .wmem_max_bytes = 4 * MIB, .rtt_s = 0.020 };

	(void)state;
	net_window_judge(&w, 10e9, 18e9);
	assert_false(w.limited);
	/* nothing known about the buffer: never named */
	net_window_judge(&none, 1.36e9, 5.3e9);
	assert_false(none.limited);
	assert_true(none.window_bits_per_s == 0);
	/* the socket's own unknown: the sysctl's maximum stands in */
	net_window_judge(&from_sysctl, 1.36e9, 5.3e9);
	assert_true(from_sysctl.limited);
}

static void test_floor(void **state)
{
	(void)state;
	/* small files: one stream a core */
	assert_int_equal(net_sweep_floor(2, 0, 16), 2);
	assert_int_equal(net_sweep_floor(2, 7, 16), 2);
	/* a 1 GiB file is 16 ranges of 64 MiB: the disks' depth */
	assert_int_equal(net_sweep_floor(2, 16, 16), NET_AUTO_RANGE_DEPTH);
	assert_int_equal(net_sweep_floor(32, 16, 16), 16);
	assert_int_equal(net_sweep_floor(2, 16, 4), 4);
	assert_int_equal(net_sweep_floor(0, 0, 16), 1);
}

static void test_bdp(void **state)
{
	(void)state;
	/* the example: 10 Gbit/s at 20 ms needs 25 MB */
	assert_true(fabs(net_window_bdp_bytes(10e9, 0.020) - 25e6) < 1);
	assert_true(net_window_bdp_bytes(0, 0.020) == 0);
	assert_true(net_window_bdp_bytes(10e9, 0) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_next_doubles_until_gain_small),
		cmocka_unit_test(test_next_stops_at_exactly_the_gain),
		cmocka_unit_test(test_next_cap),
		cmocka_unit_test(test_saturation_and_best),
		cmocka_unit_test(test_rate_at),
		cmocka_unit_test(test_auto),
		cmocka_unit_test(test_window_limited),
		cmocka_unit_test(test_window_not_the_reason),
		cmocka_unit_test(test_floor),
		cmocka_unit_test(test_bdp),
	};

	return test_run("net_sweep", tests, ARRAY_LEN(tests), NULL, 0);
}
