/*
 * The forecast, stage by stage as docs/MODEL.md derives them. Pure
 * arithmetic over struct forecast_input: nothing a run measured is in
 * reach (forecast.h).
 */
#include "model/forecast.h"

#include "err.h"
#include "stream/gate_limits.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* TCP's first window (RFC 6928: ten segments of an Ethernet path's 1,448 bytes) */
#define INITIAL_WINDOW_BYTES (10.0 * 1448)
/* ext4's default inode (mke2fs.conf inode_size): what a made name adds to the flush beside its data */
#define INODE_BYTES 256.0

/* amount / rate, 0 when the rate is unknown (0, negative or not finite) */
static double per(double amount, double rate)
{
	return rate > 0 && isfinite(rate) ? amount / rate : 0;
}

static unsigned at_least_one(unsigned n)
{
	return n ? n : 1;
}

static unsigned streams_of(const struct forecast_input *in)
{
	return (in->strategy->flags & STRATEGY_MULTI_STREAM) ? at_least_one(in->streams) : 1;
}

/* A probed rate at depth (probe_rate_at), or the one-deep probe's when no depth was probed. */
static double rate_at(const struct probe_rate *r, unsigned n, unsigned depth, double alone)
{
	return n ? probe_rate_at(r, n, depth) : alone;
}

static bool through_ssh(const struct strategy_traits *t)
{
	return t->path == PATH_SSH_CHANNEL || t->path == PATH_SFTP;
}

void forecast_probed_link(const struct forecast_input *in, struct link *out)
{
	const struct probe_results *p = in->probes;
	const struct strategy_traits *t = &in->strategy->traits;
	unsigned n = streams_of(in);
	double rate = n > 1 && p->nsweep ? net_sweep_rate_at(p->sweep, p->nsweep, n) / 8 : p->net_bps_1;

	if (!(rate > 0))
		rate = p->net_link_bps;
	if (through_ssh(t) && p->ssh_bps > 0) {
		/* n channels, no more than the cores the probe's one channel kept busy allow */
		double channels = n * p->ssh_bps;

		if (n > 1 && p->ssh_cpu_busy > 0 && p->ssh_bps / p->ssh_cpu_busy < channels)
			channels = p->ssh_bps / p->ssh_cpu_busy;
		rate = rate > 0 ? fmin(rate, channels) : channels;
	}
	out->bytes_per_s = rate;
	out->rtt_s = p->rtt_p50_s;
	/* a request through sshd to a program on the host and back: the SFTP probe's round trip */
	out->request_s = through_ssh(t) && p->sftp_rtt_s > 0 ? p->sftp_rtt_s : p->rtt_p50_s;
}

static double wire_bytes(const struct forecast_input *in)
{
	const struct workload_counts *w = &in->work;
	const struct strategy_traits *t = &in->strategy->traits;
	double names = (double)(workload_counts_nodes(w) + w->dirs);
	double content = t->block_bytes ? (double)w->bytes_in_blocks : (double)w->bytes;
	double bytes = content + names * t->header_bytes + (double)w->name_bytes;

	if ((in->strategy->flags & STRATEGY_COMPRESSED) && in->probes->zstd_ratio > 1)
		bytes /= in->probes->zstd_ratio;
	return bytes;
}

/* Round trips a serial strategy waits on, one after another (per stream: divide by streams). */
static uint64_t serial_requests(const struct forecast_input *in)
{
	const struct workload_counts *w = &in->work;
	const struct strategy_traits *t = &in->strategy->traits;
	uint64_t empty = w->files - w->nonempty_files;

	if (!t->serial)
		return 0;
	/* an empty file has no write to wait on */
	return w->nonempty_files * t->requests_per_file +
	       empty * (t->requests_per_file > 0 ? t->requests_per_file - 1 : 0) +
	       w->dirs * t->requests_per_dir + w->symlinks + w->hardlinks;
}

/* Handshakes, and each bulk stream's slow start up to the window the path needs. */
static double setup_and_ramp(const struct forecast_input *in, const struct link *l, double wire)
{
	const struct strategy_traits *t = &in->strategy->traits;
	unsigned n = streams_of(in);
	/* raw streams open a gate's worth at a time (client/raw_stream.c) */
	unsigned waves = t->path == PATH_RAW_TCP ? (n + AGENT_GATE_PER_ADDR - 1) / AGENT_GATE_PER_ADDR : 1;
	double rounds = (double)t->setup_round_trips * waves, reach = wire / n;
	double bdp = l->bytes_per_s * l->rtt_s / n;

	if (!t->serial) {
		if (bdp > 0 && bdp < reach)
			reach = bdp;
		if (reach > INITIAL_WINDOW_BYTES)
			rounds += ceil(log2(reach / INITIAL_WINDOW_BYTES));
	}
	return rounds * l->rtt_s;
}

