/*
 * Unit tests for the client's probes (transfer/probe/probes.h): the local
 * ones on real workloads under /var/tmp, each for its budget of seconds
 * (slow_unit_test: tests/integration/unit_slow.t runs them), and the results'
 * JSON. The agent's
 * side (agent/agent_probes.h) is tests/unit/agent/test_agent_probes.c.
 * probe_network and probe_destination need a running agent with the probes
 * registered: not tested here.
 */
#define _GNU_SOURCE
#include "testutil.h"

#include "clock.h"
#include "err.h"
#include "fsutil.h"
#include "generate.h"
#include "manifest.h"
#include "probe/probes.h"
#include "sample/procstat.h"
#include "workload.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- shared workloads, made once, by the first test that needs them ---- */

/*
 * root/src: small/ (smallfiles, 3,000, compressibility 0.5) and large/
 * (largefile, 64 MiB, 0.5) under one manifest; root/rand: smallfiles 500
 * at compressibility 0.
 */
static struct {
	char root[64], src[96], rand[96];
	struct manifest m, mrand;
	int ready;
} w;

/* Generates spec into dir and appends its entries to m with prefix/ in front. */
static int generate_into(const struct workload_spec *spec, const char *dir, const char *prefix,
			 struct manifest *m)
{
	struct manifest part;
	struct generate_stats st;
	char path[PATH_MAX];

	manifest_init(&part);
	if (workload_generate(spec, dir, 4, false, &part, &st) < 0) {
		print_error("workload_generate: %s\n", err_msg());
		return -1;
	}
	for (size_t i = 0; i < part.count; i++) {
		const struct manifest_entry *e = &part.entries[i];

		if (prefix)
			snprintf(path, sizeof(path), "%s/%s", prefix, e->path);
		else
			snprintf(path, sizeof(path), "%s", e->path);
		if (manifest_add(m, path, e->size, e->mode, e->xxh3) < 0) {
			manifest_release(&part);
			return -1;
		}
	}
	manifest_release(&part);
	return 0;
}

/* Removes the workloads, if a test made them. */
static int workloads_remove(void)
{
	if (!w.root[0])
		return 0;
	manifest_release(&w.m);
	manifest_release(&w.mrand);
	return fs_remove_tree(w.root);
}

static int make_workloads(void)
{
	struct workload_spec small = { .kind = WORKLOAD_SMALLFILES, .files = 3000, .seed = 7,
				       .compressibility = 0.5 };
	struct workload_spec large = { .kind = WORKLOAD_LARGEFILE, .size = 64ull << 20, .seed = 7,
				       .compressibility = 0.5 };
	struct workload_spec rnd = { .kind = WORKLOAD_SMALLFILES, .files = 500, .seed = 9,
				     .compressibility = 0 };
	char dir[160];

	manifest_init(&w.m);
	manifest_init(&w.mrand);
	snprintf(w.root, sizeof(w.root), "/var/tmp/xfercmp-probes-XXXXXX");
	if (!mkdtemp(w.root)) {
		w.root[0] = '\0';
		return -1;
	}
	snprintf(w.src, sizeof(w.src), "%s/src", w.root);
	snprintf(w.rand, sizeof(w.rand), "%s/rand", w.root);
	snprintf(dir, sizeof(dir), "%s/small", w.src);
	if (generate_into(&small, dir, "small", &w.m) < 0)
		return -1;
	snprintf(dir, sizeof(dir), "%s/large", w.src);
	if (generate_into(&large, dir, "large", &w.m) < 0)
		return -1;
	manifest_sort(&w.m);
	if (generate_into(&rnd, w.rand, NULL, &w.mrand) < 0)
		return -1;
	manifest_sort(&w.mrand);
	return 0;
}

/* The workloads, made on the first call; main removes them after the last test. */
static void need_workloads(void)
{
	if (w.ready)
		return;
	if (make_workloads() < 0)
		fail_msg("cannot make the probes' workloads under /var/tmp");
	w.ready = 1;
}

/* Pages of path in the page cache. */
static size_t resident_pages(const char *path)
{
	struct stat st;
	size_t pages, n = 0;
	unsigned char *vec;
	void *map;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	pages = ((size_t)st.st_size + 4095) / 4096;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	assert_true(map != MAP_FAILED);
	vec = malloc(pages);
	assert_non_null(vec);
	assert_int_equal(mincore(map, (size_t)st.st_size, vec), 0);
	for (size_t i = 0; i < pages; i++)
		n += vec[i] & 1;
	free(vec);
	munmap(map, (size_t)st.st_size);
	close(fd);
	return n;
}

