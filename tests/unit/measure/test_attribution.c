/*
 * Unit tests for transfer/measure/attribution.c. The cases are shaped like the
 * testbed's known truths: a link shaped to 1 Gbit/s is network-bound, a large
 * file to durable disk is disk-bound, many small files over a per-file
 * protocol are metadata-bound, zstd at a high level is cpu-bound.
 */
#include "testutil.h"

#include "measure/attribution.h"
#include "err.h"

#include <math.h>

#define GIB 1073741824ull

/* The testbed's measured ceilings (veth, ext4 on the VM's disk). */
static struct ceilings testbed(void)
{
	return (struct ceilings){
		.net_bps = 2.5e9,
		.rtt_s = 80e-6,
		.disk_write_bps = 0.38e9,
		.disk_read_bps = 1.8e9,
		.create_per_s = 20000,
		.src_open_per_s = 50000,
	};
}

static struct attribution_input run(double wall, uint64_t bytes, uint64_t files)
{
	return (struct attribution_input){
		.wall_s = wall,
		.transfer_s = wall,
		.bytes = bytes,
		.wire_bytes = bytes,
		.files = files,
		.dest_disk_busy = -1,
		.src_disk_busy = -1,
		.net_util = -1,
		.cpu_busy = -1,
	};
}

/* Shares are in [0, 1] and sum to 1; needs are finite and not negative. */
static void expect_sane(const struct attribution *a)
{
	double sum = 0;

	for (int r = 0; r <= RES_COUNT; r++) {
		assert_true(a->share[r] >= 0 && a->share[r] <= 1);
		sum += a->share[r];
	}
	if (fabs(sum - 1) > 1e-9) {
		print_error("shares sum to %.12f\n", sum);
		fail();
	}
	for (int r = 0; r < RES_COUNT; r++)
		assert_true(isfinite(a->need_s[r]) && a->need_s[r] >= 0);
	assert_true(strlen(a->reason) > 0);
}

static void attribute(const struct attribution_input *in, const struct ceilings *c,
		      struct attribution *a)
{
	if (attribution_compute(in, c, a) != 0) {
		print_error("attribution_compute: %s\n", err_msg());
		fail();
	}
	expect_sane(a);
}

static void test_shaped_link_is_network_bound(void **state)
{
	struct ceilings c = testbed();
	struct attribution_input in = run(19, 2 * GIB, 1);
	struct attribution a;

	(void)state;
	c.net_bps = 117e6;
	c.disk_write_bps = 0.4e9;
	attribute(&in, &c, &a);
	assert_int_equal(a.verdict, RES_NETWORK);
	assert_string_equal(attribution_verdict_name(a.verdict), "network-bound");
	assert_true(fabs(a.need_s[RES_NETWORK] - 2 * GIB / 117e6) < 1e-9);
	assert_true(fabs(a.need_s[RES_DISK] - 2 * GIB / 0.4e9) < 1e-9);
	assert_true(a.share[RES_NETWORK] >= 0.6);
	/* 18.4 s + 5.4 s of need in 19 s overlap: scaled, nothing left over */
	assert_true(a.share[RES_COUNT] == 0);
	assert_contains(a.reason, "moved 113 MB/s over a link measured at 117 MB/s");
}

static void test_large_file_unshaped_is_disk_bound(void **state)
{
	struct ceilings c = testbed();
	struct attribution_input in = run(6, 2 * GIB, 1);
	struct attribution a;

	(void)state;
	in.transfer_s = 1.4;
	in.flush_s = 4.6;
	attribute(&in, &c, &a);
	assert_int_equal(a.verdict, RES_DISK);
	assert_string_equal(attribution_verdict_name(a.verdict), "disk-bound");
	assert_true(fabs(a.need_s[RES_DISK] - 2 * GIB / 0.38e9) < 1e-9);
	assert_true(a.share[RES_DISK] > 0.8);
	assert_contains(a.reason, "wrote 358 MB/s to a disk measured at 380 MB/s durable");
	assert_contains(a.reason, "flush to durable took 4.6 s");
}

