/*
 * Unit tests for transfer/model/forecast.c: each stage scales as
 * docs/MODEL.md says (bytes, files, round trips, streams), the stages
 * combine as a pipeline or in series, the range holds the forecast, and a
 * strategy without declared traits gets none.
 */
#include "testutil.h"

#include "model/forecast.h"
#include "model_fixture.h"
#include "strategy/list.h"

#include <math.h>

static const struct strategy *find(const char *name)
{
	const struct strategy *s = strategy_find(name);

	assert_non_null(s);
	return s;
}

static struct forecast make(const char *name, const struct probe_results *p, struct workload_counts w)
{
	struct forecast_input in = fixture_input(find(name), p, w);
	struct forecast f;

	assert_int_equal(forecast_make(&in, NULL, &f), 0);
	assert_true(f.seconds > 0);
	return f;
}

#define assert_near(a, b) assert_true(fabs((a) - (b)) <= 1e-9 * fmax(fabs(a), fabs(b)) + 1e-12)

/* scp over SFTP: every request of every file waits in turn, worked by hand (docs/MODEL.md) */
static void test_scp_adds_every_request(void **state)
{
	struct probe_results p = fixture_probes();
	struct forecast f = make("scp", &p, fixture_small(20000));

	(void)state;
	/* open, write, size, close a file; mkdir and mode a directory */
	assert_int_equal(f.requests, 20000 * 4 + 20 * 2);
	/* the channel's 500 MB/s, not the 2 GB/s link */
	assert_near(f.link.bytes_per_s, 500e6);
	/* round trips beyond their CPU (10 us each) and the handshakes are latency */
	assert_near(f.need_s[RES_LATENCY], 3 * 40e-6 + 80040 * 10e-6);
	/*
	 * the flush writes what the creates made: 20,000 pages of 4 KiB and an
	 * inode for each of the 20,020 names, at the durable 400 MB/s
	 */
	assert_near(f.flush_s, (20000 * 4096.0 + 20020 * 256.0) / 400e6);
	/*
	 * the rest of each request (100 us: sshd, sftp-server), the opens (2 s at
	 * 10,000/s), the creates without their flush (20,020 at 10,000/s) and
	 * their flush are per-file work
	 */
	assert_near(f.need_s[RES_METADATA], 80040 * 100e-6 + 2.0 + 20020 / 10000.0 + f.flush_s);
	assert_int_equal(f.bound, RES_METADATA);
	/* in series: handshakes, requests, the link, opens, creates, flush */
	assert_near(f.seconds, 3 * 40e-6 + 80040 * 110e-6 + f.need_s[RES_NETWORK] + 2.0 + 20020 / 10000.0 +
				       f.flush_s);
}

/* Twice the files: twice the per-file work and requests; the handshakes stay. */
static void test_stages_scale_with_files(void **state)
{
	struct probe_results p = fixture_probes();
	struct forecast one = make("scp", &p, fixture_small(20000));
	struct forecast two = make("scp", &p, fixture_small(40000));

	(void)state;
	assert_int_equal(two.requests, 2 * one.requests);
	assert_near(two.need_s[RES_METADATA], 2 * one.need_s[RES_METADATA]);
	assert_near(two.need_s[RES_LATENCY] - 3 * 40e-6, 2 * (one.need_s[RES_LATENCY] - 3 * 40e-6));
	assert_true(two.wire_bytes > 1.99 * one.wire_bytes && two.wire_bytes < 2.01 * one.wire_bytes);
}

/* Twice the bytes of one large file: twice the link's time and the disk's. */
static void test_stages_scale_with_bytes(void **state)
{
	struct probe_results p = fixture_probes();
	struct forecast one = make("splice", &p, fixture_large(1 * GIB));
	struct forecast two = make("splice", &p, fixture_large(2 * GIB));

	(void)state;
	/* the content's bytes (the record's header and name are the same in both) */
	assert_near(two.need_s[RES_NETWORK] - one.need_s[RES_NETWORK], GIB / 2e9);
	/* the disk: cold reads and durable writes; all of 2 GiB fits the dirty threshold, so in the flush */
	assert_near(one.flush_s - one.flush_creates_s, GIB / 400e6);
	assert_near(two.flush_s - two.flush_creates_s, 2 * GIB / 400e6);
	assert_near(two.need_s[RES_DISK], 2 * one.need_s[RES_DISK]);
}