/* ---- source probes ---- */

static void test_source_rates_within_budget(void **state)
{
	struct probe_results r = { 0 };
	char large[PATH_MAX];
	clock_ns start;
	double wall;

	(void)state;
	need_workloads();
	start = clock_now();
	if (probe_source(w.src, &w.m, 0.5, &r) < 0)
		fail_msg("probe_source: %s", err_msg());
	wall = clock_seconds(start, clock_now());
	print_message("# disk_read_bps %.0f src_open_per_s %.0f (CPU %.1f µs an open) wall %.2f s\n",
		      r.disk_read_bps, r.src_open_per_s, r.src_open_cpu_s * 1e6, wall);
	assert_true(r.disk_read_bps > 10e6);
	assert_true(r.src_open_per_s > 100);
	/* each open's CPU measured, and no more than the open took */
	assert_true(r.src_open_cpu_s > 0 && r.src_open_cpu_s <= 1.0 / r.src_open_per_s);
	/*
	 * A bound against a probe that ignores its budget, not a speed target:
	 * the syncfs and page-cache drops around the timed reads are outside
	 * the budget, and this machine may be shared and slow.
	 */
	assert_true(wall < 20.0);
	/* only its own fields */
	assert_true(r.net_bps_1 == 0 && r.zstd_bps == 0 && r.disk_write_bps == 0);
	/* what it read is dropped again */
	snprintf(large, sizeof(large), "%s/large/large.bin", w.src);
	assert_int_equal(resident_pages(large), 0);
}

/* The opens at several depths: each depth its own cold share, the budget shared. */
static void test_source_opens_at_depths(void **state)
{
	struct probe_depths d = { 0 };
	struct probe_results r = { 0 };
	clock_ns start;
	double wall;

	(void)state;
	need_workloads();
	start = clock_now();
	probe_depths_add(&d, 16);
	probe_depths_add(&d, 64);
	assert_int_equal(d.n, 3);
	if (probe_source_at(w.rand, &w.mrand, 0.6, &d, NULL, &r) < 0)
		fail_msg("probe_source_at: %s", err_msg());
	wall = clock_seconds(start, clock_now());
	print_message("# opens at 1: %.0f/s, 16: %.0f/s, 64: %.0f/s, wall %.2f s\n", r.open_at[0].per_s,
		      r.open_at[1].per_s, r.open_at[2].per_s, wall);
	assert_int_equal(r.nopen_at, 3);
	assert_int_equal(r.open_at[0].depth, 1);
	assert_int_equal(r.open_at[1].depth, 16);
	assert_int_equal(r.open_at[2].depth, 64);
	for (unsigned i = 0; i < 3; i++)
		assert_true(r.open_at[i].per_s > 100);
	assert_true(r.src_open_per_s == r.open_at[0].per_s);
	assert_true(wall < 20.0);	/* a bound against ignoring the budget, not a speed */
}

/*
 * The cold read with 1 and 4 streams: each a rate, on its own cold half of
 * the bytes, left dropped. With the whole cap its own, the first depth read
 * all 64 MiB well within its half of the budget and left the second nothing.
 */
static void test_source_reads_at_depths(void **state)
{
	struct probe_depths d = { 0 };
	struct probe_results r = { 0 };
	char large[PATH_MAX];

	(void)state;
	need_workloads();
	probe_depths_add(&d, 4);
	if (probe_source_at(w.src, &w.m, 1.0, NULL, &d, &r) < 0)
		fail_msg("probe_source_at: %s", err_msg());
	print_message("# cold read 1 stream %.0f MB/s, 4 streams %.0f MB/s\n", r.read_at[0].per_s / 1e6,
		      r.nread_at > 1 ? r.read_at[1].per_s / 1e6 : 0);
	assert_int_equal(r.nread_at, 2);
	assert_int_equal(r.read_at[0].depth, 1);
	assert_true(r.disk_read_bps == r.read_at[0].per_s && r.disk_read_bps > 10e6);
	assert_int_equal(r.read_at[1].depth, 4);
	assert_true(r.read_at[1].per_s > 10e6);
	snprintf(large, sizeof(large), "%s/large/large.bin", w.src);
	assert_int_equal(resident_pages(large), 0);
}

/*
 * The cold reader reads what was asked, in whole 8 MiB pieces, on its own
 * thread, and leaves the file cold; asked for less than a piece, it reads
 * nothing and says so with no reader.
 */
