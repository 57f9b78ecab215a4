/*
 * The client's probes that need the agent (see probes.h): the network, like
 * iperf3 (memory-to-memory throughput) and qperf tcp_lat (1-byte round
 * trips), into the agent's "discard" and "echo" receivers (recv_probe.c);
 * and the calls to the agent's own disk and metadata probes
 * (agent_probes.c). Also the probes' part of the JSON report.
 */
#define _GNU_SOURCE
#include "probe/probes.h"

#include "client/agent_client.h"
#include "client/raw_stream.h"
#include "clock.h"
#include "err.h"
#include "sample/procstat.h"
#include "stream/sock_size.h"
#include "units.h"

#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define NET_BUF (1u << 20)
/*
 * One send: small enough that a step's warm-up mark and end fall within a
 * few percent of each stream's share (64 streams of a 1 Gbit/s link move
 * 2 MB/s each), large enough to cost nothing on the CPU.
 */
#define NET_SEND (128u << 10)
#define NET_MAX_STREAMS PROBE_NET_MAX_STREAMS
/* Round trips of slow start a sweep step leaves out before it counts (at most half the step). */
#define NET_WARM_RTTS 10
/* Round trips before the timed ones: the first carry connection set-up costs. */
#define RTT_WARMUP 10
/* A send or an echo that takes longer than this past the budget means the peer is stuck. */
#define NET_STALL_MS 10000

struct sender {
	pthread_t tid;
	int fd;
	const unsigned char *buf;
	clock_ns deadline, warm_at;
	uint64_t cap, sent;
	/* the steady part: bytes sent by the first send past warm_at, and when; the last send's end */
	uint64_t sent_warm;
	clock_ns t_warm, t_last;
	int rc;
	struct err_saved error;
};

static void *sender_main(void *arg)
{
	struct sender *s = arg;

	while (s->sent < s->cap && clock_now() < s->deadline) {
		size_t n = s->cap - s->sent < NET_SEND ? (size_t)(s->cap - s->sent) : NET_SEND;
		ssize_t w = send(s->fd, s->buf, n, MSG_NOSIGNAL);
		clock_ns now;

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			s->rc = err_errno("cannot send on a probe stream");
			err_save(&s->error);
			break;
		}
		s->sent += (uint64_t)w;
		now = clock_now();
		if (!s->t_warm && now >= s->warm_at) {
			s->t_warm = now;
			s->sent_warm = s->sent;
		}
		s->t_last = now;
	}
	return NULL;
}