/* Beyond the dirty threshold the disk writes during the transfer, sharing the one disk with the reads. */
static void test_writeback_beyond_the_threshold(void **state)
{
	struct probe_results p = fixture_probes();
	struct forecast f = make("splice", &p, fixture_large(4 * GIB));

	(void)state;
	assert_near(f.flush_s - f.flush_creates_s, 2 * GIB / 400e6);
	/* the transfer: 2 GiB written early and 4 GiB read, on one disk, then the flush */
	assert_int_equal(f.bound, RES_DISK);
	assert_near(f.seconds - f.need_s[RES_LATENCY] - f.flush_s, 2 * GIB / 400e6 + 4 * GIB / 1e9);
	/* on two disks the reads overlap the writes: the slower of the two */
	p.one_disk = false;
	f = make("splice", &p, fixture_large(4 * GIB));
	assert_near(f.seconds - f.need_s[RES_LATENCY] - f.flush_s, fmax(2 * GIB / 400e6, 4 * GIB / 1e9));
}

/* A pipeline: the slowest stage, after the round trips, then the flush; low <= forecast <= high. */
static void test_pipeline_takes_the_slowest(void **state)
{
	struct probe_results p = fixture_probes();
	struct forecast f;

	(void)state;
	p.net_bps_1 = 10e6;	/* an 80 Mbit/s link: 1 GiB needs 107 s on it */
	f = make("tar-ssh", &p, fixture_large(1 * GIB));
	assert_int_equal(f.bound, RES_NETWORK);
	assert_near(f.seconds, f.need_s[RES_LATENCY] + f.need_s[RES_NETWORK] + f.flush_s);
	assert_true(f.need_s[RES_NETWORK] >= GIB / 10e6);
	assert_true(f.low <= f.seconds && f.seconds <= f.high);
	assert_true(f.high > f.seconds);
}

/* Compressed: the link carries the content over the ratio, the CPU compresses all of it. */
static void test_compression(void **state)
{
	struct probe_results p = fixture_probes();
	struct forecast plain = make("tar-ssh", &p, fixture_large(1 * GIB));
	struct forecast packed = make("zstd-ssh", &p, fixture_large(1 * GIB));

	(void)state;
	assert_near(packed.wire_bytes, plain.wire_bytes / 2);
	assert_true(packed.need_s[RES_CPU] >= GIB / 600e6);
}

/*
 * The codec's CPU (MODEL.md "cpu"): on one machine both ends share the
 * cores, so every compressing thread's CPU and the receiver's decompression
 * add up over them; on two, each is a stage of its own, compression at its
 * probed rate and decompression on one thread.
 */
static void test_codec_cpu(void **state)
{
	struct probe_results p = fixture_probes();
	struct forecast f;

	(void)state;
	p.zstd_cpu_per_byte = 2 / 600e6;	/* two threads busy at 600 MB/s */
	p.unzstd_bps = 1.5e9;
	f = make("zstd", &p, fixture_large(1 * GIB));
	assert_near(f.need_s[RES_CPU], (GIB * 2 / 600e6 + GIB / 1.5e9 + 50e-6) / 2);
	/* over SSH the channel's CPU a byte on the wire joins them */
	f = make("zstd-ssh", &p, fixture_large(1 * GIB));
	assert_near(f.need_s[RES_CPU],
		    (GIB * 2 / 600e6 + GIB / 1.5e9 + 50e-6 + f.wire_bytes * 0.5 * 2 / 500e6) / 2);
	/* the compressor's CPU unknown (an older probe): one thread at its rate */
	p.zstd_cpu_per_byte = 0;
	f = make("zstd", &p, fixture_large(1 * GIB));
	assert_near(f.need_s[RES_CPU], fmax(GIB / 600e6, (GIB / 600e6 + GIB / 1.5e9 + 50e-6) / 2));
	/* two machines: the slower of the two ends' codec */
	p.zstd_cpu_per_byte = 2 / 600e6;
	p.one_machine = false;
	f = make("zstd", &p, fixture_large(1 * GIB));
	assert_near(f.need_s[RES_CPU], GIB / 600e6);
	p.unzstd_bps = 300e6;
	f = make("zstd", &p, fixture_large(1 * GIB));
	assert_near(f.need_s[RES_CPU], GIB / 300e6);
	/* no compression, no codec */
	f = make("splice", &p, fixture_large(1 * GIB));
	assert_near(f.need_s[RES_CPU], 0.0);
}