static void test_cold_reader_reads_what_was_asked(void **state)
{
	struct probe_cold_reader *rd;
	uint64_t bytes = (20ull << 20), read = 0, end = 0;
	clock_ns start;
	char large[PATH_MAX];

	(void)state;
	need_workloads();
	start = clock_now();
	if (probe_cold_reader_start(w.src, &w.m, 2, &bytes, &rd) < 0)
		fail_msg("probe_cold_reader_start: %s", err_msg());
	assert_non_null(rd);
	assert_true(bytes == (16ull << 20));	/* whole pieces */
	if (probe_cold_reader_wait(rd, &end, &read) < 0)
		fail_msg("probe_cold_reader_wait: %s", err_msg());
	assert_true(read == bytes);
	assert_true(end > start);
	snprintf(large, sizeof(large), "%s/large/large.bin", w.src);
	assert_int_equal(resident_pages(large), 0);

	bytes = 4096;
	assert_int_equal(probe_cold_reader_start(w.src, &w.m, 1, &bytes, &rd), 0);
	assert_null(rd);
	assert_true(bytes == 0);
	/* no file of 8 MiB or more: nothing to read */
	bytes = 1ull << 30;
	assert_int_equal(probe_cold_reader_start(w.rand, &w.mrand, 1, &bytes, &rd), 0);
	assert_null(rd);
}

/*
 * One disk: the agent's boot id and root device against ours and the
 * source's. Another boot, another device or an agent that says neither
 * (older) is not one disk.
 */
static void test_one_disk_needs_boot_and_device(void **state)
{
	const char *src = "/var/tmp";	/* where the source's workloads live */
	char boot[40], dev[PROCSTAT_NAME_MAX];
	json_object *info = json_object_new_object();

	(void)state;
	procstat_boot_id(boot, sizeof(boot));
	assert_true(boot[0] != '\0');
	assert_false(probe_one_disk(src, info));
	assert_false(probe_one_disk(src, NULL));
	if (procstat_device_for_path(src, dev, sizeof(dev)) != 0) {
		/* /var/tmp on no block device (tmpfs): never one disk */
		json_object_object_add(info, "boot_id", json_object_new_string(boot));
		json_object_object_add(info, "root_device", json_object_new_string("vda"));
		assert_false(probe_one_disk(src, info));
		json_object_put(info);
		return;
	}
	json_object_object_add(info, "boot_id", json_object_new_string(boot));
	json_object_object_add(info, "root_device", json_object_new_string(dev));
	assert_true(probe_one_disk(src, info));
	json_object_object_add(info, "root_device", json_object_new_string("sdz9"));
	assert_false(probe_one_disk(src, info));
	json_object_object_add(info, "root_device", json_object_new_string(dev));
	json_object_object_add(info, "boot_id", json_object_new_string("00000000-0000-0000-0000-000000000000"));
	assert_false(probe_one_disk(src, info));
	json_object_object_add(info, "boot_id", NULL);
	assert_false(probe_one_disk(src, info));
	json_object_put(info);
}

static void test_depths_and_rates(void **state)
{
	struct probe_depths d = { 0 };
	const struct probe_rate rates[] = { { 1, 1000 }, { 16, 5000 }, { 64, 9000 } };

	(void)state;
	probe_depths_add(&d, 64);
	probe_depths_add(&d, 16);
	probe_depths_add(&d, 16);
	probe_depths_add(&d, 0);	/* clamped to 1, already there */
	probe_depths_add(&d, 100000);	/* clamped to PROBE_MAX_DEPTH */
	assert_int_equal(d.n, 4);
	assert_int_equal(d.depth[0], 1);
	assert_int_equal(d.depth[1], 16);
	assert_int_equal(d.depth[2], 64);
	assert_int_equal(d.depth[3], PROBE_MAX_DEPTH);
	/* full: a smaller depth is dropped, a larger one replaces the largest */
	probe_depths_add(&d, 32);
	assert_int_equal(d.n, 4);
	assert_int_equal(d.depth[3], PROBE_MAX_DEPTH);

	assert_true(probe_rate_at(rates, 3, 16) == 5000);
	assert_true(probe_rate_at(rates, 3, 32) == 5000);	/* the largest depth below */
	assert_true(probe_rate_at(rates, 3, 128) == 9000);
	assert_true(probe_rate_at(rates + 1, 2, 1) == 5000);	/* none below: the smallest */
	assert_true(probe_rate_at(rates, 0, 1) == 0);
	{
		/* a deeper probe that measured less does not lower the ceiling */
		const struct probe_rate noisy[] = { { 1, 1000 }, { 16, 5000 }, { 32, 3000 } };

		assert_true(probe_rate_at(noisy, 3, 32) == 5000);
		assert_true(probe_rate_at(noisy, 3, 1) == 1000);
	}
}