static void set_send_timeout(int fd, double seconds)
{
	double t = seconds + NET_STALL_MS / 1000.0;
	struct timeval tv = { .tv_sec = (time_t)t, .tv_usec = (suseconds_t)((t - floor(t)) * 1e6) };

	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* The probe's destination on the agent: the job its data connections belong to. */
struct probe_job {
	struct agent_client *agent;
	uint64_t job;
};

/*
 * The steady rate of a step: each stream's bytes from its warm-up mark to its
 * last send over that time, summed; 0 when a stream has no steady part
 * (then the whole step's average stands).
 */
static double steady_bps(const struct sender *snd, unsigned n)
{
	double sum = 0;

	for (unsigned i = 0; i < n; i++) {
		if (!snd[i].t_warm || snd[i].t_last <= snd[i].t_warm)
			return 0;
		sum += (double)(snd[i].sent - snd[i].sent_warm) / clock_seconds(snd[i].t_warm, snd[i].t_last);
	}
	return sum;
}

/*
 * One sweep step on n streams (one thread each when n > 1) for `seconds`,
 * counting after `warm` seconds. *bps = the steady rate (steady_bps), or,
 * without one, bytes the agent received / (first send .. its reply).
 * *sndbuf (may be NULL): SO_SNDBUF of the first stream at the end. bdp > 0:
 * the streams' buffers sized for it as a single raw strategy's are
 * (strategy_open_one_stream), at both ends.
 */
static int throughput(const struct probe_job *pj, unsigned n, double seconds, double warm,
		      const unsigned char *buf, double bdp, double *bps, double *sndbuf, double *open_s)
{
	struct sender snd[NET_MAX_STREAMS];
	int fds[NET_MAX_STREAMS], send_rc = 0;
	unsigned started = 0;
	uint64_t sent = 0;
	struct recv_stats received;
	clock_ns start, deadline;
	double took, steady;

	start = clock_now();
	if (raw_stream_open_sized(pj->agent, pj->job, "discard", n, bdp, fds, NULL) < 0)
		return -1;
	*open_s = clock_seconds(start, clock_now());
	if (bdp > 0) {
		struct sockbuf_limits lim;
		struct sockbuf_plan plan;

		sock_size_limits(SOCKBUF_SEND, &lim);
		sockbuf_plan_make(SOCKBUF_SEND, bdp, &lim, &plan);
		for (unsigned i = 0; i < n; i++)
			sock_size_apply(fds[i], &plan);
	}
	for (unsigned i = 0; i < n; i++)
		set_send_timeout(fds[i], seconds);
	start = clock_now();
	deadline = start + (clock_ns)(seconds * 1e9);
	for (unsigned i = 0; i < n; i++)
		snd[i] = (struct sender){ .fd = fds[i], .buf = buf, .deadline = deadline,
					  .warm_at = start + (clock_ns)(warm * 1e9),
					  .cap = PROBE_NET_MAX_BYTES / n };
	if (n == 1) {
		sender_main(&snd[0]);
		started = 1;
	} else {
		for (; started < n; started++)
			if (pthread_create(&snd[started].tid, NULL, sender_main, &snd[started]) != 0) {
				send_rc = err_set("cannot start a thread for probe stream %u", started);
				break;
			}
		for (unsigned i = 0; i < started; i++)
			pthread_join(snd[i].tid, NULL);
	}
	for (unsigned i = 0; i < started; i++) {
		sent += snd[i].sent;
		if (snd[i].rc < 0 && send_rc == 0) {
			err_restore(&snd[i].error);
			send_rc = err_wrap("stream %u", i);
		}
	}
	if (sndbuf) {
		int granted = 0;
		socklen_t len = sizeof(granted);

		*sndbuf = getsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &granted, &len) == 0 ? granted : 0;
	}
	steady = send_rc == 0 && started == n ? steady_bps(snd, n) : 0;
	if (raw_stream_finish(pj->agent, fds, n, send_rc, &received) < 0)
		return -1;
	took = clock_seconds(start, clock_now());
	if (received.wire_bytes != sent)
		return err_set("the agent received %llu bytes of the %llu sent",
			       (unsigned long long)received.wire_bytes, (unsigned long long)sent);
	if (sent == 0 || took <= 0)
		return err_set("no probe bytes went out within %g s", seconds);
	*bps = steady > 0 ? steady : (double)sent / took;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile p (0..1] of sorted v[0..n), n >= 1. */
static double percentile(const double *v, unsigned n, double p)
{
	unsigned k = (unsigned)ceil(p * n);

	return v[k > 0 ? k - 1 : 0];
}

/* One 1-byte round trip on fd; *rtt in seconds. */
static int ping(int fd, double *rtt)
{
	unsigned char out = 0x5a, in = 0;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	clock_ns t0 = clock_now();
	ssize_t n;
	int r;

	if (send(fd, &out, 1, MSG_NOSIGNAL) != 1)
		return err_errno("cannot send a round-trip probe");
	do
		r = poll(&p, 1, NET_STALL_MS);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return err_errno("cannot wait for the echo");
	if (r == 0)
		return err_set("no echo within %d s", NET_STALL_MS / 1000);
	n = recv(fd, &in, 1, 0);
	if (n < 0)
		return err_errno("cannot read the echo");
	if (n == 0 || in != out)
		return err_set("the echo receiver %s",
			       n == 0 ? "closed the connection" : "sent back another byte");
	*rtt = clock_seconds(t0, clock_now());
	return 0;
}

/*
 * RTT_WARMUP untimed then up to PROBE_RTT_COUNT timed round trips, within
 * `seconds`: their p50 and p99, and the CPU both ends spent a round trip
 * (*cpu: the p50's part that this thread's and the agent's echo thread's
 * CPU took of all the round trips' time; 0 when the agent did not say).
 * On loopback and veth that CPU is much of the round trip (the receiver's
 * softirq runs in the sender's send), and a transfer's processes are
 * charged for it in their own CPU.
 */
static int round_trips(const struct probe_job *pj, double seconds, double *p50, double *p99,
		       double *cpu)
{
	double *rtt = malloc(PROBE_RTT_COUNT * sizeof(*rtt)), t = 0, own, took;
	struct recv_stats received;
	unsigned count = 0;
	clock_ns start, deadline, cpu_start;
	int fd, one = 1, rc = 0;

	if (!rtt)
		return err_set("out of memory for %d round-trip times", PROBE_RTT_COUNT);
	if (raw_stream_open(pj->agent, pj->job, "echo", 1, &fd, NULL) < 0) {
		free(rtt);
		return -1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	start = clock_now();
	deadline = start + (clock_ns)(seconds * 1e9);
	cpu_start = clock_thread_cpu();
	for (unsigned k = 0; k < RTT_WARMUP + PROBE_RTT_COUNT && rc == 0; k++) {
		if (count > 0 && clock_now() >= deadline)
			break;
		rc = ping(fd, &t);
		if (rc == 0 && k >= RTT_WARMUP)
			rtt[count++] = t;
	}
	own = clock_seconds(cpu_start, clock_thread_cpu());
	took = clock_seconds(start, clock_now());
	if (raw_stream_finish(pj->agent, &fd, 1, rc, &received) < 0) {
		free(rtt);
		return -1;
	}
	qsort(rtt, count, sizeof(*rtt), cmp_double);
	*p50 = percentile(rtt, count, 0.50);
	*p99 = percentile(rtt, count, 0.99);
	/*
	 * The CPU's part of all the round trips' time, applied to the p50: the
	 * echo's CPU spans its whole stream and the warm-up's first trips cost
	 * more, so CPU a trip set against the p50 came out above it in a
	 * fresh-clone CI run (15.9 µs of CPU, 15.2 µs p50).
	 */
	*cpu = received.cpu_s > 0 && count > 0 && took > 0 ? *p50 * fmin(1, (own + received.cpu_s) / took) : 0;
	free(rtt);
	return 0;
}

/*
 * One stream window-limited, and a single raw strategy will set its send
 * buffer past autotuning's (sockbuf_plan.h): one more step, one stream
 * sized as that strategy's will be, so the model's cap for it is measured,
 * not scaled from the autotuned stream (an 8 MiB buffer carried 1.3-1.5x
 * what the autotuned 4 MiB did on the testbed at 20 ms, not 2x). Outside
 * the sweep's budget: one step more.
 */
static int sized_stream(const struct probe_job *pj, double step, double warm, const unsigned char *buf,
			struct probe_results *got)
{
	double bdp = net_window_bdp_bytes(got->net_link_bps * 8, got->rtt_p50_s), bps = 0, open_s = 0;
	struct sockbuf_limits lim;
	struct sockbuf_plan plan;

	got->window.sized_bits_per_s = 0;
	got->window.sized_sndbuf_bytes = 0;
	if (!got->window.limited)
		return 0;
	sock_size_limits(SOCKBUF_SEND, &lim);
	sockbuf_plan_make(SOCKBUF_SEND, bdp, &lim, &plan);
	if (plan.request_bytes <= 0)
		return 0;
	if (throughput(pj, 1, step, warm, buf, bdp, &bps, &got->window.sized_sndbuf_bytes, &open_s) < 0)
		return err_wrap("one stream with its buffers sized");
	got->window.sized_bits_per_s = bps * 8;
	return 0;
}

/*
 * The sweep (probes.h, probe_network), after the round trips (rtt_p50_s sets
 * the warm-up). Its budget, 2 x seconds, holds the steps' connection set-up
 * too: the data connections open a few at a time (raw_stream.c), each three
 * round trips (32 streams at 20 ms took about 1.5 s one after another), so
 * a step runs only when its measuring time and its streams' set-up, at the
 * slowest set-up per stream seen so far, fit in what is left.
 */
static int sweep(const struct probe_job *pj, double seconds, const unsigned char *buf,
		 struct probe_results *got)
{
	double budget = 2 * seconds, step = budget / PROBE_NET_SWEEP_SLOTS;
	double warm = fmax(step / 4, NET_WARM_RTTS * got->rtt_p50_s), open_per_stream = 0;
	clock_ns deadline = clock_now() + (clock_ns)(budget * 1e9);
	unsigned k;

	if (warm > step / 2)
		warm = step / 2;
	got->nsweep = 0;
	got->sweep_stop = NET_SWEEP_STOP_GAIN;
	while ((k = net_sweep_next(got->sweep, got->nsweep, NET_MAX_STREAMS)) != 0) {
		double bps = 0, open_s = 0, left = clock_seconds(clock_now(), deadline);

		if (got->nsweep > 0 && left < step + k * open_per_stream) {
			got->sweep_stop = NET_SWEEP_STOP_BUDGET;
			break;
		}
		if (throughput(pj, k, step, warm, buf, 0, &bps, got->nsweep == 0 ? &got->window.sndbuf_bytes : NULL,
			       &open_s) < 0)
			return err_wrap("%u stream%s", k, k == 1 ? "" : "s");
		open_per_stream = fmax(open_per_stream, open_s / k);
		got->sweep[got->nsweep++] = (struct net_sweep_step){ .streams = k, .bits_per_s = bps * 8 };
		if (k == NET_MAX_STREAMS)
			got->sweep_stop = NET_SWEEP_STOP_CAP;
	}
	got->net_bps_1 = got->sweep[0].bits_per_s / 8;
	got->net_link_bps = net_sweep_best(got->sweep, got->nsweep) / 8;
	got->net_saturation = net_sweep_saturation(got->sweep, got->nsweep);
	got->window.wmem_max_bytes = sock_size_sysctl_max("/proc/sys/net/ipv4/tcp_wmem");
	got->window.rmem_max_bytes = sock_size_sysctl_max("/proc/sys/net/ipv4/tcp_rmem");
	got->window.rtt_s = got->rtt_p50_s;
	net_window_judge(&got->window, got->net_bps_1 * 8, got->net_link_bps * 8);
	return sized_stream(pj, step, warm, buf, got);
}

static int network_phases(const struct probe_job *pj, unsigned streams, double seconds,
			  struct probe_results *got)
{
	unsigned char *buf = malloc(NET_BUF);
	uint64_t x = 0x853c49e6748fea9bull;
	int rc;

	if (!buf)
		return err_set("out of memory for the probe's send buffer");
	/* random bytes: nothing on the path gets to compress them */
	for (size_t i = 0; i + 8 <= NET_BUF; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(buf + i, &x, 8);
	}
	/* the round trips first, on an idle link: the sweep's warm-up is counted in them */
	rc = round_trips(pj, seconds, &got->rtt_p50_s, &got->rtt_p99_s, &got->rtt_cpu_s);
	if (rc < 0)
		err_wrap("round trips");
	if (rc == 0)
		rc = sweep(pj, seconds, buf, got);
	if (rc == 0)
		probe_results_set_streams(got, streams ? streams : got->net_saturation);
	free(buf);
	return rc;
}

void probe_results_set_streams(struct probe_results *r, unsigned streams)
{
	r->net_streams = streams;
	if (r->nsweep > 0)
		r->net_bps_n = net_sweep_rate_at(r->sweep, r->nsweep, streams) / 8;
}

int probe_network(struct agent_client *a, unsigned streams, double seconds,
		  struct probe_results *r)
{
	struct probe_job pj = { .agent = a };
	struct probe_results got = { .net_streams = streams };
	int rc;

	if (probe_check_budget(seconds) < 0)
		return -1;
	if (streams > NET_MAX_STREAMS)
		return err_set("the network probe takes 0 (auto) to %u streams, not %u", NET_MAX_STREAMS,
			       streams);
	/* the strategy name "probe": a job for the data connections, nothing written */
	if (agent_client_prepare(a, "probe", &pj.job, NULL, 0, got.dest_fs, sizeof(got.dest_fs)) < 0)
		return err_wrap("network probe");
	rc = network_phases(&pj, streams, seconds, &got);
	if (rc < 0) {
		struct err_saved saved;

		err_save(&saved);
		agent_client_cleanup(a, pj.job, NULL);
		err_restore(&saved);
		return err_wrap("network probe");
	}
	if (agent_client_cleanup(a, pj.job, NULL) < 0)
		return err_wrap("network probe");
	r->net_bps_1 = got.net_bps_1;
	r->net_bps_n = got.net_bps_n;
	r->net_streams = got.net_streams;
	memcpy(r->sweep, got.sweep, sizeof(r->sweep));
	r->nsweep = got.nsweep;
	r->net_saturation = got.net_saturation;
	r->sweep_stop = got.sweep_stop;
	r->net_link_bps = got.net_link_bps;
	r->window = got.window;
	r->rtt_p50_s = got.rtt_p50_s;
	r->rtt_p99_s = got.rtt_p99_s;
	r->rtt_cpu_s = got.rtt_cpu_s;
	snprintf(r->dest_fs, sizeof(r->dest_fs), "%s", got.dest_fs);
	/* what was measured: the path to this address, through this interface */
	snprintf(r->net_peer, sizeof(r->net_peer), "%s", a->where);
	if (procstat_iface_for_addr(a->addr, r->net_iface, sizeof(r->net_iface)) != 0)
		r->net_iface[0] = '\0';
	return 0;
}

int probe_destination(struct agent_client *a, double seconds, uint64_t disk_bytes,
		      const struct probe_depths *creates, struct probe_results *r)
{
	struct probe_depths one = { .n = 1, .depth = { 1 } };
	struct agent_probe_reply disk;

	if (probe_check_budget(seconds) < 0)
		return -1;
	if (!creates || creates->n == 0)
		creates = &one;
	/* a size given is written whole (the agent refuses one above PROBE_DISK_MAX_BYTES) */
	if (agent_client_probe(a, "probe_disk", disk_bytes ? PROBE_MAX_SECONDS : seconds, disk_bytes, "bps",
			&disk) < 0)
		return -1;
	{
		double per_s[PROBE_DEPTHS_MAX], made_s[PROBE_DEPTHS_MAX], cpu_s[PROBE_DEPTHS_MAX];

		if (agent_client_probe_creates(a, seconds, creates->depth, creates->n, per_s, made_s, cpu_s) < 0)
			return -1;
		r->create_cpu_s = 0;
		for (unsigned i = 0; i < creates->n; i++)
			if (creates->depth[i] == 1)
				r->create_cpu_s = cpu_s[i];
		r->ncreate_at = 0;
		for (unsigned i = 0; i < creates->n; i++) {
			r->create_made_at[r->ncreate_at] =
				(struct probe_rate){ .depth = creates->depth[i], .per_s = made_s[i] };
			r->create_at[r->ncreate_at++] =
				(struct probe_rate){ .depth = creates->depth[i], .per_s = per_s[i] };
		}
	}
	r->disk_write_bps = disk.rate;
	r->disk_write_bytes = disk.bytes;
	r->create_per_s = probe_rate_at(r->create_at, r->ncreate_at, 1);
	if (disk.fs[0])
		snprintf(r->dest_fs, sizeof(r->dest_fs), "%s", disk.fs);
	return 0;
}

/* [{"depth": d, key: rate}]: key names the rate's unit ("files_per_s", "bytes_per_s"). */
static json_object *rates_json(const struct probe_rate *rates, unsigned n, const char *key)
{
	json_object *a = json_object_new_array();

	for (unsigned i = 0; i < n; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "depth", json_object_new_int((int)rates[i].depth));
		json_object_object_add(o, key, json_object_new_double(rates[i].per_s));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *at_once_json(const struct probe_results *r)
{
	json_object *a = json_object_new_array();

	for (unsigned i = 0; i < r->ndisk_at_once; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "depth", json_object_new_int((int)r->disk_at_once[i].depth));
		json_object_object_add(o, "read_bytes_per_s", json_object_new_double(r->disk_at_once[i].read_bps));
		json_object_object_add(o, "write_bytes_per_s", json_object_new_double(r->disk_at_once[i].write_bps));
		json_object_object_add(o, "copy_bytes_per_s", json_object_new_double(r->disk_at_once[i].copy_bps));
		json_object_array_add(a, o);
	}
	return a;
}

/* A probe's result, or null: a probe skipped (--no-probes parts, --warm) or failed left 0. */
static json_object *measured(double v)
{
	return v > 0 && isfinite(v) ? json_object_new_double(v) : NULL;
}

static json_object *measured_text(const char *s)
{
	return s[0] ? json_object_new_string(s) : NULL;
}

/*
 * The "ceilings" object of schema 2: rates named by unit, the network's in
 * bits (as link rates are quoted), null for what was not measured.
 */

/*
 * "network": the sweep [{streams, bits_per_s}], its saturation point and
 * best rate, and one stream's window (null: not measured).
 */
static json_object *network_json(const struct probe_results *r)
{
	json_object *o = json_object_new_object(), *steps = json_object_new_array(), *w;

	for (unsigned i = 0; i < r->nsweep; i++) {
		json_object *step = json_object_new_object();

		json_object_object_add(step, "streams", json_object_new_int((int)r->sweep[i].streams));
		json_object_object_add(step, "bits_per_s", json_object_new_double(r->sweep[i].bits_per_s));
		json_object_array_add(steps, step);
	}
	json_object_object_add(o, "sweep", steps);
	json_object_object_add(o, "sweep_stopped", r->nsweep ? json_object_new_string(net_sweep_stop_name(r->sweep_stop)) : NULL);
	json_object_object_add(o, "saturation_streams",
			       r->net_saturation ? json_object_new_int((int)r->net_saturation) : NULL);
	json_object_object_add(o, "link_bits_per_s", measured(r->net_link_bps * 8));
	json_object_object_add(o, "streams", r->net_streams ? json_object_new_int((int)r->net_streams) : NULL);
	json_object_object_add(o, "streams_bits_per_s", measured(r->net_bps_n * 8));
	w = json_object_new_object();
	json_object_object_add(w, "send_buffer_bytes", measured(r->window.sndbuf_bytes));
	json_object_object_add(w, "tcp_wmem_max_bytes", measured(r->window.wmem_max_bytes));
	json_object_object_add(w, "tcp_rmem_max_bytes", measured(r->window.rmem_max_bytes));
	json_object_object_add(w, "rtt_seconds", measured(r->window.rtt_s));
	json_object_object_add(w, "bits_per_s", measured(r->window.window_bits_per_s));
	json_object_object_add(w, "limited", r->nsweep ? json_object_new_boolean(r->window.limited) : NULL);
	json_object_object_add(w, "needed_bytes",
			       measured(r->window.limited ? net_window_bdp_bytes(r->net_link_bps * 8, r->window.rtt_s) : 0));
	json_object_object_add(w, "sized_send_buffer_bytes", measured(r->window.sized_sndbuf_bytes));
	json_object_object_add(w, "sized_bits_per_s", measured(r->window.sized_bits_per_s));
	json_object_object_add(o, "window", w);
	return o;
}

json_object *probe_results_json(const struct probe_results *r)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "network_1_stream_bits_per_s", measured(r->net_bps_1 * 8));
	json_object_object_add(o, "network_n_streams_bits_per_s", measured(r->net_bps_n * 8));
	json_object_object_add(o, "network_streams",
			       r->net_streams ? json_object_new_int((int)r->net_streams) : NULL);
	json_object_object_add(o, "rtt_p50_seconds", measured(r->rtt_p50_s));
	json_object_object_add(o, "rtt_p99_seconds", measured(r->rtt_p99_s));
	json_object_object_add(o, "rtt_cpu_seconds", measured(r->rtt_cpu_s));
	json_object_object_add(o, "network_peer", measured_text(r->net_peer));
	json_object_object_add(o, "network_interface", measured_text(r->net_iface));
	json_object_object_add(o, "disk_write_bytes_per_s", measured(r->disk_write_bps));
	json_object_object_add(o, "disk_write_bytes", r->disk_write_bytes ?
			       json_object_new_int64((int64_t)r->disk_write_bytes) : NULL);
	json_object_object_add(o, "create_files_per_s", measured(r->create_per_s));
	json_object_object_add(o, "disk_read_bytes_per_s", measured(r->disk_read_bps));
	json_object_object_add(o, "source_open_files_per_s", measured(r->src_open_per_s));
	json_object_object_add(o, "source_open_cpu_seconds", measured(r->src_open_cpu_s));
	json_object_object_add(o, "create_cpu_seconds", measured(r->create_cpu_s));
	json_object_object_add(o, "zstd_bytes_per_s", measured(r->zstd_bps));
	json_object_object_add(o, "zstd_ratio", measured(r->zstd_ratio));
	json_object_object_add(o, "zstd_cpu_seconds_per_gib", measured(r->zstd_cpu_per_byte * UNITS_GIB));
	json_object_object_add(o, "unzstd_bytes_per_s", measured(r->unzstd_bps));
	json_object_object_add(o, "ssh_bytes_per_s", measured(r->ssh_bps));
	json_object_object_add(o, "ssh_cpu_busy", measured(r->ssh_cpu_busy));
	json_object_object_add(o, "sftp_rtt_seconds", measured(r->sftp_rtt_s));
	json_object_object_add(o, "ssh_cipher", measured_text(r->ssh_cipher));
	json_object_object_add(o, "dest_fs", measured_text(r->dest_fs));
	json_object_object_add(o, "create_at", rates_json(r->create_at, r->ncreate_at, "files_per_s"));
	json_object_object_add(o, "create_made_at", rates_json(r->create_made_at, r->ncreate_at, "files_per_s"));
	json_object_object_add(o, "open_at", rates_json(r->open_at, r->nopen_at, "files_per_s"));
	json_object_object_add(o, "read_at", rates_json(r->read_at, r->nread_at, "bytes_per_s"));
	json_object_object_add(o, "disk_at_once", at_once_json(r));
	json_object_object_add(o, "network", network_json(r));
	json_object_object_add(o, "one_disk", json_object_new_boolean(r->one_disk));
	json_object_object_add(o, "one_machine", json_object_new_boolean(r->one_machine));
	json_object_object_add(o, "cores_local", r->cores_local ? json_object_new_int((int)r->cores_local) : NULL);
	json_object_object_add(o, "cores_remote", r->cores_remote ? json_object_new_int((int)r->cores_remote) : NULL);
	json_object_object_add(o, "dest_dirty_background_bytes", measured(r->dest_dirty_bytes));
	return o;
}
