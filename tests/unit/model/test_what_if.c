/*
 * Unit tests for transfer/model/what_if.c: the scenario's syntax, the other
 * link as a strategy's streams see it (its rate, no faster than the probed
 * path nor the windows allow), and a run carried onto it: serial stages add
 * the round trips' difference, a pipeline overlaps the link with the rest,
 * and no forecast is below the link's time for the bytes on the wire.
 */
#include "testutil.h"

#include "err.h"
#include "model/what_if.h"
#include "model_fixture.h"
#include "strategy/list.h"

#include <math.h>

#define assert_near(a, b) assert_true(fabs((a) - (b)) <= 1e-9 * fmax(fabs(a), fabs(b)) + 1e-12)

static void test_parse_what_if(void **state)
{
	struct what_if w;
	char label[96];

	(void)state;
	assert_int_equal(what_if_parse("rate=1gbit,rtt=20ms", &w), 0);
	assert_true(w.rate_bits_per_s == 1e9 && fabs(w.rtt_s - 0.02) < 1e-15);
	assert_string_equal(what_if_label(&w, label, sizeof(label)), "on a 1 Gbit/s, 20 ms link");
	assert_int_equal(what_if_parse("rtt=500us", &w), 0);
	assert_true(w.rate_bits_per_s == 0 && fabs(w.rtt_s - 500e-6) < 1e-15);
	assert_string_equal(what_if_label(&w, label, sizeof(label)), "on the measured link with a 0.5 ms round trip");
	assert_int_equal(what_if_parse("rate=2.5Gbit/s", &w), 0);
	assert_true(w.rate_bits_per_s == 2.5e9 && w.rtt_s == 0);
	assert_string_equal(what_if_label(&w, label, sizeof(label)), "on a 2.5 Gbit/s link");
	assert_int_equal(what_if_parse("rate=100mbit,rtt=0.2s", &w), 0);

	/* a table of what is refused, and the part each message names */
	static const struct {
		const char *text, *says;
	} bad[] = {
		{ "rate=1gb", "rate '1gb'" },	{ "rtt=-3ms", "rtt '-3ms'" },
		{ "rtt=20", "rtt '20'" },	{ "delay=2ms", "unknown key 'delay'" },
		{ "1gbit", "key=value" },	{ "", "not a scenario" },
		{ ",", "sets neither" },	{ "rate=0gbit", "rate '0gbit'" },
	};
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		assert_int_equal(what_if_parse(bad[i].text, &w), -1);
		assert_contains(err_msg(), bad[i].says);
	}
}

static struct forecast_input input(const char *name, const struct probe_results *p, struct workload_counts w)
{
	const struct strategy *s = strategy_find(name);

	assert_non_null(s);
	return fixture_input(s, p, w);
}

/* The other link: its rate, but no faster than the probed path or one stream's window per round trip. */
static void test_the_link_as_the_streams_see_it(void **state)
{
	struct probe_results p = fixture_probes();
	struct forecast_input in = input("tar-ssh", &p, fixture_large(1 * GIB));
	struct what_if w = { .rate_bits_per_s = 1e9, .rtt_s = 20e-3 };
	struct link l;

	(void)state;
	what_if_link(&in, &w, &l);
	/* OpenSSH's 2 MiB channel window over 20 ms: 105 MB/s, below the 125 MB/s link */
	assert_near(l.bytes_per_s, WHAT_IF_SSH_WINDOW_BYTES / 20e-3);
	/* the request keeps the host's 70 us of work beyond the probed 40 us round trip */
	assert_near(l.request_s, 70e-6 + 20e-3);
	/* a faster link than the hosts' own path: the path's rate stands */
	w = (struct what_if){ .rate_bits_per_s = 100e9 };
	what_if_link(&in, &w, &l);
	assert_near(l.bytes_per_s, 500e6);
}

