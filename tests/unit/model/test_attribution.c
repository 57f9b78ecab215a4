/*
 * Unit tests for transfer/model/attribution.c and attribution_text.c. The
 * cases are shaped like the testbed's known truths: a link shaped to 1 Gbit/s
 * is network-bound, a large file to durable disk is disk-bound, many small
 * files over a per-file protocol are metadata- or latency-bound, zstd at a
 * high level is cpu-bound; and the arithmetic of the prediction: a pipeline
 * takes its slowest stage, a serial strategy the sum, a misfit is flagged
 * and never scaled away, what-if moves only what the link changes.
 */
#include "testutil.h"

#include "model/attribution.h"
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
		.cpu_busy = -1,
		.cpu_stage_s = -1,
		.own_cpu_s = -1,
		.peer_cpu_s = -1,
	};
}

/* A serial run's request path: round trips, the host's and our CPU, the CPU stage. */
static struct attribution_input serial_path(double wall, uint64_t bytes, uint64_t files,
					    uint64_t round_trips, double peer_cpu, double own_cpu,
					    double cpu_stage)
{
	struct attribution_input in = run(wall, bytes, files);

	in.structure = ATTR_SERIAL;
	in.round_trips = round_trips;
	in.peer_cpu_s = peer_cpu;
	in.own_cpu_s = own_cpu;
	in.cpu_stage_s = cpu_stage;
	return in;
}

/*
 * Shares are in [0, 1] and sum to 1 (to at most 1 when the run beat its
 * prediction); needs are finite and not negative.
 */
