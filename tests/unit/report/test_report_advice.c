/*
 * Unit tests for the closing advice (cmd/report/report_advice.c) where one stream
 * is window-limited: the recommendation goes on to say what caps one
 * stream, how many streams the link wants, and the sysctl to raise to what;
 * not a word of it when one stream fills the link.
 */
#include "testutil.h"

#include "report/report.h"
#include "report/text_wrap.h"

#include "result_testutil.h"

static void test_window_advice(void **state)
{
	/* the runs: parallel -P 8 2.6 s, splice 15.5 s */
	struct strategy_result res[2] = { test_result("parallel", 2.6), test_result("splice", 15.5) };
	struct probe_results p = { .net_saturation = 4, .net_link_bps = 5.2e9 / 8, .net_bps_1 = 1.4e9 / 8, .nsweep = 1 };
	struct report r = { .host = "testbed", .results = res, .nresults = 2, .probes = &p, .streams = 8 };

	(void)state;
	p.window = (struct net_window){ .sndbuf_bytes = 4 << 20, .wmem_max_bytes = 4 << 20, .rtt_s = 0.020,
					.limited = true };
	report_recommend(&r);
	assert_true(strncmp(r.recommendation, "use parallel for this workload on this link", 43) == 0);
	/* after the recommendation's own sentences, one more, capitalised */
	assert_contains(r.recommendation,
			". One stream is capped at 1.40 Gbit/s by a 4.0 MiB send buffer at 20.0 ms; the link carries "
			"5.20 Gbit/s with 4+ streams: use parallel -P 4 or more, or raise net.ipv4.tcp_wmem max here "
			"(and net.ipv4.tcp_rmem max on the host) to at least 26 MB");
	assert_int_equal(strstr(r.recommendation, "to at least 26 MB")[17], '\0');

	/* one stream fills the link: no window advice */
	p.window.limited = false;
	report_recommend(&r);
	assert_true(r.recommendation[0] != '\0');
	assert_null(strstr(r.recommendation, "One stream"));
	assert_null(strstr(r.recommendation, "tcp_wmem"));
}

/* issue 44, item 4: when parallel wins the advice is a command with the N that ran */
static void test_parallel_advice_is_a_command(void **state)
{
	struct strategy_result res[2] = { test_result("parallel", 2.6), test_result("splice", 15.5) };
	struct workload_spec spec = { .kind = WORKLOAD_DIR, .dir = "/srv/data" };
	struct report r = { .host = "testbed", .results = res, .nresults = 2, .streams = 2, .spec = &spec };

	(void)state;
	report_recommend(&r);
	assert_contains(r.recommendation, "The nearest without xfercmp: fpsync -n 2 /srv/data/ testbed:DST/ "
			"(2 rsync streams over ssh, as parallel ran 2)");
	assert_null(strstr(r.recommendation, "-j N"));
	assert_null(strstr(r.recommendation, " N "));
}

/* HOST is often an ssh alias that nc cannot resolve: nc connects to the address the agent was reached at */
static void test_nc_advice_uses_the_address(void **state)
{
	struct strategy_result res[2] = { test_result("splice", 2.6), test_result("scp", 15.5) };
	struct workload_spec spec = { .kind = WORKLOAD_DIR, .dir = "/srv/my data" };
	struct report r = { .host = "testbed", .host_addr = "198.18.0.2", .results = res, .nresults = 2,
			    .streams = 1, .spec = &spec };

	(void)state;
	report_recommend(&r);
	assert_contains(r.recommendation, "The same without xfercmp: tar -cf - -C '/srv/my data' . | nc -N 198.18.0.2 PORT, "
			"on testbed: nc -l PORT | tar -xf - -C DST (about ");
	/* no host here: the words stay for the user */
	r.host = "local";
	report_recommend(&r);
	assert_contains(r.recommendation, "| nc -N HOST PORT, on HOST: nc -l PORT |");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window_advice),
		cmocka_unit_test(test_parallel_advice_is_a_command),
		cmocka_unit_test(test_nc_advice_uses_the_address),
	};

	return test_run("report_advice", tests, ARRAY_LEN(tests), NULL, 0);
}