static void test_scp_small_files_is_metadata_bound(void **state)
{
	struct ceilings c = testbed();
	struct attribution_input in = run(12, 20000ull * 4096, 20000);
	struct attribution a;

	(void)state;
	in.wire_bytes += 20000ull * 64;
	in.round_trips = 60000;
	c.request_rtt_s = 150e-6;
	attribute(&in, &c, &a);
	assert_int_equal(a.verdict, RES_METADATA);
	assert_string_equal(attribution_verdict_name(a.verdict), "metadata-bound");
	/* 1 s of creates + 0.4 s of opens + 60,000 x 150 us */
	assert_true(fabs(a.need_s[RES_METADATA] - 10.4) < 1e-9);
	assert_true(a.share[RES_METADATA] > 0.8);
	assert_true(fabs(a.share[RES_COUNT] - (1 - a.share[RES_METADATA] - a.share[RES_NETWORK] -
						a.share[RES_DISK] - a.share[RES_CPU])) < 1e-12);
	assert_contains(a.reason, "60,000 requests waited on the peer, 150 µs each: 9.0 s of 12.0 s");
	assert_contains(a.reason, "20,000 files at 1,667/s");

	/* without a per-request figure the TCP round trip stands in */
	c.request_rtt_s = 0;
	attribute(&in, &c, &a);
	assert_true(fabs(a.need_s[RES_METADATA] - (1 + 0.4 + 60000 * 80e-6)) < 1e-9);
	assert_contains(a.reason, "80 µs each");
}

static void test_creates_at_ceiling(void **state)
{
	struct ceilings c = testbed();
	struct attribution_input in = run(6.06, 494000000, 120000);
	struct attribution a;

	(void)state;
	c.create_per_s = 21000;
	c.src_open_per_s = 0;	/* not measured: the term is skipped */
	attribute(&in, &c, &a);
	assert_int_equal(a.verdict, RES_METADATA);
	assert_true(fabs(a.need_s[RES_METADATA] - 120000.0 / 21000) < 1e-9);
	assert_contains(a.reason, "creates ran at 19,802/s, the destination's measured ceiling is 21,000/s");

	/* opens at the source dominate when they are the slower end */
	c.src_open_per_s = 10000;
	attribute(&in, &c, &a);
	assert_contains(a.reason, "opens ran at 19,802/s, the source's measured cold ceiling is 10,000/s");
}

static void test_zstd_19_is_cpu_bound(void **state)
{
	struct ceilings c = testbed();
	struct attribution_input in = run(60, 500000000, 1);
	struct attribution a;

	(void)state;
	in.wire_bytes = 150000000;
	in.cpu_busy = 0.52;
	c.cpu_bps = 8e6;
	attribute(&in, &c, &a);
	assert_int_equal(a.verdict, RES_CPU);
	assert_string_equal(attribution_verdict_name(a.verdict), "cpu-bound");
	assert_true(fabs(a.need_s[RES_CPU] - 62.5) < 1e-9);
	assert_true(fabs(a.need_s[RES_NETWORK] - 0.06) < 1e-9);
	assert_true(a.share[RES_CPU] > 0.9);
	assert_contains(a.reason, "compressed at 8.3 MB/s, the measured zstd ceiling at this level is 8.0 MB/s");
	assert_contains(a.reason, "machine CPU 52% busy");
}

static void test_cipher_bound(void **state)
{
	struct ceilings c = testbed();
	struct attribution_input in = run(7.5, 2 * GIB, 1);
	struct attribution a;

	(void)state;
	in.wire_bytes = 2 * GIB + 1000000;
	c.cipher_bps = 300e6;
	c.disk_write_bps = 2e9;
	attribute(&in, &c, &a);
	assert_int_equal(a.verdict, RES_CPU);
	assert_contains(a.reason, "encrypted at 286 MB/s, the measured cipher ceiling is 300 MB/s");
}

static void test_source_read_bound(void **state)
{
	struct ceilings c = testbed();
	struct attribution_input in = run(11, 2 * GIB, 1);
	struct attribution a;

	(void)state;
	c.disk_read_bps = 0.2e9;
	in.src_disk_busy = 0.97;
	attribute(&in, &c, &a);
	assert_int_equal(a.verdict, RES_DISK);
	assert_contains(a.reason, "read 195 MB/s from a source disk measured at 200 MB/s cold");
	assert_contains(a.reason, "source disk 97% busy");
}

static void test_unknown_ceilings_do_not_divide_by_zero(void **state)
{
	struct ceilings zero = { 0 };
	struct ceilings bad = { .net_bps = NAN, .disk_write_bps = -1, .disk_read_bps = INFINITY,
				.create_per_s = 0, .cpu_bps = NAN, .cipher_bps = -INFINITY,
				.rtt_s = NAN, .request_rtt_s = -2 };
	struct attribution_input in = run(10, 2 * GIB, 1000);
	struct attribution a;

	(void)state;
	in.round_trips = 3000;
	attribute(&in, &zero, &a);
	assert_int_equal(a.verdict, RES_COUNT);
	assert_string_equal(attribution_verdict_name(a.verdict), "unattributed");
	assert_true(a.share[RES_COUNT] == 1);
	for (int r = 0; r < RES_COUNT; r++)
		assert_true(a.need_s[r] == 0);
	assert_contains(a.reason, "10.0 s unexplained");

	attribute(&in, &bad, &a);
	assert_int_equal(a.verdict, RES_COUNT);
	assert_true(a.share[RES_COUNT] == 1);

	/* nothing moved at all */
	in = run(3, 0, 0);
	attribute(&in, &zero, &a);
	assert_int_equal(a.verdict, RES_COUNT);
}