/* The destination's work: its creates in the transfer and in the flush, and its writes. */
struct dest_work {
	double create_cpu, create_durable, write_late, write_early;
};

static void dest_work(const struct forecast_input *in, struct dest_work *d)
{
	const struct probe_results *p = in->probes;
	const struct strategy_traits *t = &in->strategy->traits;
	const struct workload_counts *w = &in->work;
	unsigned n = streams_of(in);
	unsigned depth = (t->creator == CREATOR_AGENT ? at_least_one(t->receiver_depth) : 1) * n;
	unsigned cores = at_least_one(p->cores_remote);
	double made = (double)(w->files * at_least_one(t->creates_per_file) + w->symlinks +
			       w->hardlinks + w->dirs);
	double alone = rate_at(p->create_made_at, p->ncreate_at, depth, 0);
	double late = (double)w->large_bytes;
	bool tmpfs = !strcmp(p->dest_fs, "tmpfs");

	/*
	 * In the transfer a create lands in the page cache: the probe's creates
	 * without their syncfs (an older agent: their CPU, over the cores).
	 * The flush then writes what they made: each small file's pages and
	 * an inode a name, at the disk's durable rate.
	 */
	d->create_cpu = alone > 0 ? made / alone : made * p->create_cpu_s / (depth < cores ? depth : cores);
	d->create_durable = tmpfs ? 0 : per((double)w->small_bytes_in_pages + made * INODE_BYTES,
					    p->disk_write_bps);
	/* the page cache holds up to the dirty threshold until the flush; more is written meanwhile */
	if (p->dest_dirty_bytes > 0 && late > p->dest_dirty_bytes)
		late = p->dest_dirty_bytes;
	d->write_late = tmpfs ? 0 : per(late, p->disk_write_bps);
	d->write_early = tmpfs ? 0 : per((double)w->large_bytes - late, p->disk_write_bps);
}

/* Each stage of a pipeline (forecast.h) with the resource it is charged to. */
static const enum resource stage_resource[STAGE_COUNT] = {
	RES_NETWORK, RES_METADATA, RES_DISK, RES_METADATA, RES_CPU, RES_DISK,
};

/*
 * The CPU stage (docs/MODEL.md "cpu"): compression at its probed rate and
 * the receiver's decompression on its one thread, each a pipeline stage; on
 * one machine, every process's work over its cores.
 */
static double cpu_stage(const struct forecast_input *in, double wire)
{
	const struct probe_results *p = in->probes;
	const struct workload_counts *w = &in->work;
	bool compressed = in->strategy->flags & STRATEGY_COMPRESSED;
	double compress = compressed ? per((double)w->bytes, p->zstd_bps) : 0;
	double decompress = compressed ? per((double)w->bytes, p->unzstd_bps) : 0;
	double shared = 0;

	if (p->one_machine && p->cores_local > 0) {
		/* the probes' CPU per open and per create, and the channel's per byte at full speed */
		shared = (double)w->small_files * p->src_open_cpu_s +
			 (double)(workload_counts_nodes(w) + w->dirs) * p->create_cpu_s;
		if (through_ssh(&in->strategy->traits) && p->ssh_bps > 0 && p->ssh_cpu_busy > 0)
			shared += wire * p->ssh_cpu_busy * p->cores_local / p->ssh_bps;
		/* both ends' codec: every compressing thread's CPU, and the decompression */
		if (compressed)
			shared += (p->zstd_cpu_per_byte > 0 ? (double)w->bytes * p->zstd_cpu_per_byte : compress) +
				  decompress;
		shared /= p->cores_local;
	}
	return fmax(fmax(compress, decompress), shared);
}