static void test_source_without_large_files(void **state)
{
	struct probe_results r = { 0 };

	(void)state;
	need_workloads();
	if (probe_source(w.rand, &w.mrand, 0.3, &r) < 0)
		fail_msg("probe_source: %s", err_msg());
	assert_true(r.disk_read_bps == 0);
	assert_true(r.src_open_per_s > 100);
}

static void test_source_missing_file_fails(void **state)
{
	struct probe_results r = { 0 };
	struct manifest m;

	(void)state;
	need_workloads();
	manifest_init(&m);
	assert_int_equal(manifest_add(&m, "no/such/file", 100, 0644, 0), 0);
	assert_int_equal(probe_source(w.src, &m, 0.3, &r), -1);
	assert_contains(err_msg(), "no/such/file");
	manifest_release(&m);
}

/* Refused for the budget alone: the one file named is never looked for. */
static void test_budget_out_of_range(void **state)
{
	struct probe_results r = { 0 };
	const double bad[] = { 0, -1, PROBE_MAX_SECONDS + 1 };
	struct manifest m;

	(void)state;
	manifest_init(&m);
	assert_int_equal(manifest_add(&m, "no/such/file", 100, 0644, 0), 0);
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		assert_int_equal(probe_source("/var/tmp", &m, bad[i], &r), -1);
		assert_contains(err_msg(), "budget");
		assert_int_equal(probe_zstd("/var/tmp", &m, 1, 0, bad[i], &r), -1);
		assert_contains(err_msg(), "budget");
	}
	manifest_release(&m);
}

static void count_steps(void *ctx, const struct probe_step *step)
{
	(void)step;
	(*(unsigned *)ctx)++;
}

/* The probes a plan runs, counted for the live view's "(i/n)"; none told when the budget is refused. */
static void test_plan_count(void **state)
{
	struct probe_plan plan = { .seconds = 1 };
	struct probe_results r;
	unsigned told = 0;

	(void)state;
	/* network, destination, source, zstd */
	assert_int_equal(probe_plan_count(&plan), 4);
	plan.one_disk = true;
	assert_int_equal(probe_plan_count(&plan), 5);
	/* a warm source is not probed, nor the disk under both ends */
	plan.warm_source = true;
	assert_int_equal(probe_plan_count(&plan), 3);
	plan.warm_source = false;
	plan.ssh_session = (struct ssh_session_struct *)&plan;
	assert_int_equal(probe_plan_count(&plan), 6);
	plan = (struct probe_plan){ .seconds = 0, .progress = count_steps, .progress_ctx = &told };
	assert_int_equal(probe_all_network(&plan, &r), -1);
	assert_contains(err_msg(), "budget");
	assert_int_equal(told, 0);
}

/* ---- zstd ---- */

static void test_zstd_compressible(void **state)
{
	struct probe_results r = { 0 };
	clock_ns start;
	double wall;

	(void)state;
	need_workloads();
	start = clock_now();
	if (probe_zstd(w.src, &w.m, 1, 0, 0.5, &r) < 0)
		fail_msg("probe_zstd: %s", err_msg());
	wall = clock_seconds(start, clock_now());
	print_message("# level 1: zstd_bps %.0f ratio %.3f wall %.2f s\n", r.zstd_bps, r.zstd_ratio,
		      wall);
	assert_true(r.zstd_bps > 10e6);
	assert_true(r.zstd_ratio > 1.2);
	/* one thread compressing: about a second of CPU a second of it */
	assert_true(r.zstd_cpu_per_byte > 0.5 / r.zstd_bps && r.zstd_cpu_per_byte < 2 / r.zstd_bps);
	assert_true(r.unzstd_bps > 10e6);
	assert_true(wall < 20.0);	/* a bound against ignoring the budget, not a speed target */
}

static void test_zstd_random(void **state)
{
	struct probe_results r = { 0 };

	(void)state;
	need_workloads();
	if (probe_zstd(w.rand, &w.mrand, 1, 0, 0.3, &r) < 0)
		fail_msg("probe_zstd: %s", err_msg());
	print_message("# random: ratio %.4f\n", r.zstd_ratio);
	assert_true(r.zstd_bps > 0);
	assert_true(r.zstd_ratio > 0.95 && r.zstd_ratio < 1.05);
}