static void test_wall_time(void **state)
{
	struct ceilings c = testbed();
	struct attribution_input in = run(0, 2 * GIB, 1);
	struct attribution a;

	(void)state;
	/* no wall time given: the phases make it up */
	in.transfer_s = 2;
	in.flush_s = 4;
	attribute(&in, &c, &a);
	assert_true(fabs(a.share[RES_DISK] + a.share[RES_NETWORK] + a.share[RES_CPU] +
			 a.share[RES_METADATA] - 1) < 1e-9);
	assert_contains(a.reason, "wrote 358 MB/s");

	in.transfer_s = in.flush_s = 0;
	assert_int_equal(attribution_compute(&in, &c, &a), -1);
	assert_contains(err_msg(), "cannot attribute");
	in.wall_s = NAN;
	assert_int_equal(attribution_compute(&in, &c, &a), -1);
}

static void test_measured_busy_overrides_low_model(void **state)
{
	struct ceilings c = testbed();
	struct attribution_input in = run(10, 500000000, 1);
	struct attribution a;

	(void)state;
	/* the model says 0.25 s of disk; the disk was measurably busy 9 s */
	c.disk_write_bps = 2e9;
	in.dest_disk_busy = 0.9;
	attribute(&in, &c, &a);
	assert_int_equal(a.verdict, RES_DISK);
	/* one file: next to nothing of the excess is per-file work */
	assert_true(fabs(a.need_s[RES_DISK] - 9) < 0.01);
	assert_true(fabs(a.share[RES_DISK] - 0.9) < 0.01);
	assert_contains(a.reason, "destination disk 90% busy");

	/* a ceiling that was never measured: the busy time alone speaks */
	c.disk_write_bps = 0;
	attribute(&in, &c, &a);
	assert_int_equal(a.verdict, RES_DISK);
	assert_contains(a.reason, "ceiling was not measured");

	/* busy above 1 is clamped */
	in.dest_disk_busy = 3;
	attribute(&in, &c, &a);
	assert_true(fabs(a.need_s[RES_DISK] - 10) < 0.01);

	/* a measured link utilization raises the network need the same way */
	in = run(10, 500000000, 1);
	c = testbed();
	c.net_bps = 0;
	in.net_util = 0.95;
	attribute(&in, &c, &a);
	assert_int_equal(a.verdict, RES_NETWORK);
	assert_true(fabs(a.need_s[RES_NETWORK] - 9.5) < 1e-9);
	assert_contains(a.reason, "link 95% utilized");
}

static void test_tmpfs_destination_has_no_disk(void **state)
{
	struct ceilings c = testbed();
	struct attribution_input in = run(6, 2 * GIB, 1);
	struct attribution a;

	(void)state;
	in.dest_is_tmpfs = 1;
	in.dest_disk_busy = 0.9;	/* whatever was sampled, it is not the destination */
	in.flush_s = 3;
	attribute(&in, &c, &a);
	assert_true(fabs(a.need_s[RES_DISK] - 2 * GIB / 1.8e9) < 1e-9);
	assert_true(a.share[RES_COUNT] > 0.5);
}

static void test_warm_source_reads_no_disk(void **state)
{
	struct ceilings c = testbed();
	struct attribution_input in = run(8, 2 * GIB, 10000);
	struct attribution a;

	(void)state;
	c.disk_read_bps = 0.2e9;	/* read cold, the source would take 10.7 s */
	in.src_disk_busy = 0.9;		/* on one machine: the destination's writes */
	in.src_is_warm = 1;
	attribute(&in, &c, &a);
	assert_true(fabs(a.need_s[RES_DISK] - 2 * GIB / 0.38e9) < 1e-9);
	assert_true(fabs(a.need_s[RES_METADATA] - 10000 / 20000.0) < 1e-9);
	assert_contains(a.reason, "wrote");
	assert_null(strstr(a.reason, "source disk"));

	in.src_is_warm = 0;		/* the same run, cold: the source's side counts */
	attribute(&in, &c, &a);
	assert_true(fabs(a.need_s[RES_DISK] - 2 * GIB / 0.2e9) < 1e-9);
	assert_contains(a.reason, "source disk");
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(attribution_resource_name(RES_NETWORK), "network");
	assert_string_equal(attribution_resource_name(RES_DISK), "disk");
	assert_string_equal(attribution_resource_name(RES_METADATA), "metadata");
	assert_string_equal(attribution_resource_name(RES_CPU), "cpu");
	assert_string_equal(attribution_resource_name(RES_COUNT), "other");
	assert_string_equal(attribution_verdict_name(RES_NETWORK), "network-bound");
	assert_string_equal(attribution_verdict_name(RES_METADATA), "metadata-bound");
}