/* Serial: the run's time, plus each request's and handshake's difference in round trip, plus the link's. */
static void test_serial_adds_the_differences(void **state)
{
	struct probe_results p = fixture_probes();
	struct forecast_input in = input("scp", &p, fixture_small(20000));
	struct run_record run;
	struct what_if w = { .rate_bits_per_s = 200e6, .rtt_s = 10e-3 };
	struct what_if_forecast f;
	double wire = 20000 * 4096.0;

	(void)state;
	memset(&run, 0, sizeof(run));
	run.strategy = in.strategy;
	run.transfer_s = 14.0;
	run.flush_s = 0.5;
	run.sent.files = 20000;
	run.sent.bytes_read = run.sent.wire_bytes = (uint64_t)wire;
	run.sent.round_trips = 80040;
	assert_int_equal(what_if_forecast(&run, &in, &w, &f), 0);
	assert_int_equal(f.requests, 80040);
	assert_near(f.seconds, 14.0 + 0.5 + 3 * (10e-3 - 40e-6) + 80040 * (10e-3 - 40e-6) +
				       wire / 25e6 - wire / 500e6);
	assert_near(f.network_s, wire / 25e6);
	assert_true(f.seconds >= f.network_s);
}

/* A pipeline: the round trips, then the slower of the link and what the rest took in the run. */
static void test_pipeline_overlaps_the_link(void **state)
{
	struct probe_results p = fixture_probes();
	struct forecast_input in = input("splice", &p, fixture_small(20000));
	struct run_record run;
	struct what_if w = { .rate_bits_per_s = 1e9, .rtt_s = 2e-3 };
	struct what_if_forecast f;
	struct forecast here;

	(void)state;
	memset(&run, 0, sizeof(run));
	run.strategy = in.strategy;
	run.transfer_s = 3.0;
	run.flush_s = 1.0;
	run.sent.files = 20000;
	run.sent.bytes_read = run.sent.wire_bytes = 20000 * 4096ull;
	assert_int_equal(forecast_make(&in, NULL, &here), 0);
	assert_int_equal(what_if_forecast(&run, &in, &w, &f), 0);
	/* 82 MB at 125 MB/s (0.66 s) hides under the 3 s the rest took */
	assert_near(f.off_link_s, 3.0 - here.need_s[RES_LATENCY]);
	assert_near(f.seconds, f.latency_s + f.off_link_s + 1.0);
	/* on a slow link the link sets it, never below its time for the bytes */
	w.rate_bits_per_s = 10e6;
	assert_int_equal(what_if_forecast(&run, &in, &w, &f), 0);
	assert_near(f.network_s, 20000 * 4096.0 / 1.25e6);
	assert_true(f.seconds >= f.network_s + f.latency_s);
}

/* A tool that could not count its bytes on the wire: the forecast's count, never 0. */
static void test_uncounted_wire_bytes_are_forecast(void **state)
{
	struct probe_results p = fixture_probes();
	struct forecast_input in = input("real-tar-ssh", &p, fixture_large(1 * GIB));
	struct run_record run;
	struct what_if w = { .rate_bits_per_s = 200e6, .rtt_s = 10e-3 };
	struct what_if_forecast f;

	(void)state;
	memset(&run, 0, sizeof(run));
	run.strategy = in.strategy;
	run.transfer_s = 4.0;
	run.flush_s = 2.0;
	assert_int_equal(what_if_forecast(&run, &in, &w, &f), 0);
	assert_true(f.wire_bytes >= GIB);
	/* 1 GiB needs at least 43 s at 200 Mbit/s */
	assert_true(f.seconds >= GIB / 25e6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_what_if),
		cmocka_unit_test(test_the_link_as_the_streams_see_it),
		cmocka_unit_test(test_serial_adds_the_differences),
		cmocka_unit_test(test_pipeline_overlaps_the_link),
		cmocka_unit_test(test_uncounted_wire_bytes_are_forecast),
	};

	return cmocka_run_group_tests_name("what_if", tests, NULL, NULL);
}