static void expect_sane(const struct attribution *a)
{
	double sum = 0;

	for (int r = 0; r <= RES_COUNT; r++) {
		assert_true(a->share[r] >= 0 && a->share[r] <= 1);
		sum += a->share[r];
	}
	if (a->predicted_s > a->measured_s ? sum > 1 + 1e-9 : fabs(sum - 1) > 1e-9) {
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
	/* the 5.4 s of disk overlap the 18.4 s of network: off the critical path, not scaled in */
	assert_true(a.share[RES_DISK] == 0);
	assert_true(fabs(a.predicted_s - 2 * GIB / 117e6) < 1e-9);
	assert_true(fabs(a.share[RES_COUNT] - (19 - a.predicted_s) / 19) < 1e-9);
	assert_false(a.misfit);
	assert_string_equal(a.note, "");
	assert_contains(a.reason, "moved 113 MB/s over a link measured at 117 MB/s");
	assert_null(strstr(a.reason, "at that ceiling"));

	/* a link probed a little below what the run moved: the run ran at it */
	c.net_bps = 110e6;
	attribute(&in, &c, &a);
	assert_int_equal(a.verdict, RES_NETWORK);
	assert_contains(a.reason, "moved 113 MB/s over a link measured at 110 MB/s: at that ceiling "
				  "(a probe and a run agree within 10%)");
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

/*
 * The flush of a pipeline waits after its transfer: 120,000 small files
 * through splice on the testbed (2026-12-02), cpu-bound in its transfer
 * (both ends' processes 5.07 s over the cores), then a 1.23 s syncfs, 8.36 s
 * in all. The flush follows the CPU stage in series (6.30 s, cpu-bound, the
 * flush the destination disk's share); it does not follow a disk stage,
 * whose durable-write ceiling holds its flush already; nor a tmpfs
 * destination's (no disk waited on), nor a serial strategy's (its disk term
 * is in series already).
 */
static void test_pipeline_flush_follows_the_transfer(void **state)
{
	struct ceilings c = { .net_bps = 2.73e9, .rtt_s = 16e-6, .disk_write_bps = 2.27e9,
			      .create_per_s = 60000, .src_open_per_s = 60000 };
	struct attribution_input in = run(8.36, 489848331, 120000);
	struct attribution a;

	(void)state;
	in.transfer_s = 7.13;
	in.flush_s = 1.23;
	in.cpu_stage_s = 5.07;
	attribute(&in, &c, &a);
	assert_int_equal(a.bound, RES_CPU);
	assert_int_equal(a.verdict, RES_CPU);
	assert_true(fabs(a.predicted_s - (5.07 + 1.23)) < 1e-9);
	/* the needs stay each stage's own: the flush is not the CPU's */
	assert_true(fabs(a.need_s[RES_CPU] - 5.07) < 1e-9);
	assert_true(fabs(a.share[RES_CPU] - 5.07 / 8.36) < 1e-9);
	assert_true(fabs(a.share[RES_DISK] - 1.23 / 8.36) < 1e-9);
	assert_true(fabs(a.share[RES_COUNT] - (8.36 - 6.30) / 8.36) < 1e-9);

	/* a network-bound pipeline waits for its flush too */
	in.cpu_stage_s = 0.5;
	c.net_bps = 117e6;
	in.wall_s = 5.6;
	attribute(&in, &c, &a);
	assert_int_equal(a.bound, RES_NETWORK);
	assert_true(fabs(a.predicted_s - (489848331 / 117e6 + 1.23)) < 1e-9);

	/* the same on tmpfs: no disk to wait on, the flush is not explained */
	in.dest_is_tmpfs = 1;
	attribute(&in, &c, &a);
	assert_true(fabs(a.predicted_s - 489848331 / 117e6) < 1e-9);
	assert_true(a.share[RES_DISK] == 0);
	in.dest_is_tmpfs = 0;

	/* serial: the sum holds its disk term; the flush is not added again */
	in.structure = ATTR_SERIAL;
	attribute(&in, &c, &a);
	assert_true(fabs(a.predicted_s - (489848331 / 117e6 + 489848331 / 2.27e9 +
					  2 * 120000 / 60000.0)) < 1e-9);
	in.structure = ATTR_PIPELINE;

	/* disk-bound: the durable-write ceiling holds the flush already */
	c.net_bps = 2.73e9;
	c.disk_write_bps = 0.1e9;
	in.wall_s = 5.5;
	attribute(&in, &c, &a);
	assert_int_equal(a.bound, RES_DISK);
	assert_true(fabs(a.predicted_s - 489848331 / 0.1e9) < 1e-9);
}

/*
 * Source and destination on one device (the testbed): the run measured by
 * attribution_truth.t, 2 GiB through splice, the disk probed alone at
 * 1.44 GB/s cold read and 1.41 GB/s durable write, read and wrote 0.77 GB/s
 * each at once in 2.78 s. The reads and writes add (3.02 s, disk-bound);
 * two disks overlap them (1.53 s). The sum may exceed the wall time a
 * little without either ceiling being called understated, and still sets
 * the verdict; a term alone beyond the wall is understated.
 */
static void test_shared_disk_adds_reads_and_writes(void **state)
{
	struct ceilings c = { .net_bps = 4.1e9, .rtt_s = 22e-6, .disk_write_bps = 1.406e9,
			      .disk_read_bps = 1.441e9, .create_per_s = 910 };
	struct attribution_input in = run(2.78, 2 * GIB, 1);
	double read = 2.0 * GIB / 1.441e9, write = 2.0 * GIB / 1.406e9;
	struct attribution a;

	(void)state;
	in.cpu_stage_s = 0.715;
	in.dest_disk_busy = 0.90;
	attribute(&in, &c, &a);
	assert_true(fabs(a.need_s[RES_DISK] - write) < 1e-9);
	assert_true(a.predicted_s / a.measured_s < 0.6);	/* the old model's miss */

	in.shared_disk = 1;
	attribute(&in, &c, &a);
	assert_true(fabs(a.need_s[RES_DISK] - (read + write)) < 1e-9);
	assert_true(fabs(a.predicted_s - (read + write)) < 1e-6);
	assert_int_equal(a.verdict, RES_DISK);
	assert_int_equal(a.bound, RES_DISK);
	assert_false(a.misfit);
	assert_contains(a.reason, "read and wrote 772 MB/s each on one disk, measured alone at 1,441 MB/s cold and 1,406 MB/s durable");
	assert_contains(a.reason, "(disk 90% busy)");

	/* the sum 10-25% beyond the wall: the device overlapped some, no ceiling is wrong */
	in.wall_s = in.transfer_s = (read + write) / 1.2;
	attribute(&in, &c, &a);
	assert_int_equal(a.understated, 0);
	assert_int_equal(a.verdict, RES_DISK);
	assert_true(a.share[RES_DISK] <= 1);
	assert_string_equal(a.note, "");

	/* one term alone beyond the wall: that ceiling is understated and left out */
	in.wall_s = in.transfer_s = write / 1.5;
	attribute(&in, &c, &a);
	assert_int_equal(a.understated, 1u << RES_DISK);
	assert_true(a.verdict != RES_DISK);

	/* a warm source on the same device reads nothing: only the writes */
	in.wall_s = in.transfer_s = 2.78;
	in.src_is_warm = 1;
	attribute(&in, &c, &a);
	assert_true(fabs(a.need_s[RES_DISK] - write) < 1e-9);
	assert_contains(a.reason, "wrote ");
}

/*
 * One disk probed reading and writing at once (probe_disk_at_once): the
 * copy's rate each way stands for the two alone, unless the run beat it. Figures of splice on 4 GiB
 * on the testbed, 2026-12-05: read cold 2,062 MB/s alone, written durable
 * 3,163 MB/s alone (in turn 3.44 s), both at once 1,152 MB/s each way
 * (3.73 s); the run read and wrote 1,174 MB/s each, 3.66 s. Without the
 * probe at once, the two in turn as before.
 */
static void test_one_disk_probed_at_once_sets_the_copy(void **state)
{
	struct ceilings c = { .net_bps = 3.9e9, .rtt_s = 20e-6, .disk_write_bps = 3.163e9,
			      .disk_read_bps = 2.062e9, .disk_copy_bps = 1.152e9, .create_per_s = 2000 };
	struct attribution_input in = run(3.657, 4 * GIB, 1);
	double copy = 4.0 * GIB / 1.152e9, turn = 4.0 * GIB / 2.062e9 + 4.0 * GIB / 3.163e9;
	struct attribution a;

	(void)state;
	in.cpu_stage_s = 2.0;
	in.dest_disk_busy = 0.78;
	in.shared_disk = 1;
	attribute(&in, &c, &a);
	assert_true(fabs(a.need_s[RES_DISK] - copy) < 1e-9);
	assert_true(fabs(a.predicted_s - copy) < 1e-6);
	assert_int_equal(a.verdict, RES_DISK);
	assert_false(a.misfit);
	assert_contains(a.reason, "read and wrote 1,174 MB/s each on one disk, which read cold and wrote durable 1,152 MB/s each at once in its probe");
	assert_contains(a.reason, "(disk 78% busy)");

	/*
	 * A run faster than the rate at once allows (a fresh-clone CI run: 2 GiB
	 * through splice at 1,470 MB/s each way, the probe at once 1,190 MB/s):
	 * the two alone in turn stand, and the disk still sets the time.
	 */
	{
		struct ceilings ci = { .net_bps = 2.46e9, .rtt_s = 15e-6, .disk_write_bps = 3.087e9,
				       .disk_read_bps = 3.271e9, .disk_copy_bps = 1.19e9, .create_per_s = 1241 };
		struct attribution_input small = run(2.0 * GIB / 1.47e9, 2 * GIB, 1);
		double sum = 2.0 * GIB / 3.271e9 + 2.0 * GIB / 3.087e9;

		small.cpu_stage_s = 0.8;
		small.shared_disk = 1;
		attribute(&small, &ci, &a);
		assert_true(fabs(a.need_s[RES_DISK] - sum) < 1e-9);
		assert_int_equal(a.verdict, RES_DISK);
		assert_int_equal(a.understated, 0);
		assert_contains(a.reason, "measured alone at 3,271 MB/s cold and 3,087 MB/s durable");
	}

	/* two disks: the copy probe does not apply, the slower of the two alone does */
	in.shared_disk = 0;
	attribute(&in, &c, &a);
	assert_true(fabs(a.need_s[RES_DISK] - 4.0 * GIB / 2.062e9) < 1e-9);

	/* one disk, not probed at once: the two in turn */
	in.shared_disk = 1;
	c.disk_copy_bps = 0;
	attribute(&in, &c, &a);
	assert_true(fabs(a.need_s[RES_DISK] - turn) < 1e-9);
	assert_contains(a.reason, "measured alone at 2,062 MB/s cold and 3,163 MB/s durable");

	/* a warm source reads nothing: the writes alone, whatever the probe at once said */
	c.disk_copy_bps = 1.152e9;
	in.src_is_warm = 1;
	attribute(&in, &c, &a);
	assert_true(fabs(a.need_s[RES_DISK] - 4.0 * GIB / 3.163e9) < 1e-9);
}

static void test_scp_small_files_is_latency_bound(void **state)
{
	struct ceilings c = testbed();
	struct attribution_input in = run(12, 20000ull * 4096, 20000);
	struct attribution a;
	double net = (20000.0 * 4096 + 20000.0 * 64) / 2.5e9, disk = 20000.0 * 4096 / 0.38e9;

	(void)state;
	in.wire_bytes += 20000ull * 64;
	in.round_trips = 60000;
	in.structure = ATTR_SERIAL;
	c.request_rtt_s = 150e-6;
	attribute(&in, &c, &a);
	assert_int_equal(a.verdict, RES_LATENCY);
	assert_string_equal(attribution_verdict_name(a.verdict), "latency-bound");
	/* 60,000 x 150 us waited; in series, the 1 s of creates and 0.4 s of opens add */
	assert_true(fabs(a.need_s[RES_LATENCY] - 9.0) < 1e-9);
	assert_true(fabs(a.need_s[RES_METADATA] - 1.4) < 1e-9);
	assert_true(fabs(a.predicted_s - (9.0 + 1.4 + net + disk)) < 1e-9);
	assert_true(fabs(a.share[RES_LATENCY] - 9.0 / 12) < 1e-9);
	assert_true(fabs(a.share[RES_METADATA] - 1.4 / 12) < 1e-9);
	assert_true(fabs(a.share[RES_COUNT] - (12 - a.predicted_s) / 12) < 1e-9);
	assert_contains(a.reason, "60,000 requests × 150 µs waited: 9.0 s of 12.0 s");

	/* without a per-request figure the TCP round trip stands in */
	c.request_rtt_s = 0;
	attribute(&in, &c, &a);
	assert_true(fabs(a.need_s[RES_LATENCY] - 60000 * 80e-6) < 1e-9);
	assert_contains(a.reason, "80 µs waited");
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
	assert_contains(a.reason, "creates ran at 19,802/s, the destination's ceiling at this concurrency is 21,000/s");

	/* in a pipeline the source's opens overlap the creates: the slower end counts, not the sum */
	c.src_open_per_s = 25000;
	attribute(&in, &c, &a);
	assert_true(fabs(a.need_s[RES_METADATA] - 120000.0 / 21000) < 1e-9);
	c.src_open_per_s = 20000;
	attribute(&in, &c, &a);
	assert_true(fabs(a.need_s[RES_METADATA] - 6.0) < 1e-9);
	assert_contains(a.reason, "opens ran at 19,802/s, the source's cold ceiling at this concurrency is 20,000/s");

	/*
	 * A run a little faster than its probe (within the noise) ran at the
	 * ceiling: the line never sets a rate above a ceiling. The truth bench
	 * of 2026-12-05: "creates ran at 30,960/s, the destination's ceiling
	 * at this concurrency is 29,716/s".
	 */
	c.src_open_per_s = 0;
	c.create_per_s = 19000;
	attribute(&in, &c, &a);
	assert_int_equal(a.verdict, RES_METADATA);
	assert_contains(a.reason, "creates ran at 19,802/s, at the destination's ceiling at this concurrency "
				  "(probed at 19,000/s: a probe and a run agree within 10%)");
	assert_null(strstr(a.reason, "ceiling at this concurrency is"));
	c.src_open_per_s = 18500;
	attribute(&in, &c, &a);
	assert_contains(a.reason, "opens ran at 19,802/s, at the source's cold ceiling at this concurrency "
				  "(probed at 18,500/s");
}

/*
 * The contradiction the demo printed: "opens ran at 28,852/s, the source's
 * measured cold ceiling is 15,024/s". A stage that ran faster than its
 * ceiling allows is not the verdict and the reason does not name it; the
 * note says the ceiling is understated, and the prediction it inflates is a
 * misfit.
 */
static void test_reason_never_names_a_rate_above_its_ceiling(void **state)
{
	struct ceilings c = testbed();
	struct attribution_input in = run(0.693, 80000000, 20000);	/* 28,860 files/s */
	struct attribution a;

	(void)state;
	c.src_open_per_s = 15024;
	c.create_per_s = 60000;
	attribute(&in, &c, &a);
	/* 1.33 s from that ceiling, in 0.69 s: left out of the prediction, which the disk then sets */
	assert_true(a.understated == 1u << RES_METADATA);
	assert_true(a.need_s[RES_METADATA] == 0);
	assert_int_equal(a.bound, RES_DISK);
	assert_int_not_equal(a.verdict, RES_METADATA);
	assert_null(strstr(a.reason, "opens"));
	assert_null(strstr(a.reason, "15,024"));
	assert_int_equal(a.verdict, RES_DISK);		/* 80 MB at 380 MB/s: 0.21 s, which fits */
	assert_true(a.share[RES_METADATA] == 0);
	assert_contains(a.note, "metadata ran faster than its measured ceiling allows (1.3 s at the ceiling, 0.7 s in all)");
	assert_contains(a.note, "understated and left out");
	assert_true(a.misfit);
	assert_contains(a.note, "no measured ceiling explains");

	/* within measurement noise of its ceiling a stage is still the verdict */
	in = run(1.28, 80000000, 20000);	/* 1.33 s at the ceiling, 4% faster */
	attribute(&in, &c, &a);
	assert_int_equal(a.verdict, RES_METADATA);
	assert_contains(a.reason, "opens ran at 15,625/s");
	assert_false(a.misfit);
	assert_true(a.understated == 0);

	/* every stage above its ceiling: nothing is named */
	in = run(0.01, 80000000, 20000);
	attribute(&in, &c, &a);
	assert_int_equal(a.verdict, RES_COUNT);
	assert_contains(a.reason, "no measured ceiling explains");
}

/* A pipeline overlaps its stages (max); in series they add; latency waits add in both. */
static void test_pipeline_overlaps_serial_adds(void **state)
{
	struct ceilings c = { .net_bps = 100e6, .rtt_s = 1e-3, .disk_write_bps = 200e6,
			      .create_per_s = 1000, .src_open_per_s = 2000 };
	struct attribution_input in = run(10, 500000000, 2000);
	double need[RES_COUNT];
	enum resource bound;
	double t;

	(void)state;
	in.setup_round_trips = 3;
	/* network 5 s, disk 2.5 s, metadata max(2, 1) = 2 s, latency 3 ms */
	t = attribution_predict(&in, &c, 0, need, &bound);
	assert_true(fabs(need[RES_NETWORK] - 5) < 1e-9);
	assert_true(fabs(need[RES_DISK] - 2.5) < 1e-9);
	assert_true(fabs(need[RES_METADATA] - 2) < 1e-9);
	assert_true(fabs(need[RES_LATENCY] - 0.003) < 1e-12);
	assert_true(fabs(t - 5.003) < 1e-9);
	assert_int_equal(bound, RES_NETWORK);

	/* the same work, one file at a time: 5 + 2.5 + (2 + 1) + 0.003 */
	in.structure = ATTR_SERIAL;
	t = attribution_predict(&in, &c, 0, need, &bound);
	assert_true(fabs(need[RES_METADATA] - 3) < 1e-9);
	assert_true(fabs(t - 10.503) < 1e-9);
	assert_int_equal(bound, RES_NETWORK);

	/* in series a longer CPU stage sets the time instead (its work happens inside the waits) */
	in.cpu_stage_s = 12;
	t = attribution_predict(&in, &c, 0, need, &bound);
	assert_true(fabs(t - 12) < 1e-9);
	assert_int_equal(bound, RES_CPU);

	/* a pipeline whose waits exceed every stage is latency-bound */
	in.structure = ATTR_PIPELINE;
	in.cpu_stage_s = -1;
	in.round_trips = 10000;
	c.request_rtt_s = 1e-3;
	t = attribution_predict(&in, &c, 0, need, &bound);
	assert_true(fabs(t - (10.003 + 5)) < 1e-9);
	assert_int_equal(bound, RES_LATENCY);

	/* slow start: a bulk stream waits log2(window / 10 segments) round trips */
	in.round_trips = 0;
	in.setup_round_trips = 0;
	in.bulk_stream = true;
	c.window_bytes = 10 * 1448 * 256.0;
	attribution_predict(&in, &c, 0, need, &bound);
	assert_true(fabs(need[RES_LATENCY] - 8 * 1e-3) < 1e-12);
}

/*
 * scp on the testbed: the requests wait on sshd and sftp-server's work, which
 * a stat's round trip does not show (a write or a create costs more than a
 * stat); measured one request after another it is the request path, and
 * the reason names it.
 */
/*
 * What a serial path of 80 MB in 20,000 files waits beside its requests on
 * the testbed's ceilings: the link, the destination's writes (the larger of
 * the disk's terms, two devices), the cold opens.
 */
#define SERIAL_BESIDE (80e6 / 2.5e9 + 80e6 / 0.38e9 + 20000 / 50000.0)

static void test_serial_request_path(void **state)
{
	struct ceilings c = testbed();
	struct attribution_input in = run(22.9, 80000000, 20000);
	struct attribution a;

	(void)state;
	in.structure = ATTR_SERIAL;
	in.round_trips = 80000;
	c.request_rtt_s = 135e-6;
	c.rtt_s = 10e-6;
	/* without the processes' CPU: 10.8 s waited + 1.4 s of metadata + 0.21 s of disk + 0.03 s of network */
	attribute(&in, &c, &a);
	assert_true(fabs(a.predicted_s - (10.8 + 1.4 + 80e6 / 0.38e9 + 80e6 / 2.5e9)) < 1e-9);
	assert_true(a.misfit);

	in.peer_cpu_s = 11.0;	/* sshd 6.5 s + sftp-server 4.5 s */
	in.own_cpu_s = 9.0;
	snprintf(in.peer_busiest, sizeof(in.peer_busiest), "sshd 6.5 s");
	attribute(&in, &c, &a);
	/* the path, then what no process's CPU holds: the link, the disk, the cold opens */
	assert_true(fabs(a.predicted_s - (11.0 + 80000 * 10e-6 + 9.0 + SERIAL_BESIDE)) < 1e-9);
	/* all of the path a request's round trip: the host's work, ours, the wire */
	assert_true(fabs(a.need_s[RES_LATENCY] - 20.8) < 1e-9);
	assert_int_equal(a.verdict, RES_LATENCY);
	assert_true(fabs(a.share[RES_LATENCY] - 20.8 / 22.9) < 1e-9);
	assert_true(a.share[RES_CPU] == 0);
	/* the opens only: the creates are inside sftp-server's work */
	assert_true(fabs(a.share[RES_METADATA] - 20000 / 50000.0 / 22.9) < 1e-9);
	assert_true(fabs(a.share[RES_DISK] - 80e6 / 0.38e9 / 22.9) < 1e-9);
	assert_false(a.misfit);
	assert_contains(a.reason, "80,000 requests waited on the host's per-request work (11.0 s of CPU, most of it sshd 6.5 s), ours (9.0 s)");
	assert_contains(a.reason, "10 µs round trips: 20.8 s of 22.9 s");

	/* our part the larger: still the requests' round trips, latency-bound */
	in.peer_cpu_s = 5;
	in.own_cpu_s = 15;
	attribute(&in, &c, &a);
	assert_int_equal(a.verdict, RES_LATENCY);
	assert_true(fabs(a.predicted_s - (20.8 + SERIAL_BESIDE)) < 1e-9);
	in.peer_cpu_s = 11.0;
	in.own_cpu_s = 9.0;

	/*
	 * On a loaded machine the SFTP probe's round trip came out at 1 ms: 80 s
	 * of waits in 49.9 s. That ceiling is left out; the measured path stands
	 * (seen on the testbed: the run read cpu-bound from the machine's CPU alone).
	 */
	/* the CPU stage: both ends' 40 s over 2 cores */
	in = serial_path(49.9, 80000000, 20000, 80000, 25, 15, 20);
	c.request_rtt_s = 1e-3;
	attribute(&in, &c, &a);
	assert_true(a.understated & (1u << RES_LATENCY));
	assert_int_equal(a.verdict, RES_LATENCY);
	assert_true(fabs(a.predicted_s - (25 + 80000 * 10e-6 + 15 + SERIAL_BESIDE)) < 1e-9);
	assert_contains(a.reason, "waited on the host's per-request work (25.0 s of CPU");
	c.request_rtt_s = 135e-6;

	/*
	 * The path overshooting the wall is still the path: a fresh-clone CI
	 * run's 20,000 files through scp added up to 26.8 s in 23.5 s (the
	 * kernel's packet work in the round trips and in the processes' CPU
	 * alike) and read cpu-bound from the CPU stage (10.3 s) that fitted.
	 */
	/* the CPU stage: both ends' 20.6 s over 2 cores */
	in = serial_path(23.5, 80000000, 20000, 60000, 13.0, 9.0, 10.3);
	c.request_rtt_s = 77e-6;
	c.rtt_s = 78e-6;
	attribute(&in, &c, &a);
	assert_true(fabs(a.predicted_s - (13.0 + 60000 * 78e-6 + 9.0 + SERIAL_BESIDE)) < 1e-9);
	assert_int_equal(a.verdict, RES_LATENCY);
	/* over the wall: the shares are of the prediction, the path most of it */
	assert_true(fabs(a.share[RES_LATENCY] - 26.68 / (26.68 + SERIAL_BESIDE)) < 1e-9);
	assert_false(a.misfit);	/* 27.3 s for 23.5 s: within 25% */

	/*
	 * Small requests stay the path beyond a misfit: another fresh-clone CI
	 * run's 20,000 files through scp, 17.5 s of path in 13.9 s (26% over),
	 * read cpu-bound from the CPU stage (6.0 s) under the misfit bound.
	 */
	/* the CPU stage: both ends' 11.9 s over 2 cores */
	in = serial_path(13.9, 80000000, 20000, 60000, 8.0, 4.7, 6.0);
	c.request_rtt_s = 81e-6;
	c.rtt_s = 80e-6;
	attribute(&in, &c, &a);
	assert_true(fabs(a.predicted_s - (8.0 + 60000 * 80e-6 + 4.7 + SERIAL_BESIDE)) < 1e-9);
	assert_int_equal(a.verdict, RES_LATENCY);
	assert_true(a.misfit);	/* 17.5 s for 13.9 s: the note says so */
	c.request_rtt_s = 77e-6;
	c.rtt_s = 78e-6;

	/*
	 * A round trip's own CPU is in the processes' CPU already: 20,000 files
	 * through scp (80,023 requests; sshd and sftp-server 5.7 s, ours 4.9 s)
	 * in 12.4 s, at a 46 µs round trip of which the probe's two ends spent
	 * 39 µs in CPU: 11.2 s of path (0.90), where the whole round trip added
	 * made it 14.3 s (1.15; the runs before the probe measured that CPU
	 * read 1.11-1.21, 2026-12-05).
	 */
	in = serial_path(12.4, 80000000, 20000, 80023, 5.7, 4.9, 5.3);
	c.rtt_s = 46e-6;
	c.request_rtt_s = 47e-6;
	c.rtt_cpu_s = 39e-6;
	attribute(&in, &c, &a);
	assert_true(fabs(a.predicted_s - (5.7 + 4.9 + 80023 * 7e-6 + SERIAL_BESIDE)) < 1e-9);
	assert_int_equal(a.verdict, RES_LATENCY);
	assert_false(a.misfit);
	assert_contains(a.reason, "and 46 µs round trips (7 µs of each beyond their CPU): 11.2 s of 12.4 s");
	/* unknown (an older agent): the whole round trip, as before */
	c.rtt_cpu_s = 0;
	attribute(&in, &c, &a);
	assert_true(fabs(a.predicted_s - (5.7 + 4.9 + 80023 * 46e-6 + SERIAL_BESIDE)) < 1e-9);
	assert_contains(a.reason, "and 46 µs round trips: 14.3 s of 12.4 s");
	/* a probe whose CPU came out above its round trip waits nothing beyond it */
	c.rtt_cpu_s = 60e-6;
	attribute(&in, &c, &a);
	assert_true(fabs(a.predicted_s - (5.7 + 4.9 + SERIAL_BESIDE)) < 1e-9);
	/*
	 * What our threads waited for a core is on the path too: 120,000 files
	 * through scp (2026-12-05, 480,126 requests in 69.2 s), our thread that
	 * made the requests waited 5.5 s runnable; without it 0.80.
	 */
	in.own_run_delay_s = 1.5;
	attribute(&in, &c, &a);
	assert_true(fabs(a.predicted_s - (5.7 + 4.9 + 1.5 + SERIAL_BESIDE)) < 1e-9);
	assert_contains(a.reason, "ours (4.9 s and 1.5 s waiting for a core)");
	in.own_run_delay_s = -1;	/* unknown: none */
	attribute(&in, &c, &a);
	assert_true(fabs(a.predicted_s - (5.7 + 4.9 + SERIAL_BESIDE)) < 1e-9);
	c.rtt_cpu_s = 0;
	c.request_rtt_s = 77e-6;
	c.rtt_s = 78e-6;

	/*
	 * The creates are the host's per-request work, not a wait beside it: in
	 * a fresh-clone CI run the create probe read 1,552/s (its syncfs
	 * flushing others' writes) and 20,000 files went through scp in 15.9 s,
	 * sshd and sftp-server 8.69 s of CPU, ours 5.22 s, a 15 µs round trip
	 * all CPU. Creates and request round trips added came to 20.8 s (1.31,
	 * metadata-bound: the test failed on it); the path, the opens, the link
	 * and the disk 15.5 s.
	 */
	in = serial_path(15.9, 80000000, 20000, 80000, 8.69, 5.22, 7.0);
	c.create_per_s = 1552;
	c.src_open_per_s = 14815;
	c.request_rtt_s = 79e-6;
	c.rtt_s = 15.2e-6;
	c.rtt_cpu_s = 15.9e-6;
	attribute(&in, &c, &a);
	assert_true(fabs(a.predicted_s - (8.69 + 5.22 + 80e6 / 2.5e9 + 80e6 / 0.38e9 + 20000 / 14815.0)) < 1e-9);
	assert_true(a.predicted_s / 15.9 > 0.85 && a.predicted_s / 15.9 < 1.15);
	assert_int_equal(a.verdict, RES_LATENCY);
	assert_true(fabs(a.need_s[RES_METADATA] - 20000 / 14815.0) < 1e-9);
	c = testbed();
	c.request_rtt_s = 77e-6;
	c.rtt_s = 78e-6;

	/*
	 * Beyond a misfit the parts ran side by side: no serial path. One 4 GiB
	 * file through scp in the bench (6 requests; sshd and sftp-server 18.9 s,
	 * ours 11.7 s in 21.2 s) read "latency-bound: 6 requests waited".
	 */
	in = serial_path(21.2, 4ull << 30, 1, 6, 18.9, 11.7, 15.3);
	attribute(&in, &c, &a);
	assert_int_not_equal(a.verdict, RES_LATENCY);
	/* nor does it set the prediction: the CPU stage does (15.3 s, not the path's 30.6 s) */
	assert_int_not_equal(a.bound, RES_LATENCY);
	assert_true(fabs(a.predicted_s - 15.3) < 1e-9);
	assert_true(a.misfit);
	c.request_rtt_s = 135e-6;
	c.rtt_s = 10e-6;

	/* a pipeline overlaps its processes: the path does not apply */
	in.cpu_stage_s = -1;
	in.structure = ATTR_PIPELINE;
	attribute(&in, &c, &a);
	assert_true(a.predicted_s < 12);
}

/*
 * The probed opens (rate one at a time, CPU each) and creates of a small-file
 * truth run on the testbed, its disk writing 2 GB/s, both ends' processes
 * on one machine needing cpu_stage seconds.
 */
static void small_files_on_one_machine(struct ceilings *c, struct attribution_input *in, double open_per_s,
				       double open_cpu_s, double create_per_s, double cpu_stage)
{
	c->src_open_per_s = open_per_s;
	c->src_open_cpu_s = open_cpu_s;
	c->create_per_s = create_per_s;
	c->disk_write_bps = 2e9;
	in->cpu_stage_s = cpu_stage;
	snprintf(in->cpu_stage, sizeof(in->cpu_stage), "both ends' processes on this machine");
}

/*
 * A sender that opens one file at a time waits each cold open in turn with
 * its own work. The truth bench's tar-ssh on 120,000 files (2026-12-04):
 * 12.34 s, the sender's thread 4.64 s of CPU, the opens 7.13 s at the probed
 * 16,837/s; predicted 7.25 s (0.59) with the opens overlapping the CPU.
 */
static void test_sender_one_at_a_time(void **state)
{
	struct ceilings c = testbed();
	struct attribution_input in = run(12.34, 491520000, 120000);
	struct attribution a;
	double open = 120000 / 16837.0, wait = open - 120000 * 20e-6;

	(void)state;
	small_files_on_one_machine(&c, &in, 16837, 20e-6, 21170, 6.25);
	c.net_bps = 450e6;
	in.sender_thread_cpu_s = -1;
	attribute(&in, &c, &a);
	assert_true(fabs(a.predicted_s - open) < 1e-9);	/* the opens alone, overlapped */

	in.sender_thread_cpu_s = 4.64;
	attribute(&in, &c, &a);
	assert_true(fabs(a.predicted_s - (4.64 + wait)) < 1e-9);
	assert_true(a.predicted_s / 12.34 > 0.75);
	assert_int_equal(a.verdict, RES_METADATA);	/* the waits the larger part */
	assert_contains(a.reason, "our sender opens one file at a time: 120,000 cold opens waited 4.7 s beyond their CPU, in turn with its thread's 4.6 s of work: 9.4 s of 12.3 s");

	/* what its thread waited for a core is its work's too (the truth bench's tar-ssh, 2026-12-05) */
	in.sender_run_delay_s = 1.2;
	attribute(&in, &c, &a);
	assert_true(fabs(a.predicted_s - (4.64 + 1.2 + wait)) < 1e-9);
	assert_int_equal(a.verdict, RES_CPU);	/* 5.84 s of work, 4.73 s of waits */
	assert_contains(a.reason, "in turn with its thread's 4.6 s of work and 1.2 s waiting for a core: 10.6 s of 12.3 s");
	in.sender_run_delay_s = 0;

	/* its work the larger part: a CPU stage, named as the sender's */
	in.sender_thread_cpu_s = 6.0;
	attribute(&in, &c, &a);
	assert_int_equal(a.verdict, RES_CPU);
	assert_true(fabs(a.need_s[RES_CPU] - (6.0 + wait)) < 1e-9);

	/* a warm source has no opens to wait: the thread's CPU alone */
	in.src_is_warm = 1;
	attribute(&in, &c, &a);
	assert_true(fabs(a.need_s[RES_CPU] - 6.25) < 1e-9);	/* the CPU stage, larger */
	assert_contains(a.reason, "both ends' processes");
	in.src_is_warm = 0;

	/* longer than the run: its opens overlapped after all, left out */
	in.wall_s = in.transfer_s = 8.0;
	in.sender_thread_cpu_s = 4.64;
	attribute(&in, &c, &a);
	assert_true(fabs(a.predicted_s - open) < 1e-9);
}

/*
 * The open probe's thread spent more CPU an open than our sender does: of
 * its opens only the wait beyond their CPU is the source's. zstd on 120,000
 * files in the truth bench of 2026-12-05: 9.96 s; the probe 10,451/s one at a
 * time with 51.1 µs of CPU an open; the sender's thread 4.15 s of CPU and
 * 0.79 s waiting for a core. The opens at the probed rate (11.48 s) were
 * longer than the run and left out as understated, the sender's stage losing
 * its waits: predicted 5.89 s (0.59). With the waits: 10.29 s.
 */
static void test_sender_cheaper_than_the_probe(void **state)
{
	struct ceilings c = testbed();
	struct attribution_input in = run(9.96, 491520000, 120000);
	struct attribution a;
	double wait = 120000 / 10451.0 - 120000 * 51.1e-6;

	(void)state;
	small_files_on_one_machine(&c, &in, 10451, 51.1e-6, 29716, 4.93);
	c.net_bps = 3e9;
	in.sender_thread_cpu_s = 4.15;
	in.sender_run_delay_s = 0.79;
	attribute(&in, &c, &a);
	assert_null(strstr(a.note, "understated"));
	assert_int_equal(a.verdict, RES_METADATA);	/* 5.35 s of waits, 4.94 s of work */
	assert_true(fabs(a.predicted_s - (4.15 + 0.79 + wait)) < 1e-9);
	assert_true(a.predicted_s / 9.96 < 1.05);
	assert_contains(a.reason, "our sender opens one file at a time: 120,000 cold opens waited 5.4 s beyond their CPU");

	/* without the sender's thread measured, the opens at the probe's rate stand, and fail the run */
	in.sender_thread_cpu_s = -1;
	in.sender_run_delay_s = -1;
	attribute(&in, &c, &a);
	assert_contains(a.note, "metadata ran faster than its measured ceiling allows (11.5 s at the ceiling");
}

/*
 * The sender's own stage measured in the run (its time less what it waited
 * for the next stage to take its bytes) stands for the opens at the probed
 * rate: they waited longer beside the rest of the run than the probe, alone
 * on the disk, saw. tar-ssh on the testbed at 1 Gbit/s and 2 ms (20,000
 * files, 2026-12-05): 2.06 s, 0.12 s of it the flush; the sender's own
 * stage 1.67 s, its thread 0.6 s of CPU and 0.2 s waiting for a core, the
 * opens probed at 18,564/s with 25 µs of CPU each.
 */
static void test_sender_stage_measured_in_the_run(void **state)
{
	struct ceilings c = testbed();
	struct attribution_input in = run(2.06, 20000ull * 4096, 20000);
	struct attribution a;
	double probed = 0.6 + 0.2 + (20000 / 18564.0 - 20000 * 25e-6);

	(void)state;
	small_files_on_one_machine(&c, &in, 18564, 25e-6, 61943, 1.29);
	c.net_bps = 120e6;
	in.transfer_s = 1.94;
	in.flush_s = 0.12;
	in.sender_thread_cpu_s = 0.6;
	in.sender_run_delay_s = 0.2;
	/* not measured: the probed opens, and the flush after the sender's stage */
	attribute(&in, &c, &a);
	assert_int_equal(a.verdict, RES_CPU);	/* 0.8 s of work, 0.58 s of waits */
	assert_true(fabs(a.predicted_s - (probed + 0.12)) < 1e-9);
	/* opens probed slower, their waits the larger part: the flush still follows the stage */
	c.src_open_per_s = 12000;
	attribute(&in, &c, &a);
	assert_int_equal(a.verdict, RES_METADATA);
	assert_true(fabs(a.predicted_s - (0.8 + (20000 / 12000.0 - 20000 * 25e-6) + 0.12)) < 1e-9);
	c.src_open_per_s = 18564;

	in.sender_own_s = 1.67;
	attribute(&in, &c, &a);
	assert_int_equal(a.verdict, RES_METADATA);	/* 0.87 s of waits, 0.8 s of work */
	assert_true(fabs(a.need_s[RES_METADATA] - 1.67) < 1e-9);
	/* the source's opens end with the transfer: the flush follows them, as it follows the CPU */
	assert_true(fabs(a.predicted_s - (1.67 + 0.12)) < 1e-9);
	assert_true(a.share[RES_DISK] > 0);	/* the flush tail, the destination disk's */
	assert_contains(a.reason, "in the run its 20,000 cold opens and reads waited 0.9 s beyond their CPU (0.6 s at the rate probed with the disk alone), in turn with its thread's 0.6 s of work and 0.2 s waiting for a core: 1.7 s of 2.1 s");

	/* no less than the thread's own work, whatever the clock said */
	in.sender_own_s = 0.5;
	attribute(&in, &c, &a);
	assert_true(fabs(a.need_s[RES_CPU] - 0.8) < 1e-9 || a.need_s[RES_CPU] > 0.8);
	assert_true(a.need_s[RES_METADATA] < 0.8);
}

/* 5,000 files by scp at a 2 ms round trip: latency-bound, its share at least 0.6. */
static void test_latency_share(void **state)
{
	struct ceilings c = testbed();
	struct attribution_input in = run(42, 5000ull * 4096, 5000);
	struct attribution a;

	(void)state;
	in.structure = ATTR_SERIAL;
	in.round_trips = 20000;
	in.setup_round_trips = 3;
	c.rtt_s = 2e-3;
	c.request_rtt_s = 2.1e-3;
	attribute(&in, &c, &a);
	assert_int_equal(a.verdict, RES_LATENCY);
	assert_true(fabs(a.need_s[RES_LATENCY] - (20000 * 2.1e-3 + 3 * 2e-3)) < 1e-9);
	assert_true(a.share[RES_LATENCY] >= 0.6);
	assert_contains(a.reason, "20,000 requests × 2.10 ms waited: 42.0 s of 42.0 s");
	assert_false(a.misfit);
}

/* More than 25% apart is said, with the time no ceiling explains; the shares are not scaled to fit. */
static void test_misfit_is_flagged_not_scaled(void **state)
{
	struct ceilings c = { .net_bps = 100e6 };
	struct attribution_input in = run(5, 200000000, 1);	/* 2 s predicted */
	struct attribution a;

	(void)state;
	attribute(&in, &c, &a);
	assert_true(fabs(a.predicted_s - 2) < 1e-9);
	assert_true(a.misfit);
	assert_true(fabs(a.share[RES_NETWORK] - 0.4) < 1e-9);
	assert_true(fabs(a.share[RES_COUNT] - 0.6) < 1e-9);
	assert_contains(a.note, "predicted 2.00 s, measured 5.00 s: 3.00 s (60%) no measured ceiling explains");
	assert_null(strstr(a.note, "not ours"));
	/* slower than predicted is never said as "beat its ceilings" (by a negative time) */
	assert_null(strstr(a.note, "beat its ceilings"));
	/* on a shared machine the CPU others took is said beside it */
	in.foreign_cpu_s = 4.2;
	attribute(&in, &c, &a);
	assert_contains(a.note, "(processes not ours used 4.2 s of this machine's CPU meanwhile)");

	/* 2 s predicted of 2.6 s measured is within 25% */
	in = run(2.6, 200000000, 1);
	attribute(&in, &c, &a);
	assert_false(a.misfit);
	assert_string_equal(a.note, "");
	/* ... and of 2.7 s it is not */
	in = run(2.7, 200000000, 1);
	attribute(&in, &c, &a);
	assert_true(a.misfit);

	/* faster than predicted: the shares are of the prediction, nothing is "other" */
	in = run(1.5, 200000000, 1);
	c.net_bps = 100e6 / 1.05;	/* within the noise allowed for one ceiling, not for the whole */
	in.wire_bytes = 150000000;
	attribute(&in, &c, &a);
	assert_true(a.share[RES_COUNT] == 0);
	/* under a ceiling's own time, that ceiling is left out: no "beat its ceilings" by it */
	in = run(1.0, 200000000, 1);
	attribute(&in, &c, &a);
	assert_null(strstr(a.note, "beat its ceilings"));
}

/* A stage measured in CPU seconds on either end (sftp-server, tar, our threads). */
static void test_measured_cpu_stage(void **state)
{
	struct ceilings c = testbed();
	struct attribution_input in = run(7.3, 80000000, 20000);
	struct attribution a;

	(void)state;
	in.cpu_stage_s = 6.1;
	snprintf(in.cpu_stage, sizeof(in.cpu_stage), "sshd on the host");
	in.cpu_busy = 0.97;
	attribute(&in, &c, &a);
	assert_int_equal(a.verdict, RES_CPU);
	assert_true(fabs(a.need_s[RES_CPU] - 6.1) < 1e-9);
	assert_contains(a.reason, "sshd on the host needed 6.1 s of the 7.3 s on the CPU");
	assert_contains(a.reason, "machine CPU 97% busy");

	/* the busy fractions are quoted, never a need: a busy disk alone predicts nothing */
	in = run(10, 500000000, 1);
	c.disk_write_bps = 2e9;
	c.disk_read_bps = 0;
	in.dest_disk_busy = 0.9;
	attribute(&in, &c, &a);
	assert_true(fabs(a.need_s[RES_DISK] - 0.25) < 1e-9);
	assert_contains(a.reason, "destination disk 90% busy");
	assert_true(a.misfit);
}

/*
 * The CPU stage set the time and most of it was the destination's creates:
 * the verdict is metadata, said as CPU. From a run of explain.t's metadata
 * case (2026-12-05): 20,000 files through splice in 0.72 s, both ends'
 * processes 1.0 s of CPU on 2 cores, the create probe at 28,657/s; the
 * null sink saved 58%, the model said cpu-bound.
 */
static void test_creates_on_cpu(void **state)
{
	struct ceilings c = testbed();
	struct attribution_input in = run(0.72, 20000ull * 4096, 20000);
	struct attribution a;

	(void)state;
	c.create_per_s = 60000;		/* at the receiver's depth: 0.33 s, below the CPU's */
	c.disk_write_bps = 2e9;
	in.cpu_stage_s = 0.5;
	in.cpu_stage_over = 2;
	snprintf(in.cpu_stage, sizeof(in.cpu_stage), "both ends' processes on this machine (1.0 s of CPU over 2)");
	in.cpu_stage_creates_s = 20000 * 30e-6 / 2;	/* 30 µs of the agent's CPU a create */
	attribute(&in, &c, &a);
	assert_int_equal(a.verdict, RES_METADATA);
	assert_int_equal(a.bound, RES_METADATA);
	assert_true(fabs(a.creates_on_cpu_s - 0.3) < 1e-9);
	assert_true(fabs(a.predicted_s - 0.5) < 0.05);	/* the CPU stage still sets the time */
	assert_true(fabs(a.share[RES_METADATA] - 0.3 / 0.72) < 1e-9);
	assert_true(fabs(a.share[RES_CPU] - 0.2 / 0.72) < 1e-9);
	assert_false(a.fitted);
	assert_contains(a.reason, "the destination's creates ran on the CPU: 20,000 creates, writes and "
				  "closes took 0.3 s of the 0.5 s that both ends' processes on this machine");

	/*
	 * The run beat the create ceiling (understated, left out): the probe's CPU
	 * a create is its crawl's, not the run's. Seen in make demo: "metadata
	 * ran faster than its measured ceiling allows (2.1 s at the ceiling,
	 * 0.9 s in all)" beside "the destination's creates ran on the CPU".
	 */
	c.create_per_s = 20000 / (0.72 * 1.2);
	attribute(&in, &c, &a);
	assert_true(a.understated & (1u << RES_METADATA));
	assert_int_equal(a.verdict, RES_CPU);
	assert_true(a.creates_on_cpu_s == 0);
	c.create_per_s = 60000;

	/* half of the stage or less: the CPU's, as before */
	in.cpu_stage_creates_s = 0.25;
	attribute(&in, &c, &a);
	assert_int_equal(a.verdict, RES_CPU);
	assert_true(a.creates_on_cpu_s == 0);
	assert_true(a.share[RES_METADATA] == 0);

	/*
	 * Half or less, but the creates' time at their ceiling is within the noise
	 * of the CPU stage and a create is mostly CPU: the same seconds. The
	 * fresh-clone CI run: 20,000 files in 6.49 s, 12.1 s of CPU over 2,
	 * creates probed at 3,254/s (the test takes 300 us of CPU each: the run's
	 * own figure was not printed).
	 */
	in = run(6.49, 20000ull * 4096, 20000);
	in.cpu_stage_s = 6.05;
	in.cpu_stage_over = 2;
	snprintf(in.cpu_stage, sizeof(in.cpu_stage), "both ends' processes on this machine (12.1 s of CPU over 2)");
	in.cpu_stage_creates_s = 20000 * 300e-6 / 2;
	in.creates_are_cpu = true;
	c.create_per_s = 3500;		/* 5.71 s: within 10% of 6.05 */
	attribute(&in, &c, &a);
	assert_int_equal(a.verdict, RES_METADATA);
	assert_true(fabs(a.creates_on_cpu_s - 3.0) < 1e-9);
	/* the creates waited on the disk in their probe: the CPU's */
	in.creates_are_cpu = false;
	attribute(&in, &c, &a);
	assert_int_equal(a.verdict, RES_CPU);
	/* their time at the ceiling further from the CPU's: the CPU's */
	in.creates_are_cpu = true;
	c.create_per_s = 4000;		/* 5.0 s */
	attribute(&in, &c, &a);
	assert_int_equal(a.verdict, RES_CPU);

	/* not measured: the CPU's */
	in.cpu_stage_creates_s = 0;
	attribute(&in, &c, &a);
	assert_int_equal(a.verdict, RES_CPU);

	/* a serial strategy's request path is its own verdict */
	in = serial_path(0.72, 20000ull * 4096, 20000, 60000, 0.3, 0.2, 0.5);
	in.cpu_stage_creates_s = 0.45;
	attribute(&in, &c, &a);
	assert_true(a.creates_on_cpu_s == 0);
}

/* What-if keeps what the link does not change and moves what it does. */
static void test_what_if(void **state)
{
	struct ceilings c = { .net_bps = 2.5e9, .rtt_s = 20e-6, .request_rtt_s = 135e-6,
			      .create_per_s = 20000, .window_bytes = 2 * 1048576.0 };
	struct attribution_input in = run(20, 80000000, 20000);
	struct what_if w = { .rate_bits_per_s = 1e9, .rtt_s = 20e-3 };
	struct ceilings there;
	double need[RES_COUNT], t;

	(void)state;
	in.structure = ATTR_SERIAL;
	in.round_trips = 80000;
	attribution_what_if_ceilings(&in, &c, &w, &there);
	/* 2 MiB a round trip of 20 ms is 105 MB/s, below the 125 MB/s of 1 Gbit/s */
	assert_true(fabs(there.net_bps - 2 * 1048576.0 / 20e-3) < 1e-6);
	/* sshd and sftp-server's 115 us a request stay */
	assert_true(fabs(there.request_rtt_s - (20e-3 + 115e-6)) < 1e-12);
	assert_true(fabs(there.rtt_s - 20e-3) < 1e-12);
	t = attribution_what_if(&in, &c, 0, &w);
	attribution_predict(&in, &there, 0, need, NULL);
	assert_true(fabs(need[RES_LATENCY] - 80000 * (20e-3 + 115e-6)) < 1e-9);
	assert_true(fabs(t - (80000 * (20e-3 + 115e-6) + 80000000 / there.net_bps + 1)) < 1e-9);

	/* a rate alone: a faster link than measured is no faster than the measured path */
	w = (struct what_if){ .rate_bits_per_s = 100e9 };
	c.window_bytes = 0;
	attribution_what_if_ceilings(&in, &c, &w, &there);
	assert_true(there.net_bps == 2.5e9);
	assert_true(there.request_rtt_s == 135e-6);
	w.rate_bits_per_s = 8e6;	/* 1 MB/s */
	attribution_what_if_ceilings(&in, &c, &w, &there);
	assert_true(fabs(there.net_bps - 1e6) < 1e-9);

	/* several streams have a window each */
	in.streams = 4;
	c.window_bytes = 1e6;
	w = (struct what_if){ .rtt_s = 10e-3 };
	attribution_what_if_ceilings(&in, &c, &w, &there);
	assert_true(fabs(there.net_bps - 4e8) < 1e-6);
	/* a protocol with no request figure keeps none */
	c.request_rtt_s = 0;
	attribution_what_if_ceilings(&in, &c, &w, &there);
	assert_true(there.request_rtt_s == 0);
}

/*
 * What-if on the two structures, with the figures of attribution_what_if.t's
 * unshaped runs. scp (serial, the request path measured): 20,008 requests,
 * the host's processes 2.63 s of CPU, ours 0.92 s; on 1 Gbit/s + 2 ms each
 * request waits the new round trip beside the same work: 20,008 x 2 ms +
 * 2.63 + 0.92 = 43.57 s (measured there: 53.95 s). tar-ssh (a pipeline) on
 * 512 MiB through a 336 MB/s SSH channel, on one disk: 1 Gbit/s sets it,
 * the disk's sum (reads and writes) stays as measured and overlaps.
 */
static void test_what_if_request_path_and_pipeline(void **state)
{
	struct ceilings c = { .net_bps = 336e6, .rtt_s = 9.762e-6, .request_rtt_s = 88.267e-6,
			      .window_bytes = 2 * 1048576.0, .disk_write_bps = 1.406e9,
			      .disk_read_bps = 1.475e9, .create_per_s = 20000, .src_open_per_s = 50000 };
	struct attribution_input in = run(5.06, 20016000, 5000);
	struct what_if w = { .rate_bits_per_s = 1e9, .rtt_s = 2e-3 };
	double need[RES_COUNT], t;
	enum resource bound;
	struct ceilings there;

	(void)state;
	in.structure = ATTR_SERIAL;
	in.round_trips = 20008;
	in.peer_cpu_s = 2.63;
	in.own_cpu_s = 0.92;
	t = attribution_what_if(&in, &c, 0, &w);
	/* beside the path: 20 MB over 1 Gbit/s, the larger disk term, 5,000 cold opens */
	assert_true(fabs(t - (20008 * 2e-3 + 2.63 + 0.92 + 20016000 / 125e6 + 20016000 / 1.406e9 +
			      5000 / 50000.0)) < 1e-9);
	attribution_what_if_ceilings(&in, &c, &w, &there);
	attribution_predict(&in, &there, 0, need, &bound);
	assert_int_equal(bound, RES_LATENCY);
	/* the ceilings' own view is below the path: a stat's round trip is lighter than a write's */
	assert_true(20008 * there.request_rtt_s < t);

	/* the pipeline: 1 Gbit/s is below the channel's 336 MB/s and the 2 MiB window per 2 ms */
	in = run(2.9, 536870912, 1);
	in.wire_bytes = 537000000;
	in.shared_disk = 1;
	in.bulk_stream = true;
	in.setup_round_trips = 3;
	attribution_what_if_ceilings(&in, &c, &w, &there);
	assert_true(fabs(there.net_bps - 125e6) < 1e-6);
	t = attribution_predict(&in, &there, 0, need, &bound);
	assert_int_equal(bound, RES_NETWORK);
	assert_true(fabs(need[RES_DISK] - (536870912 / 1.406e9 + 536870912 / 1.475e9)) < 1e-9);
	/* slow start to the 2 MiB window: ceil(log2(2 MiB / 10 segments)) = 8 round trips, + 3 handshakes */
	assert_true(fabs(need[RES_LATENCY] - 11 * 2e-3) < 1e-12);
	/*
	 * the handshakes first; then the slow start races the link's 4.3 s. Its
	 * 8 round trips (16 ms) carry no more than the link could meanwhile (2 MB
	 * of the 3.7 MB its windows would), so the race is the link's own time,
	 * and the slow start's round trips are not added to it
	 */
	assert_true(fabs(t - (3 * 2e-3 + 537000000 / 125e6)) < 1e-9);
	/* 20 ms: 8 round trips carry their 255 windows of 10 segments, the rest follows at the rate */
	there.rtt_s = 20e-3;
	t = attribution_predict(&in, &there, 0, need, &bound);
	assert_true(fabs(t - (3 * 20e-3 + 8 * 20e-3 + (537000000 - 255 * 10 * 1448.0) / 125e6)) < 1e-9);
}

/*
 * On a long link the slow start races the pipeline's slowest stage instead
 * of preceding it: data flows in its round trips while the stages behind it
 * work. The figures of parallel on 20,000 files at 1 Gbit/s and 20 ms
 * (eighth truth pass, 2026-12-05): 82 MB over 8 streams, 4 handshakes and
 * 8 round trips of slow start (0.24 s), a CPU stage of 1.29 s, a 0.24 s
 * flush; measured 1.52 s. With every round trip added the prediction read
 * 1.77 s (1.17).
 */
static void test_the_slow_start_races_the_slowest_stage(void **state)
{
	struct ceilings c = testbed();
	struct attribution_input in = run(1.52, 81920000, 20000);
	double need[RES_COUNT], t;
	enum resource bound;

	(void)state;
	c.net_bps = 119e6;
	c.rtt_s = 20e-3;
	c.window_bytes = 6.0 * 1024 * 1024;
	c.create_per_s = 1e6;
	c.src_open_per_s = 1e6;
	in.transfer_s = 1.28;
	in.flush_s = 0.24;
	in.structure = ATTR_PIPELINE;
	in.bulk_stream = true;
	in.streams = 8;
	in.setup_round_trips = 4;
	in.cpu_stage_s = 1.29;
	t = attribution_predict(&in, &c, 0, need, &bound);
	/* 10.24 MB a stream: ceil(log2(6 MiB / 10 segments)) = 9 round trips of slow start */
	assert_true(fabs(need[RES_LATENCY] - 13 * 20e-3) < 1e-12);
	assert_int_equal(bound, RES_CPU);
	assert_true(fabs(t - (4 * 20e-3 + 1.29 + 0.24)) < 1e-9);

	/* 2,000 files (8.2 MB): the slow start is the longer, its round trips most of it */
	in = run(0.35, 8192000, 2000);
	in.flush_s = 0.04;
	in.structure = ATTR_PIPELINE;
	in.bulk_stream = true;
	in.streams = 1;
	in.setup_round_trips = 4;
	in.cpu_stage_s = 0.07;
	t = attribution_predict(&in, &c, 0, need, &bound);
	assert_int_equal(bound, RES_LATENCY);
	/* 9 round trips carry 511 windows of 10 segments (7.4 MB), the rest follows at the rate */
	assert_true(fabs(t - (4 * 20e-3 + 9 * 20e-3 + (8192000 - 511 * 14480.0) / 119e6 + 0.04)) < 1e-9);
}

static void test_parse_what_if(void **state)
{
	struct what_if w;
	char label[96];

	(void)state;
	assert_int_equal(attribution_parse_what_if("rate=1gbit,rtt=20ms", &w), 0);
	assert_true(w.rate_bits_per_s == 1e9 && fabs(w.rtt_s - 0.02) < 1e-15);
	assert_string_equal(attribution_what_if_label(&w, label, sizeof(label)), "on a 1 Gbit/s, 20 ms link");
	assert_int_equal(attribution_parse_what_if("rtt=500us", &w), 0);
	assert_true(w.rate_bits_per_s == 0 && fabs(w.rtt_s - 500e-6) < 1e-15);
	assert_string_equal(attribution_what_if_label(&w, label, sizeof(label)),
			    "on the measured link with a 0.5 ms round trip");
	assert_int_equal(attribution_parse_what_if("rate=2.5Gbit/s", &w), 0);
	assert_true(w.rate_bits_per_s == 2.5e9 && w.rtt_s == 0);
	assert_string_equal(attribution_what_if_label(&w, label, sizeof(label)), "on a 2.5 Gbit/s link");
	assert_int_equal(attribution_parse_what_if("rate=100mbit,rtt=0.2s", &w), 0);
	assert_true(w.rate_bits_per_s == 100e6 && fabs(w.rtt_s - 0.2) < 1e-15);

	assert_int_equal(attribution_parse_what_if("rate=1gb", &w), -1);
	assert_contains(err_msg(), "rate '1gb'");
	assert_int_equal(attribution_parse_what_if("rtt=-3ms", &w), -1);
	assert_contains(err_msg(), "rtt '-3ms'");
	assert_int_equal(attribution_parse_what_if("rtt=20", &w), -1);
	assert_int_equal(attribution_parse_what_if("delay=2ms", &w), -1);
	assert_contains(err_msg(), "unknown key 'delay'");
	assert_int_equal(attribution_parse_what_if("1gbit", &w), -1);
	assert_contains(err_msg(), "key=value");
	assert_int_equal(attribution_parse_what_if("", &w), -1);
	assert_int_equal(attribution_parse_what_if(",", &w), -1);
	assert_int_equal(attribution_parse_what_if("rate=0gbit", &w), -1);
}

static void test_format_seconds(void **state)
{
	char t[32];

	(void)state;
	assert_string_equal(attribution_format_seconds(0.414, t, sizeof(t)), "0.41 s");
	assert_string_equal(attribution_format_seconds(12.34, t, sizeof(t)), "12.3 s");
	assert_string_equal(attribution_format_seconds(80, t, sizeof(t)), "1 min 20 s");
	assert_string_equal(attribution_format_seconds(3 * 3600 + 12 * 60 + 5, t, sizeof(t)), "3 h 12 min");
	assert_string_equal(attribution_format_seconds(NAN, t, sizeof(t)), "?");
}

/*
 * A zstd probe understated (a fresh-clone CI run: 1.0 MB/s at level 19, 48 MiB
 * compressed in about 13 s): the probe's rate is left out, and the CPU stage
 * measured in the run itself still sets the time. Before, the whole CPU need
 * went with the probe's and the run read disk-bound, predicted at 0.0026.
 */
static void test_understated_zstd_probe_keeps_the_measured_stage(void **state)
{
	struct ceilings c = testbed();
	struct attribution_input in = run(13, 50331648, 1);
	struct attribution a;

	(void)state;
	in.wire_bytes = 25000000;
	c.cpu_bps = 1e6;	/* 50 s for 48 MiB: more than the run took */
	in.cpu_stage_s = 12.6;	/* zstd's thread, measured in /proc */
	snprintf(in.cpu_stage, sizeof(in.cpu_stage), "zstd");
	attribute(&in, &c, &a);
	assert_int_equal(a.verdict, RES_CPU);
	assert_true(fabs(a.need_s[RES_CPU] - 12.6) < 1e-9);
	assert_true(a.predicted_s > 0.75 * 13 && a.predicted_s < 1.25 * 13);
	assert_contains(a.note, "cpu ran faster than its measured ceiling allows");
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
	assert_true(fabs(a.predicted_s - 2 * GIB / 0.38e9) < 1e-9);
	assert_true(fabs(a.share[RES_DISK] + a.share[RES_COUNT] - 1) < 1e-9);
	assert_contains(a.reason, "wrote 358 MB/s");

	in.transfer_s = in.flush_s = 0;
	assert_int_equal(attribution_compute(&in, &c, &a), -1);
	assert_contains(err_msg(), "cannot attribute");
	in.wall_s = NAN;
	assert_int_equal(attribution_compute(&in, &c, &a), -1);
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
	c.disk_read_bps = 0.3e9;	/* read cold, the source would take 7.2 s */
	in.src_disk_busy = 0.9;		/* on one machine: the destination's writes */
	in.src_is_warm = 1;
	attribute(&in, &c, &a);
	assert_true(fabs(a.need_s[RES_DISK] - 2 * GIB / 0.38e9) < 1e-9);
	assert_true(fabs(a.need_s[RES_METADATA] - 10000 / 20000.0) < 1e-9);
	assert_contains(a.reason, "wrote");
	assert_null(strstr(a.reason, "source disk"));

	in.src_is_warm = 0;		/* the same run, cold: the source's side counts */
	attribute(&in, &c, &a);
	assert_true(fabs(a.need_s[RES_DISK] - 2 * GIB / 0.3e9) < 1e-9);
	assert_contains(a.reason, "source disk");
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(attribution_resource_name(RES_NETWORK), "network");
	assert_string_equal(attribution_resource_name(RES_LATENCY), "latency");
	assert_string_equal(attribution_verdict_name(RES_LATENCY), "latency-bound");
	assert_string_equal(attribution_resource_name(RES_DISK), "disk");
	assert_string_equal(attribution_resource_name(RES_METADATA), "metadata");
	assert_string_equal(attribution_resource_name(RES_CPU), "cpu");
	assert_string_equal(attribution_resource_name(RES_COUNT), "other");
	assert_string_equal(attribution_verdict_name(RES_NETWORK), "network-bound");
	assert_string_equal(attribution_verdict_name(RES_METADATA), "metadata-bound");
}

static void test_thousands_separators(void **state)
{
	struct ceilings c = { .create_per_s = 2345678 };
	struct attribution_input in = run(1, 0, 2000000);
	struct attribution a;

	(void)state;
	attribute(&in, &c, &a);
	assert_contains(a.reason, "creates ran at 2,000,000/s, the destination's ceiling at this concurrency is 2,345,678/s");
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shaped_link_is_network_bound),
		cmocka_unit_test(test_large_file_unshaped_is_disk_bound),
		cmocka_unit_test(test_shared_disk_adds_reads_and_writes),
		cmocka_unit_test(test_one_disk_probed_at_once_sets_the_copy),
		cmocka_unit_test(test_pipeline_flush_follows_the_transfer),
		cmocka_unit_test(test_scp_small_files_is_latency_bound),
		cmocka_unit_test(test_reason_never_names_a_rate_above_its_ceiling),
		cmocka_unit_test(test_pipeline_overlaps_serial_adds),
		cmocka_unit_test(test_latency_share),
		cmocka_unit_test(test_serial_request_path),
		cmocka_unit_test(test_sender_one_at_a_time),
		cmocka_unit_test(test_sender_cheaper_than_the_probe),
		cmocka_unit_test(test_sender_stage_measured_in_the_run),
		cmocka_unit_test(test_misfit_is_flagged_not_scaled),
		cmocka_unit_test(test_measured_cpu_stage),
		cmocka_unit_test(test_creates_on_cpu),
		cmocka_unit_test(test_what_if),
		cmocka_unit_test(test_what_if_request_path_and_pipeline),
		cmocka_unit_test(test_the_slow_start_races_the_slowest_stage),
		cmocka_unit_test(test_parse_what_if),
		cmocka_unit_test(test_format_seconds),
		cmocka_unit_test(test_creates_at_ceiling),
		cmocka_unit_test(test_zstd_19_is_cpu_bound),
		cmocka_unit_test(test_understated_zstd_probe_keeps_the_measured_stage),
		cmocka_unit_test(test_cipher_bound),
		cmocka_unit_test(test_source_read_bound),
		cmocka_unit_test(test_unknown_ceilings_do_not_divide_by_zero),
		cmocka_unit_test(test_wall_time),
		cmocka_unit_test(test_tmpfs_destination_has_no_disk),
		cmocka_unit_test(test_warm_source_reads_no_disk),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_thousands_separators),
		cmocka_unit_test(test_recommend),
	};

	return test_run("attribution", tests, ARRAY_LEN(tests), NULL, 0);
}
