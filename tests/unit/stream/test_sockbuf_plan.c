/*
 * Unit tests for transfer/stream/sockbuf_plan.c: when one stream's socket
 * buffer is set and to what, when autotuning is left on, when this
 * machine's sysctls cap it and what the report tells the user to raise. The
 * cases are the testbed's: 21 Gbit/s swept at 20 ms, tcp_wmem max 4 MiB,
 * tcp_rmem max 32 MiB, net.core.wmem_max and rmem_max 4 MiB.
 */
#include "testutil.h"

#include "stream/sockbuf_plan.h"

#include <math.h>
#include <string.h>

#define MIB (1024.0 * 1024.0)

static const struct sockbuf_limits send_here = { .auto_max = 4 * MIB, .set_max = 4 * MIB };
static const struct sockbuf_limits recv_root = { .auto_max = 32 * MIB, .set_max = 4 * MIB, .may_force = true };
static const struct sockbuf_limits recv_user = { .auto_max = 32 * MIB, .set_max = 4 * MIB };

static void test_send_capped_but_set_beyond_autotuning(void **state)
{
	struct sockbuf_plan p;
	char line[256];

	(void)state;
	sockbuf_plan_make(SOCKBUF_SEND, 21e9 / 8 * 0.020, &send_here, &p);
	assert_true(fabs(p.bdp_bytes - 52.5e6) < 1);
	assert_true(fabs(p.want_bytes - 105e6) < 1);
	/* explicit: 2 x 4 MiB beats autotuning's 4 MiB, though short of 105 MB */
	assert_true(p.request_bytes == 4 * MIB);
	assert_false(p.force);
	assert_true(p.expect_bytes == 8 * MIB);
	assert_true(p.capped);
	assert_string_equal(sockbuf_plan_advice(&p, 21e9 / 8, 0.020, line, sizeof(line)),
			    "raise net.ipv4.tcp_wmem max to at least 105 MB (or net.core.wmem_max to 52 MB) for 21.0 Gbit/s at 20.0 ms");
}

static void test_autotuning_reaches_it(void **state)
{
	struct sockbuf_plan p;
	char line[64] = "x";

	(void)state;
	/* 0.5 ms: 1.3 MB in flight, 2.6 MB of buffer, under tcp_wmem's 4 MiB */
	sockbuf_plan_make(SOCKBUF_SEND, 21e9 / 8 * 0.0005, &send_here, &p);
	assert_true(p.request_bytes == 0);
	assert_false(p.capped);
	assert_true(fabs(p.expect_bytes - p.want_bytes) < 1);
	assert_string_equal(sockbuf_plan_advice(&p, 21e9 / 8, 0.0005, line, sizeof(line)), "");
}

static void test_explicit_no_better_than_autotuning(void **state)
{
	struct sockbuf_plan p;

	(void)state;
	/* a receiver without privilege: 2 x rmem_max (8 MiB) is under tcp_rmem's 32 MiB */
	sockbuf_plan_make(SOCKBUF_RECV, 21e9 / 8 * 0.020, &recv_user, &p);
	assert_true(p.request_bytes == 0);
	assert_true(p.expect_bytes == 32 * MIB);
	assert_true(p.capped);
	assert_string_equal(p.auto_sysctl, "net.ipv4.tcp_rmem");
	assert_string_equal(p.set_sysctl, "net.core.rmem_max");
	assert_true(fabs(p.auto_at_least - 105e6) < 1);
}

static void test_root_forces_the_receive_buffer(void **state)
{
	struct sockbuf_plan p;

	(void)state;
	sockbuf_plan_make(SOCKBUF_RECV, 21e9 / 8 * 0.020, &recv_root, &p);
	assert_true(p.force);
	assert_true(fabs(p.request_bytes - 52.5e6) < 1);
	assert_true(fabs(p.expect_bytes - 105e6) < 1);
	assert_false(p.capped);
}

static void test_at_most_the_cap(void **state)
{
	struct sockbuf_plan p;

	(void)state;
	/* 100 Gbit/s at 100 ms would want 2.5 GB */
	sockbuf_plan_make(SOCKBUF_RECV, 100e9 / 8 * 0.100, &recv_root, &p);
	assert_true(p.want_bytes == SOCKBUF_MAX_BYTES);
	assert_true(p.request_bytes == SOCKBUF_MAX_BYTES / 2);
	assert_false(p.capped);
}

static void test_unknown_leaves_autotuning(void **state)
{
	struct sockbuf_plan p;
	const struct sockbuf_limits none = { 0 };

	(void)state;
	sockbuf_plan_make(SOCKBUF_SEND, 0, &send_here, &p);
	assert_true(p.request_bytes == 0 && !p.capped && p.bdp_bytes == 0);
	sockbuf_plan_make(SOCKBUF_SEND, -1, &send_here, &p);
	assert_true(p.request_bytes == 0 && !p.capped);
	/* no sysctls to read: nothing known to cap it, nothing set */
	sockbuf_plan_make(SOCKBUF_SEND, 21e9 / 8 * 0.020, &none, &p);
	assert_true(p.request_bytes == 0 && !p.capped);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_send_capped_but_set_beyond_autotuning),
		cmocka_unit_test(test_autotuning_reaches_it),
		cmocka_unit_test(test_explicit_no_better_than_autotuning),
		cmocka_unit_test(test_root_forces_the_receive_buffer),
		cmocka_unit_test(test_at_most_the_cap),
		cmocka_unit_test(test_unknown_leaves_autotuning),
	};

	return test_run("sockbuf_plan", tests, ARRAY_LEN(tests), NULL, 0);
}