static void stages(const struct forecast_input *in, const struct link *l, double wire,
		   const struct dest_work *d, double st[STAGE_COUNT])
{
	const struct probe_results *p = in->probes;
	const struct workload_counts *w = &in->work;
	unsigned n = streams_of(in), depth = at_least_one(in->strategy->traits.sender_depth) * n;

	st[STAGE_NET] = per(wire, l->bytes_per_s);
	st[STAGE_OPENS] = in->warm_source ? 0 :
		per((double)w->small_files, rate_at(p->open_at, p->nopen_at, depth, p->src_open_per_s));
	st[STAGE_READS] = in->warm_source ? 0 :
		per((double)w->large_bytes, rate_at(p->read_at, p->nread_at, n, p->disk_read_bps));
	st[STAGE_CREATES] = d->create_cpu;
	st[STAGE_CPU] = cpu_stage(in, wire);
	/* one disk: what is written back during the transfer shares it with the reads */
	st[STAGE_DISK] = d->write_early;
	if (p->one_disk && st[STAGE_DISK] > 0) {
		st[STAGE_DISK] += st[STAGE_READS];
		st[STAGE_READS] = 0;
	}
}

int forecast_make(const struct forecast_input *in, const struct link *link, struct forecast *out)
{
	const struct strategy_traits *t = &in->strategy->traits;
	double st[STAGE_COUNT], wire, slowest = 0, sum = 0, waits, work;
	struct dest_work d;
	unsigned n = streams_of(in);
	enum forecast_stage top = STAGE_NET;

	if (!in->probes || !in->strategy)
		return err_set("a forecast needs the probes and a strategy");
	memset(out, 0, sizeof(*out));
	out->bound = RES_COUNT;
	if (link)
		out->link = *link;
	else
		forecast_probed_link(in, &out->link);
	if (t->path == PATH_NONE) {
		snprintf(out->why, sizeof(out->why), "its structure is not declared (a cmd: strategy)");
		return 0;
	}
	if (!(out->link.bytes_per_s > 0)) {
		snprintf(out->why, sizeof(out->why), "the link's rate was not probed");
		return 0;
	}
	wire = out->wire_bytes = wire_bytes(in);
	dest_work(in, &d);
	stages(in, &out->link, wire, &d, st);
	for (enum forecast_stage i = 0; i < STAGE_COUNT; i++) {
		out->need_s[stage_resource[i]] += st[i];
		sum += st[i];
		if (i != STAGE_NET && st[i] > out->off_link_s)
			out->off_link_s = st[i];
		if (st[i] > slowest) {
			slowest = st[i];
			top = i;
		}
	}
	out->need_s[RES_METADATA] += d.create_durable;
	out->need_s[RES_DISK] += d.write_late;
	out->need_s[RES_LATENCY] = setup_and_ramp(in, &out->link, wire);
	out->flush_s = d.create_durable + d.write_late;
	out->flush_creates_s = d.create_durable;
	out->requests = serial_requests(in);
	if (t->serial) {
		/*
		 * Each request waits the wire's round trip beyond its CPU
		 * (latency) and the host's work on it (per-file: metadata); the
		 * file's stages wait in turn, so everything adds.
		 */
		double wire_wait = fmax(out->link.rtt_s - in->probes->rtt_cpu_s, 0);

		waits = (double)out->requests * wire_wait / n;
		work = (double)out->requests * fmax(out->link.request_s - wire_wait, 0) / n;
		out->need_s[RES_LATENCY] += waits;
		out->need_s[RES_METADATA] += work;
		/* its processes' CPU is spent inside those waits: it sets the time only when longer */
		out->seconds = out->need_s[RES_LATENCY] + work + sum - st[STAGE_CPU] + out->flush_s;
		if (st[STAGE_CPU] > out->seconds)
			out->seconds = st[STAGE_CPU];
		out->low = out->seconds;
		out->high = out->seconds + (double)out->requests *
			    fmax(in->probes->rtt_p99_s - in->probes->rtt_p50_s, 0) / n;
	} else {
		out->seconds = out->need_s[RES_LATENCY] + slowest + out->flush_s;
		/* the stages overlapping perfectly, or not at all */
		out->low = out->seconds;
		out->high = out->need_s[RES_LATENCY] + sum + out->flush_s;
	}
	/* the bound: the largest part of the forecast */
	out->working = top;
	out->bound = stage_resource[top];
	if (t->serial)
		for (int r = 0; r < RES_COUNT; r++)
			if (out->need_s[r] > out->need_s[out->bound])
				out->bound = (enum resource)r;
	if (!t->serial && out->need_s[RES_LATENCY] > slowest)
		out->bound = RES_LATENCY;
	if (!t->serial && out->flush_s > fmax(slowest, out->need_s[RES_LATENCY]))
		out->bound = d.write_late >= d.create_durable ? RES_DISK : RES_METADATA;
	return 0;
}