static void test_thousands_separators(void **state)
{
	struct ceilings c = { .create_per_s = 1234567 };
	struct attribution_input in = run(1, 0, 2000000);
	struct attribution a;

	(void)state;
	attribute(&in, &c, &a);
	assert_contains(a.reason, "creates ran at 2,000,000/s, the destination's measured ceiling is 1,234,567/s");
}

static void test_recommend(void **state)
{
	struct ceilings c = testbed();
	struct attribution_input in = run(19, 2 * GIB, 1);
	char text[256], tiny[12];

	(void)state;
	/* on a 1 Gbit/s link a 3:1 stream at 620 MB/s gets the full ratio */
	c.net_bps = 117e6;
	attribution_recommend(&in, &c, 3.0, 620e6, text, sizeof(text));
	assert_contains(text, "compression pays below 4.96 Gbit/s for this data (ratio 3.00, zstd at 620 MB/s)");
	assert_contains(text, "on this 0.94 Gbit/s link the stream would move 3.0x faster (6.1 s instead of 18.4 s)");

	/* on the 20 Gbit/s veth it costs: the compressor is the slow stage */
	c.net_bps = 2.5e9;
	attribution_recommend(&in, &c, 3.0, 620e6, text, sizeof(text));
	assert_contains(text, "compression pays below 4.96 Gbit/s");
	assert_contains(text, "4.0x slower");

	/* just either side of the break-even rate (the compressor's throughput) */
	c.net_bps = 619e6;
	attribution_recommend(&in, &c, 1.5, 620e6, text, sizeof(text));
	assert_contains(text, "faster");
	c.net_bps = 621e6;
	attribution_recommend(&in, &c, 1.5, 620e6, text, sizeof(text));
	assert_contains(text, "slower");

	attribution_recommend(&in, &c, 1.0, 620e6, text, sizeof(text));
	assert_contains(text, "does not pay for this data at any link rate (ratio 1.00");
	attribution_recommend(&in, &c, 2.0, 0, text, sizeof(text));
	assert_contains(text, "not measured");

	/* no link figure: only the break-even */
	c.net_bps = 0;
	attribution_recommend(&in, &c, 2.0, 1.27e9, text, sizeof(text));
	assert_string_equal(text, "compression pays below 10.16 Gbit/s for this data (ratio 2.00, zstd at 1,270 MB/s)");

	attribution_recommend(&in, &c, 2.0, 1.27e9, tiny, sizeof(tiny));
	assert_int_equal(strlen(tiny), sizeof(tiny) - 1);
}

/*
 * Many small files keep the disk busy with journal and inode writes that
 * their few bytes do not explain: that busy time is per-file work and must
 * read as metadata, not disk (seen on the testbed with scp: 20,000 files,
 * 80 MB, the destination disk 65% busy).
 */
static void test_busy_disk_with_small_files_is_metadata(void **state)
{
	struct ceilings c = testbed();
	struct attribution_input in = run(30, 80000000, 20000);
	struct attribution a;

	(void)state;
	c.disk_write_bps = 0.63e9;
	c.create_per_s = 1500;
	c.src_open_per_s = 4500;
	in.dest_disk_busy = 0.65;
	attribute(&in, &c, &a);
	assert_int_equal(a.verdict, RES_METADATA);
	assert_true(a.need_s[RES_DISK] < 1.0);
	assert_true(a.need_s[RES_METADATA] > 17.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shaped_link_is_network_bound),
		cmocka_unit_test(test_large_file_unshaped_is_disk_bound),
		cmocka_unit_test(test_scp_small_files_is_metadata_bound),
		cmocka_unit_test(test_creates_at_ceiling),
		cmocka_unit_test(test_zstd_19_is_cpu_bound),
		cmocka_unit_test(test_cipher_bound),
		cmocka_unit_test(test_source_read_bound),
		cmocka_unit_test(test_unknown_ceilings_do_not_divide_by_zero),
		cmocka_unit_test(test_wall_time),
		cmocka_unit_test(test_measured_busy_overrides_low_model),
		cmocka_unit_test(test_busy_disk_with_small_files_is_metadata),
		cmocka_unit_test(test_tmpfs_destination_has_no_disk),
		cmocka_unit_test(test_warm_source_reads_no_disk),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_thousands_separators),
		cmocka_unit_test(test_recommend),
	};

	return test_run("attribution", tests, ARRAY_LEN(tests), NULL, 0);
}