static void test_zstd_threads_and_fast_level(void **state)
{
	struct probe_results r = { 0 };

	(void)state;
	need_workloads();
	if (probe_zstd(w.src, &w.m, -3, 2, 0.3, &r) < 0)
		fail_msg("probe_zstd: %s", err_msg());
	assert_true(r.zstd_bps > 0);
	assert_true(r.zstd_ratio > 1.0);
}

static void test_zstd_empty_workload(void **state)
{
	struct probe_results r = { 0 };
	struct manifest m;

	(void)state;
	manifest_init(&m);
	assert_int_equal(probe_zstd("/var/tmp", &m, 1, 0, 0.3, &r), 0);
	assert_true(r.zstd_bps == 0 && r.zstd_ratio == 0 && r.zstd_cpu_per_byte == 0 && r.unzstd_bps == 0);
}

static double get_num(json_object *o, const char *key)
{
	json_object *v;

	assert_true(json_object_object_get_ex(o, key, &v));
	return json_object_get_double(v);
}

/* ---- report ---- */

static void test_results_json(void **state)
{
	struct probe_results r = { .net_bps_1 = 1e9, .net_bps_n = 2e9, .net_streams = 4,
				   .rtt_p50_s = 5e-5, .rtt_p99_s = 2e-4, .rtt_cpu_s = 2.5e-5, .disk_write_bps = 3e8,
				   .disk_write_bytes = 1ull << 30, .create_per_s = 2e4, .disk_read_bps = 1.5e9,
				   .src_open_per_s = 1e4, .src_open_cpu_s = 3e-5, .create_cpu_s = 2.2e-5,
				   .zstd_bps = 6e8, .zstd_ratio = 2.5, .zstd_cpu_per_byte = 1.5 / 1073741824.0,
				   .unzstd_bps = 1.8e9, .ssh_bps = 4e8, .ssh_cpu_busy = 0.84, .sftp_rtt_s = 1.5e-4, .ssh_cipher = "aes128-gcm@openssh.com",
				   .dest_fs = "ext4", .net_peer = "[2001:2::2]:42277", .net_iface = "xfercmp0",
				   .ncreate_at = 2, .create_at = { { 1, 2e4 }, { 16, 3e4 } },
				   .ndisk_at_once = 1, .disk_at_once = { { 8, 1.4e9, 1.2e9, 1.1e9 } } };
	static const struct {
		const char *key;
		double value;
	} nums[] = {
		/* schema 2: the network in bits per second (the struct holds bytes) */
		{ "network_1_stream_bits_per_s", 8e9 },	{ "network_n_streams_bits_per_s", 16e9 },
		{ "network_streams", 4 },		{ "rtt_p50_seconds", 5e-5 },
		{ "rtt_p99_seconds", 2e-4 },		{ "disk_write_bytes_per_s", 3e8 },
		{ "create_files_per_s", 2e4 },		{ "disk_read_bytes_per_s", 1.5e9 },
		{ "source_open_files_per_s", 1e4 },	{ "zstd_bytes_per_s", 6e8 },
		{ "zstd_ratio", 2.5 },			{ "ssh_bytes_per_s", 4e8 },
		{ "sftp_rtt_seconds", 1.5e-4 },		{ "disk_write_bytes", 1073741824.0 },
		{ "rtt_cpu_seconds", 2.5e-5 },		{ "source_open_cpu_seconds", 3e-5 },
		{ "create_cpu_seconds", 2.2e-5 },	{ "ssh_cpu_busy", 0.84 },
		{ "zstd_cpu_seconds_per_gib", 1.5 },	{ "unzstd_bytes_per_s", 1.8e9 },
	};
	json_object *o = probe_results_json(&r), *v;

	(void)state;
	assert_non_null(o);
	for (size_t i = 0; i < ARRAY_LEN(nums); i++)
		assert_true(get_num(o, nums[i].key) == nums[i].value);
	assert_true(json_object_object_get_ex(o, "dest_fs", &v));
	assert_string_equal(json_object_get_string(v), "ext4");
	assert_true(json_object_object_get_ex(o, "ssh_cipher", &v));
	assert_string_equal(json_object_get_string(v), "aes128-gcm@openssh.com");
	/* the path measured: the agent's address, IPv6 in brackets, and the local interface */
	assert_true(json_object_object_get_ex(o, "network_peer", &v));
	assert_string_equal(json_object_get_string(v), "[2001:2::2]:42277");
	assert_true(json_object_object_get_ex(o, "network_interface", &v));
	assert_string_equal(json_object_get_string(v), "xfercmp0");
	assert_true(json_object_object_get_ex(o, "create_at", &v));
	assert_int_equal(json_object_array_length(v), 2);
	assert_true(get_num(json_object_array_get_idx(v, 1), "depth") == 16);
	assert_true(get_num(json_object_array_get_idx(v, 1), "files_per_s") == 3e4);
	assert_true(json_object_object_get_ex(o, "open_at", &v));
	assert_int_equal(json_object_array_length(v), 0);
	/* the one disk read and written at once: each rate, and the copy's each way */
	assert_true(json_object_object_get_ex(o, "disk_at_once", &v));
	assert_int_equal(json_object_array_length(v), 1);
	assert_true(get_num(json_object_array_get_idx(v, 0), "depth") == 8);
	assert_true(get_num(json_object_array_get_idx(v, 0), "read_bytes_per_s") == 1.4e9);
	assert_true(get_num(json_object_array_get_idx(v, 0), "write_bytes_per_s") == 1.2e9);
	assert_true(get_num(json_object_array_get_idx(v, 0), "copy_bytes_per_s") == 1.1e9);
	/* the pair of hosts (probe_hosts): not measured here, false or null */
	assert_true(json_object_object_get_ex(o, "one_disk", &v) && !json_object_get_boolean(v));
	assert_true(json_object_object_get_ex(o, "one_machine", &v) && !json_object_get_boolean(v));
	assert_true(json_object_object_get_ex(o, "dest_dirty_background_bytes", &v) && !v);
	assert_true(json_object_object_get_ex(o, "create_made_at", &v));
	assert_int_equal(json_object_array_length(v), 2);
	assert_int_equal(json_object_object_length(o), ARRAY_LEN(nums) + 15);
	json_object_put(o);
}