/* Streams: a multi-stream strategy's link is the sweep's rate at its streams. */
static void test_streams_take_the_swept_rate(void **state)
{
	struct probe_results p = fixture_probes();
	struct forecast_input in = fixture_input(find("parallel"), &p, fixture_large(1 * GIB));
	struct link l;

	(void)state;
	in.streams = 2;
	forecast_probed_link(&in, &l);
	assert_near(l.bytes_per_s, 24e9 / 8);
	in.streams = 1;
	forecast_probed_link(&in, &l);
	assert_near(l.bytes_per_s, 2e9);
	in.strategy = find("splice");
	in.streams = 2;	/* one stream whatever -P says */
	forecast_probed_link(&in, &l);
	assert_near(l.bytes_per_s, 2e9);
}

/* A longer round trip: more handshake and slow-start time on a bulk stream. */
static void test_round_trips_scale_latency(void **state)
{
	struct probe_results p = fixture_probes();
	struct forecast_input in = fixture_input(find("splice"), &p, fixture_large(1 * GIB));
	struct link l;
	struct forecast a, b;

	(void)state;
	forecast_probed_link(&in, &l);
	l.bytes_per_s = 125e6;
	l.rtt_s = 2e-3;
	assert_int_equal(forecast_make(&in, &l, &a), 0);
	l.rtt_s = 20e-3;
	assert_int_equal(forecast_make(&in, &l, &b), 0);
	/* slow start to the path's window: log2(BDP / 10 segments) round trips, and the 3 handshakes */
	assert_near(a.need_s[RES_LATENCY], (3 + ceil(log2(125e6 * 2e-3 / 14480))) * 2e-3);
	assert_near(b.need_s[RES_LATENCY], (3 + ceil(log2(125e6 * 20e-3 / 14480))) * 20e-3);
}

static void test_undeclared_gets_no_forecast(void **state)
{
	struct probe_results p = fixture_probes();
	struct strategy s = { .name = "cmd-x", .flags = STRATEGY_REFERENCE };
	struct forecast_input in = fixture_input(&s, &p, fixture_small(100));
	struct forecast f;

	(void)state;
	assert_int_equal(forecast_make(&in, NULL, &f), 0);
	assert_true(f.seconds == 0);
	assert_contains(f.why, "not declared");
	/* no link rate probed: none either, said */
	in.strategy = find("splice");
	p.net_bps_1 = p.net_link_bps = 0;
	p.nsweep = 0;
	assert_int_equal(forecast_make(&in, NULL, &f), 0);
	assert_true(f.seconds == 0);
	assert_contains(f.why, "rate");
}

/* Every declared strategy of the table gets a forecast, within its range. */
static void test_every_strategy_has_one(void **state)
{
	struct probe_results p = fixture_probes();

	(void)state;
	for (size_t i = 0; i < strategy_count; i++) {
		struct forecast_input in = fixture_input(strategy_table[i], &p, fixture_small(5000));
		struct forecast f;

		assert_int_equal(forecast_make(&in, NULL, &f), 0);
		if (!(f.seconds > 0 && f.low <= f.seconds && f.seconds <= f.high))
			fail_msg("%s: %g (%g-%g) %s", strategy_table[i]->name, f.seconds, f.low, f.high, f.why);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scp_adds_every_request),
		cmocka_unit_test(test_stages_scale_with_files),
		cmocka_unit_test(test_stages_scale_with_bytes),
		cmocka_unit_test(test_writeback_beyond_the_threshold),
		cmocka_unit_test(test_pipeline_takes_the_slowest),
		cmocka_unit_test(test_compression),
		cmocka_unit_test(test_codec_cpu),
		cmocka_unit_test(test_streams_take_the_swept_rate),
		cmocka_unit_test(test_round_trips_scale_latency),
		cmocka_unit_test(test_undeclared_gets_no_forecast),
		cmocka_unit_test(test_every_strategy_has_one),
	};

	return cmocka_run_group_tests_name("forecast", tests, NULL, NULL);
}
