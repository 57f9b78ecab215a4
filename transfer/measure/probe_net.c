/*
 * The client's probes that need the agent (see probes.h): the network, like
 * iperf3 (memory-to-memory throughput) and qperf tcp_lat (1-byte round
 * trips), into the agent's "discard" and "echo" receivers (recv_probe.c);
 * and the calls to the agent's own disk and metadata probes
 * (agent_probes.c). Also the probes' part of the JSON report.
 */
#define _GNU_SOURCE
#include "measure/probes.h"

#include "client/agent_client.h"
#include "clock.h"
#include "err.h"
#include "client/raw_stream.h"
#include "strategy/strategy.h"

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
/* The agent's "discard" receiver takes at most this many streams. */
#define NET_MAX_STREAMS 64u
/* Round trips before the timed ones: the first carry connection set-up costs. */
#define RTT_WARMUP 10
/* A send or an echo that takes longer than this past the budget means the peer is stuck. */
#define NET_STALL_MS 10000

struct sender {
	pthread_t tid;
	int fd;
	const unsigned char *buf;
	clock_ns deadline;
	uint64_t cap, sent;
	int rc;
	char error[ERR_MAX];
};

static void *sender_main(void *arg)
{
	struct sender *s = arg;

	while (s->sent < s->cap && clock_now() < s->deadline) {
		size_t n = s->cap - s->sent < NET_BUF ? (size_t)(s->cap - s->sent) : NET_BUF;
		ssize_t w = send(s->fd, s->buf, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			s->rc = err_errno("cannot send on a probe stream");
			snprintf(s->error, sizeof(s->error), "%s", err_msg());
			break;
		}
		s->sent += (uint64_t)w;
	}
	return NULL;
}