/* What no probe measured (--warm, a probe skipped or failed) is null, never 0 or "". */
static void test_results_json_unmeasured_null(void **state)
{
	struct probe_results r = { .disk_write_bps = 3e8, .dest_fs = "ext4" };
	static const char *const unmeasured[] = {
		"network_1_stream_bits_per_s", "network_n_streams_bits_per_s", "network_streams",
		"rtt_p50_seconds", "rtt_cpu_seconds", "source_open_cpu_seconds", "create_cpu_seconds", "disk_read_bytes_per_s", "zstd_bytes_per_s", "zstd_ratio",
		"zstd_cpu_seconds_per_gib", "unzstd_bytes_per_s",
		"ssh_bytes_per_s", "ssh_cpu_busy", "sftp_rtt_seconds", "ssh_cipher", "network_peer",
		"network_interface", "create_files_per_s", "disk_write_bytes",
	};
	json_object *o = probe_results_json(&r), *v;

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(unmeasured); i++) {
		assert_true(json_object_object_get_ex(o, unmeasured[i], &v));
		if (v)
			fail_msg("'%s' is %s, not null", unmeasured[i], json_object_get_string(v));
	}
	assert_true(get_num(o, "disk_write_bytes_per_s") == 3e8);
	json_object_put(o);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		slow_unit_test(test_source_rates_within_budget),
		slow_unit_test(test_source_opens_at_depths),
		slow_unit_test(test_source_reads_at_depths),
		slow_unit_test(test_cold_reader_reads_what_was_asked),
		cmocka_unit_test(test_one_disk_needs_boot_and_device),
		cmocka_unit_test(test_depths_and_rates),
		slow_unit_test(test_source_without_large_files),
		slow_unit_test(test_source_missing_file_fails),
		cmocka_unit_test(test_budget_out_of_range),
		cmocka_unit_test(test_plan_count),
		slow_unit_test(test_zstd_compressible),
		slow_unit_test(test_zstd_random),
		slow_unit_test(test_zstd_threads_and_fast_level),
		cmocka_unit_test(test_zstd_empty_workload),
		cmocka_unit_test(test_results_json),
		cmocka_unit_test(test_results_json_unmeasured_null),
	};

	int rc = test_run("probes", tests, ARRAY_LEN(tests), NULL, 0);

	if (workloads_remove() < 0)
		print_error("cannot remove '%s': %s\n", w.root, err_msg());
	return rc;
}
