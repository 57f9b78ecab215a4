/*
 * Unit tests for transfer/sample/sampler.c: the 10 Hz window on live /proc
 * files, its downsampling, its cost, and its summary's JSON both ways.
 */
#include "testutil.h"
#include "temp_dir_fixture.h"

#include "err.h"
#include "fsutil.h"
#include "sample/procstat.h"
#include "sample/sampler.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sends len bytes to ourselves over 127.0.0.1 (a reader thread drains them). */
struct drain {
	int fd;
	size_t got;
};

static void *drain_main(void *arg)
{
	struct drain *d = arg;
	char buf[65536];
	ssize_t n;

	while ((n = read(d->fd, buf, sizeof(buf))) > 0)
		d->got += (size_t)n;
	return NULL;
}

static void loopback_traffic(size_t len)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t salen = sizeof(sa);
	int lfd, cfd, afd;
	struct drain d = { 0 };
	pthread_t th;
	static char chunk[65536];

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(lfd >= 0);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(lfd, 1), 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&sa, &salen), 0);
	cfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_int_equal(connect(cfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	afd = accept(lfd, NULL, NULL);
	assert_true(afd >= 0);
	d.fd = afd;
	assert_int_equal(pthread_create(&th, NULL, drain_main, &d), 0);
	for (size_t sent = 0; sent < len; sent += sizeof(chunk))
		assert_int_equal(fs_write_all(cfd, chunk, sizeof(chunk)), 0);
	close(cfd);
	pthread_join(th, NULL);
	assert_true(d.got >= len);
	close(afd);
	close(lfd);
}

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Spins until the process has used seconds of CPU (the machine may be shared,
 * so wall time says little), giving up after 5 s of wall time.
 */
static void burn_cpu(double seconds)
{
	double end = cpu_s() + seconds, give_up = now_s() + 5;
	volatile uint64_t x = 1;

	while (cpu_s() < end && now_s() < give_up)
		for (int i = 0; i < 10000; i++)
			x = x * 6364136223846793005ull + 1;
}

static void test_sampler_live_window(void **state)
{
	char path[256], dev[PROCSTAT_NAME_MAX];
	const char *dir = make_temp_dir();
	static char block[1 << 20];
	struct sampler s;
	struct sampler_summary *sum = calloc(1, sizeof(*sum));
	struct sampler_config c = { .iface = "lo", .interval_ms = 10 };
	double t0, elapsed, total, cpu0, cpu_used;
	int fd, have_disk;

	(void)state;
	assert_non_null(sum);
	have_disk = procstat_device_for_path(dir, dev, sizeof(dev)) == 0;
	if (have_disk)
		c.disk_dev = dev;
	assert_int_equal(fs_join(path, sizeof(path), dir, "f"), 0);

	t0 = now_s();
	cpu0 = cpu_s();
	if (sampler_start(&s, &c) != 0) {
		print_error("sampler_start: %s\n", err_msg());
		fail();
	}
	burn_cpu(0.25);
	loopback_traffic(8u << 20);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	memset(block, 0x5a, sizeof(block));
	for (int i = 0; i < 8; i++)
		assert_int_equal(fs_write_all(fd, block, sizeof(block)), 0);
	assert_int_equal(fsync(fd), 0);
	close(fd);
	usleep(100000);
	assert_int_equal(sampler_stop(&s, sum), 0);
	elapsed = now_s() - t0;
	cpu_used = cpu_s() - cpu0;

	assert_true(sum->seconds > 0.3 && sum->seconds <= elapsed);
	assert_true(sum->samples >= 10);
	assert_true(sum->cpus >= 1);
	total = sum->cpu_user + sum->cpu_system + sum->cpu_iowait + sum->cpu_softirq +
		sum->cpu_steal + sum->cpu_idle;
	assert_true(fabs(total - 1) < 1e-9);
	assert_true(fabs(sum->cpu_busy - (1 - sum->cpu_idle - sum->cpu_iowait)) < 1e-9);
	/* what the process clock says, give or take the 10 ms tick at each end */
	assert_true(cpu_used >= 0.25);
	assert_true(fabs(sum->proc_cpu_s - cpu_used) < 0.05);
	assert_true(sum->proc_cores > 0 && sum->proc_cores <= sum->cpus);
	assert_true(sum->sampler_cpu_s > 0 && sum->sampler_cpu_s < sum->proc_cpu_s);

	assert_int_equal(sum->has_net, 1);
	assert_string_equal(sum->iface, "lo");
	/* on loopback every byte sent is also received */
	assert_true(sum->net_tx_bytes >= 8u << 20);
	assert_true(sum->net_rx_bytes >= 8u << 20);
	assert_true(sum->net_tx_packets > 0);
	assert_true(fabs(sum->net_bits_per_s - (double)sum->net_tx_bytes * 8 / sum->seconds) <
		    0.05 * sum->net_bits_per_s + 1e-9);

	assert_int_equal(sum->has_disk, have_disk);
	if (have_disk) {
		assert_string_equal(sum->disk_dev, dev);
		assert_true(sum->disk_write_bytes >= 8u << 20);
		assert_true(sum->disk_busy > 0 && sum->disk_busy <= 1);
		assert_true(fabs(sum->disk_write_bytes_per_s -
				 (double)sum->disk_write_bytes / sum->seconds) < 1);
	}

	assert_true(sum->npoints >= 1 && sum->npoints <= SAMPLER_SERIES_MAX);
	assert_true(sum->npoints <= sum->samples - 1);
	for (unsigned i = 0; i < sum->npoints; i++) {
		assert_true(sum->series[i].t > (i ? sum->series[i - 1].t : 0));
		assert_true(sum->series[i].cpu_busy >= 0 && sum->series[i].cpu_busy <= 1);
		assert_true(sum->series[i].disk_busy >= 0 && sum->series[i].disk_busy <= 1);
	}
	assert_true(fabs(sum->series[sum->npoints - 1].t - sum->seconds) < 1e-6);

	free(sum);
}

/* More ticks than points: the series is merged down to equal slices. */
static void test_sampler_downsamples(void **state)
{
	struct sampler s;
	struct sampler_summary *sum = calloc(1, sizeof(*sum));
	struct sampler_config c = { .interval_ms = 1 };
	unsigned near_mean = 0;
	double mean;

	(void)state;
	assert_non_null(sum);
	assert_int_equal(sampler_start(&s, &c), 0);
	usleep(900000);
	assert_int_equal(sampler_stop(&s, sum), 0);
	assert_true(sum->samples > SAMPLER_SERIES_MAX + 1);
	assert_true(sum->npoints > SAMPLER_SERIES_MAX / 2 - 1);
	assert_true(sum->npoints <= SAMPLER_SERIES_MAX);
	assert_int_equal(sum->has_disk, 0);
	assert_int_equal(sum->has_net, 0);
	/*
	 * Slices hold equal numbers of ticks; on a shared machine 1 ms ticks
	 * jitter, so ask only that nearly all slices span about the mean time
	 * and none a large part of the window (which broken merging would give).
	 */
	mean = sum->seconds / sum->npoints;
	for (unsigned i = 0; i + 1 < sum->npoints; i++) {
		double w = sum->series[i].t - (i ? sum->series[i - 1].t : 0);

		assert_true(w < sum->seconds / 8);
		if (w > mean * 0.3 && w < mean * 3)
			near_mean++;
	}
	assert_true(near_mean >= (sum->npoints - 1) * 9 / 10);
	free(sum);
}

static void test_sampler_bad_names(void **state)
{
	struct sampler s;
	struct sampler_config c = { .disk_dev = "nosuchdisk9" };
	struct sampler_config n = { .iface = "nosuchif9" };

	(void)state;
	assert_int_equal(sampler_start(&s, &c), -1);
	assert_contains(err_msg(), "'nosuchdisk9'");
	assert_int_equal(sampler_start(&s, &n), -1);
	assert_contains(err_msg(), "'nosuchif9'");
}

/* The cost of watching: at 10 Hz the thread must stay far under 1% of a core. */
static void test_sampler_cost(void **state)
{
	struct sampler s;
	struct sampler_summary *sum = calloc(1, sizeof(*sum));
	struct sampler_config c = { .iface = "lo", .interval_ms = 100 };
	char dev[PROCSTAT_NAME_MAX];

	(void)state;
	assert_non_null(sum);
	if (procstat_device_for_path("/", dev, sizeof(dev)) == 0)
		c.disk_dev = dev;
	assert_int_equal(sampler_start(&s, &c), 0);
	usleep(1500000);
	assert_int_equal(sampler_stop(&s, sum), 0);
	assert_true(sum->samples >= 12 && sum->samples <= 18);
	print_message("# sampler cost: %.6f s CPU over %.2f s at 10 Hz = %.3f%% of a core\n",
		      sum->sampler_cpu_s, sum->seconds, 100 * sum->sampler_cpu_s / sum->seconds);
	assert_true(sum->sampler_cpu_s / sum->seconds < 0.01);
	free(sum);
}

static void fill_summary(struct sampler_summary *s, int with_devices)
{
	memset(s, 0, sizeof(*s));
	s->seconds = 19.123456789012345;
	s->samples = 192;
	s->cpus = 2;
	s->cpu_user = 1.0 / 3;
	s->cpu_system = 0.1;
	s->cpu_iowait = 2.0 / 7;
	s->cpu_softirq = 1e-17;
	s->cpu_steal = 0.0078125;
	s->cpu_idle = 1 - s->cpu_user - s->cpu_system - s->cpu_iowait - s->cpu_softirq - s->cpu_steal;
	s->cpu_busy = 1 - s->cpu_idle - s->cpu_iowait;
	s->proc_cpu_s = 12.34;
	s->proc_cores = s->proc_cpu_s / s->seconds;
	s->sampler_cpu_s = 0.0123456789;
	if (with_devices) {
		s->has_disk = 1;
		strcpy(s->disk_dev, "nvme0n1p2");
		s->disk_read_bytes = UINT64_MAX;
		s->disk_write_bytes = 2147483648ull;
		s->disk_busy = 0.987654321;
		s->disk_read_bytes_per_s = 1800.5e6;
		s->disk_write_bytes_per_s = 380.25e6;
		s->has_net = 1;
		strcpy(s->iface, "xfercmp0");
		s->net_rx_bytes = 123;
		s->net_tx_bytes = (uint64_t)INT64_MAX + 7;
		s->net_rx_packets = 4;
		s->net_tx_packets = 5000000000ull;
		s->net_rx_bits_per_s = 1000.5;
		s->net_tx_bits_per_s = 987654321.0123;
		s->net_bits_per_s = s->net_tx_bits_per_s;
	}
	s->nprocs = 3;
	s->procs[0] = (struct sampler_proc){ "self", 1.25, 5 };
	s->procs[1] = (struct sampler_proc){ "sftp-server", 3.0712345, 1 };
	s->procs[2] = (struct sampler_proc){ "sshd", 0.01, 1 };
	s->procs_cpu_s = 4.3312345;
	snprintf(s->boot_id, sizeof(s->boot_id), "0b1c4c3e-3c55-4d6b-9c3c-4f0d6a3c2e11");
	s->npoints = with_devices ? SAMPLER_SERIES_MAX : 3;
	for (unsigned i = 0; i < s->npoints; i++)
		s->series[i] = (struct sampler_point){ (i + 1) * 0.0747, (double)i / 255 / 3,
						       1.0 / (i + 3), 117e6 / (i + 1) };
}

static void expect_same(const struct sampler_summary *a, const struct sampler_summary *b)
{
	assert_true(a->seconds == b->seconds);
	assert_int_equal(a->samples, b->samples);
	assert_int_equal(a->cpus, b->cpus);
	assert_true(a->cpu_user == b->cpu_user && a->cpu_system == b->cpu_system);
	assert_true(a->cpu_iowait == b->cpu_iowait && a->cpu_softirq == b->cpu_softirq);
	assert_true(a->cpu_steal == b->cpu_steal && a->cpu_idle == b->cpu_idle);
	assert_true(a->cpu_busy == b->cpu_busy);
	assert_true(a->proc_cpu_s == b->proc_cpu_s && a->proc_cores == b->proc_cores);
	assert_true(a->sampler_cpu_s == b->sampler_cpu_s);
	assert_int_equal(a->has_disk, b->has_disk);
	assert_string_equal(a->disk_dev, b->disk_dev);
	assert_true(a->disk_read_bytes == b->disk_read_bytes);
	assert_true(a->disk_write_bytes == b->disk_write_bytes);
	assert_true(a->disk_busy == b->disk_busy);
	assert_true(a->disk_read_bytes_per_s == b->disk_read_bytes_per_s);
	assert_true(a->disk_write_bytes_per_s == b->disk_write_bytes_per_s);
	assert_int_equal(a->has_net, b->has_net);
	assert_string_equal(a->iface, b->iface);
	assert_true(a->net_rx_bytes == b->net_rx_bytes && a->net_tx_bytes == b->net_tx_bytes);
	assert_true(a->net_rx_packets == b->net_rx_packets);
	assert_true(a->net_tx_packets == b->net_tx_packets);
	assert_true(a->net_rx_bits_per_s == b->net_rx_bits_per_s);
	assert_true(a->net_tx_bits_per_s == b->net_tx_bits_per_s);
	assert_true(a->net_bits_per_s == b->net_bits_per_s);
	assert_int_equal(a->npoints, b->npoints);
	assert_memory_equal(a->series, b->series, a->npoints * sizeof(a->series[0]));
	assert_int_equal(a->nprocs, b->nprocs);
	for (unsigned i = 0; i < a->nprocs; i++) {
		assert_string_equal(a->procs[i].name, b->procs[i].name);
		assert_true(a->procs[i].cpu_s == b->procs[i].cpu_s);
		assert_int_equal(a->procs[i].threads, b->procs[i].threads);
	}
	assert_true(a->procs_cpu_s == b->procs_cpu_s);
	assert_string_equal(a->boot_id, b->boot_id);
}

/* Through text, as the agent sends it: every field comes back bit for bit. */
static void round_trip(int with_devices)
{
	struct sampler_summary *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	json_object *o, *parsed;
	char *text;

	assert_non_null(a);
	assert_non_null(b);
	fill_summary(a, with_devices);
	o = sampler_summary_json(a);
	text = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	parsed = json_tokener_parse(text);
	assert_non_null(parsed);
	if (sampler_summary_from_json(parsed, b) != 0) {
		print_error("from_json: %s\n", err_msg());
		fail();
	}
	expect_same(a, b);
	json_object_put(parsed);
	free(text);
	free(a);
	free(b);
}

static void test_summary_json_round_trip(void **state)
{
	(void)state;
	round_trip(1);
	round_trip(0);
}

static void expect_rejected(const char *json, const char *needle)
{
	struct sampler_summary *out = calloc(1, sizeof(*out));
	json_object *o = json_tokener_parse(json);

	assert_non_null(out);
	assert_non_null(o);
	assert_int_equal(sampler_summary_from_json(o, out), -1);
	assert_contains(err_msg(), needle);
	json_object_put(o);
	free(out);
}

static void test_summary_json_rejects(void **state)
{
	struct sampler_summary *a = calloc(1, sizeof(*a));
	json_object *o, *disk, *series, *t;
	char *good;

	(void)state;
	assert_non_null(a);
	fill_summary(a, 1);
	o = sampler_summary_json(a);
	good = strdup(json_object_to_json_string(o));

	expect_rejected("[1, 2]", "not a JSON object");
	expect_rejected("{\"samples\": 3}", "'seconds'");

	/* a negative counter */
	json_object_object_get_ex(o, "disk", &disk);
	json_object_object_add(disk, "write_bytes", json_object_new_int64(-5));
	expect_rejected(json_object_to_json_string(o), "'write_bytes'");
	json_object_put(o);

	/* series columns of different lengths */
	o = json_tokener_parse(good);
	json_object_object_get_ex(o, "series", &series);
	json_object_object_get_ex(series, "t", &t);
	json_object_array_del_idx(t, 0, 1);
	expect_rejected(json_object_to_json_string(o), "series");
	json_object_put(o);

	/* a device name that would not fit */
	o = json_tokener_parse(good);
	json_object_object_get_ex(o, "disk", &disk);
	json_object_object_add(disk, "device",
			       json_object_new_string("a-device-name-much-longer-than-32-chars"));
	expect_rejected(json_object_to_json_string(o), "'device'");
	json_object_put(o);

	free(good);
	free(a);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_sampler_live_window, remove_temp_dir),
		slow_unit_test(test_sampler_downsamples),
		cmocka_unit_test(test_sampler_bad_names),
		slow_unit_test(test_sampler_cost),
		cmocka_unit_test(test_summary_json_round_trip),
		cmocka_unit_test(test_summary_json_rejects),
	};

	return test_run("sampler", tests, ARRAY_LEN(tests), NULL, 0);
}