static void set_send_timeout(int fd, double seconds)
{
	double t = seconds + NET_STALL_MS / 1000.0;
	struct timeval tv = { .tv_sec = (time_t)t, .tv_usec = (suseconds_t)((t - floor(t)) * 1e6) };

	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/*
 * One throughput phase on n streams (one thread each when n > 1) for
 * `seconds`. *bps = bytes the agent received / (first send .. its reply).
 */
static int throughput(struct xfer_run *run, unsigned n, double seconds, const unsigned char *buf,
		      double *bps)
{
	struct sender snd[NET_MAX_STREAMS];
	int fds[NET_MAX_STREAMS], send_rc = 0;
	unsigned started = 0;
	uint64_t sent = 0;
	clock_ns start, deadline;
	double took;

	if (raw_stream_open(run, "discard", n, fds) < 0)
		return -1;
	for (unsigned i = 0; i < n; i++)
		set_send_timeout(fds[i], seconds);
	start = clock_now();
	deadline = start + (clock_ns)(seconds * 1e9);
	for (unsigned i = 0; i < n; i++)
		snd[i] = (struct sender){ .fd = fds[i], .buf = buf, .deadline = deadline,
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
		if (snd[i].rc < 0 && send_rc == 0)
			send_rc = err_set("stream %u: %s", i, snd[i].error);
	}
	if (raw_stream_finish(run, fds, n, send_rc) < 0)
		return -1;
	took = clock_seconds(start, clock_now());
	if (run->received.wire_bytes != sent)
		return err_set("the agent received %llu bytes of the %llu sent",
			       (unsigned long long)run->received.wire_bytes, (unsigned long long)sent);
	if (sent == 0 || took <= 0)
		return err_set("no probe bytes went out within %g s", seconds);
	*bps = (double)sent / took;
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

/* RTT_WARMUP untimed then up to PROBE_RTT_COUNT timed round trips, within `seconds`. */
static int round_trips(struct xfer_run *run, double seconds, double *p50, double *p99)
{
	double *rtt = malloc(PROBE_RTT_COUNT * sizeof(*rtt)), t = 0;
	unsigned count = 0;
	clock_ns deadline;
	int fd, one = 1, rc = 0;

	if (!rtt)
		return err_set("out of memory for %d round-trip times", PROBE_RTT_COUNT);
	if (raw_stream_open(run, "echo", 1, &fd) < 0) {
		free(rtt);
		return -1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	deadline = clock_now() + (clock_ns)(seconds * 1e9);
	for (unsigned k = 0; k < RTT_WARMUP + PROBE_RTT_COUNT && rc == 0; k++) {
		if (count > 0 && clock_now() >= deadline)
			break;
		rc = ping(fd, &t);
		if (rc == 0 && k >= RTT_WARMUP)
			rtt[count++] = t;
	}
	if (raw_stream_finish(run, &fd, 1, rc) < 0) {
		free(rtt);
		return -1;
	}
	qsort(rtt, count, sizeof(*rtt), cmp_double);
	*p50 = percentile(rtt, count, 0.50);
	*p99 = percentile(rtt, count, 0.99);
	free(rtt);
	return 0;
}

/* "prepare" for the strategy name "probe": the job the data connections belong to. */
static int prepare_job(struct agent_client *a, uint64_t *job, char *fs, size_t fslen)
{
	json_object *req = json_object_new_object(), *reply = NULL;
	const char *f;
	int rc;

	json_object_object_add(req, "op", json_object_new_string("prepare"));
	json_object_object_add(req, "strategy", json_object_new_string("probe"));
	rc = agent_client_call(a, req, &reply);
	json_object_put(req);
	if (rc == 0 && (wire_get_u64(reply, "job", job) < 0 || wire_get_str(reply, "dest_fs", &f) < 0))
		rc = err_wrap("agent");
	if (rc == 0)
		snprintf(fs, fslen, "%s", f);
	json_object_put(reply);
	return rc;
}

static int network_phases(struct xfer_run *run, unsigned streams, double seconds,
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
	rc = throughput(run, 1, seconds, buf, &got->net_bps_1);
	if (rc < 0)
		err_wrap("1 stream");
	got->net_bps_n = got->net_bps_1;
	if (rc == 0 && streams > 1 && (rc = throughput(run, streams, seconds, buf, &got->net_bps_n)) < 0)
		err_wrap("%u streams", streams);
	if (rc == 0 && (rc = round_trips(run, seconds, &got->rtt_p50_s, &got->rtt_p99_s)) < 0)
		err_wrap("round trips");
	free(buf);
	return rc;
}

int probe_network(struct agent_client *a, unsigned streams, double seconds,
		  struct probe_results *r)
{
	struct xfer_target target = { .agent = a, .label = a->host };
	struct xfer_run run = { .target = &target };
	struct probe_results got = { .net_streams = streams };
	json_object *reply = NULL;
	int rc;

	if (probe_check_budget(seconds) < 0)
		return -1;
	if (streams == 0 || streams > NET_MAX_STREAMS)
		return err_set("the network probe takes 1 to %u streams, not %u", NET_MAX_STREAMS,
			       streams);
	if (prepare_job(a, &run.job, got.dest_fs, sizeof(got.dest_fs)) < 0)
		return err_wrap("network probe");
	rc = network_phases(&run, streams, seconds, &got);
	if (rc < 0) {
		char saved[ERR_MAX];

		snprintf(saved, sizeof(saved), "%s", err_msg());
		agent_client_simple(a, "cleanup", run.job, &reply);
		json_object_put(reply);
		return err_set("network probe: %s", saved);
	}
	if (agent_client_simple(a, "cleanup", run.job, &reply) < 0)
		return err_wrap("network probe");
	json_object_put(reply);
	r->net_bps_1 = got.net_bps_1;
	r->net_bps_n = got.net_bps_n;
	r->net_streams = got.net_streams;
	r->rtt_p50_s = got.rtt_p50_s;
	r->rtt_p99_s = got.rtt_p99_s;
	snprintf(r->dest_fs, sizeof(r->dest_fs), "%s", got.dest_fs);
	return 0;
}

/* What one agent-side probe answered. */
struct agent_probe_reply {
	double rate;		/* the reply's rate field */
	uint64_t bytes;		/* its "bytes", 0 when it has none */
	char fs[32];		/* its "dest_fs", "" when it has none */
};

/*
 * One agent-side probe: op with the budget and, when max_bytes is not 0, that
 * cap; out->rate from the reply's rate_key.
 */
static int agent_probe(struct agent_client *a, const char *op, double seconds, uint64_t max_bytes,
		       const char *rate_key, struct agent_probe_reply *out)
{
	json_object *req = json_object_new_object(), *reply = NULL, *v;
	int rc;

	memset(out, 0, sizeof(*out));
	json_object_object_add(req, "op", json_object_new_string(op));
	json_object_object_add(req, "seconds", json_object_new_double(seconds));
	if (max_bytes)
		json_object_object_add(req, "max_bytes", json_object_new_int64((int64_t)max_bytes));
	rc = agent_client_call(a, req, &reply);
	json_object_put(req);
	if (rc < 0)
		return err_wrap("%s", op);
	if (!json_object_object_get_ex(reply, rate_key, &v) ||
	    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int))) {
		json_object_put(reply);
		return err_set("%s: agent: protocol error: field '%s' missing or not a number", op,
			       rate_key);
	}
	out->rate = json_object_get_double(v);
	if (json_object_object_get_ex(reply, "bytes", &v) && json_object_is_type(v, json_type_int) &&
	    json_object_get_int64(v) > 0)
		out->bytes = (uint64_t)json_object_get_int64(v);
	if (json_object_object_get_ex(reply, "dest_fs", &v) &&
	    json_object_is_type(v, json_type_string))
		snprintf(out->fs, sizeof(out->fs), "%s", json_object_get_string(v));
	json_object_put(reply);
	return 0;
}

int probe_destination(struct agent_client *a, double seconds, uint64_t disk_bytes,
		      struct probe_results *r)
{
	struct agent_probe_reply disk, create;

	if (probe_check_budget(seconds) < 0)
		return -1;
	/* a size given is written whole (the agent refuses one above PROBE_DISK_MAX_BYTES) */
	if (agent_probe(a, "probe_disk", disk_bytes ? PROBE_MAX_SECONDS : seconds, disk_bytes, "bps",
			&disk) < 0 ||
	    agent_probe(a, "probe_create", seconds, 0, "per_s", &create) < 0)
		return -1;
	r->disk_write_bps = disk.rate;
	r->disk_write_bytes = disk.bytes;
	r->create_per_s = create.rate;
	if (disk.fs[0])
		snprintf(r->dest_fs, sizeof(r->dest_fs), "%s", disk.fs);
	return 0;
}

json_object *probe_results_json(const struct probe_results *r)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "network_bps_1", json_object_new_double(r->net_bps_1));
	json_object_object_add(o, "network_bps_n", json_object_new_double(r->net_bps_n));
	json_object_object_add(o, "network_streams", json_object_new_int((int)r->net_streams));
	json_object_object_add(o, "rtt_p50_s", json_object_new_double(r->rtt_p50_s));
	json_object_object_add(o, "rtt_p99_s", json_object_new_double(r->rtt_p99_s));
	json_object_object_add(o, "disk_write_bps", json_object_new_double(r->disk_write_bps));
	json_object_object_add(o, "disk_write_bytes", json_object_new_int64((int64_t)r->disk_write_bytes));
	json_object_object_add(o, "create_per_s", json_object_new_double(r->create_per_s));
	json_object_object_add(o, "disk_read_bps", json_object_new_double(r->disk_read_bps));
	json_object_object_add(o, "source_open_per_s", json_object_new_double(r->src_open_per_s));
	json_object_object_add(o, "zstd_bps", json_object_new_double(r->zstd_bps));
	json_object_object_add(o, "zstd_ratio", json_object_new_double(r->zstd_ratio));
	json_object_object_add(o, "ssh_bps", json_object_new_double(r->ssh_bps));
	json_object_object_add(o, "sftp_rtt_s", json_object_new_double(r->sftp_rtt_s));
	json_object_object_add(o, "ssh_cipher", json_object_new_string(r->ssh_cipher));
	json_object_object_add(o, "dest_fs", json_object_new_string(r->dest_fs));
	return o;
}
