#include "model/verdict.h"

#include <stdio.h>
#include <math.h>
#include <string.h>

/*
 * Flow-control windows that bound one stream on a long link: OpenSSH's
 * session channel window (CHAN_SES_WINDOW_DEFAULT, 64 packets of 32 KiB)
 * and Linux's default largest TCP receive buffer (net.ipv4.tcp_rmem's
 * third value, 6 MiB).
 */
#define SSH_WINDOW_BYTES (2.0 * 1024 * 1024)
/* files of at most this much on average are small: their cost is per file (as report_explain.c) */
#define SMALL_FILE_BYTES (64.0 * 1024)
#define TCP_WINDOW_BYTES (6.0 * 1024 * 1024)

static unsigned streams_of(const struct strategy *s, const struct probe_results *p)
{
	return (s->flags & STRATEGY_MULTI_STREAM) && p->net_streams > 1 ? p->net_streams : 1;
}

/* The cores one process could use: its threads, at most the machine's. */
static unsigned cores_of(const struct sampler_proc *pr, unsigned cpus)
{
	unsigned cores = pr->threads > 1 ? pr->threads : 1;

	return cpus > 0 && cores > cpus ? cpus : cores;
}

/*
 * A CPU stage of cpu_s seconds of CPU spread over `over` cores or threads
 * (fewer when the cores are not kept busy: see stream_packing, or when
 * processes not ours took some: cores_left); `spread` says how, for the
 * reason ("2", "2 cores kept 74% busy"); holds_creates: its CPU holds the
 * destination's creates (the process that makes them, or a sum of
 * processes it is among).
 */
static void consider(struct attribution_input *in, double cpu_s, double over, const char *spread,
		     const char *name, const char *where, bool holds_creates)
{
	double secs = over > 1 ? cpu_s / over : cpu_s;

	if (secs > in->cpu_stage_s) {
		in->cpu_stage_s = secs;
		in->cpu_stage_over = over > 1 ? over : 1;
		in->cpu_stage_holds_creates = holds_creates;
		if (over > 1)
			snprintf(in->cpu_stage, sizeof(in->cpu_stage), "%s%s (%.1f s of CPU over %s)",
				 name, where, cpu_s, spread);
		else
			snprintf(in->cpu_stage, sizeof(in->cpu_stage), "%s%s", name, where);
	}
}

/* The busiest CPU-bound stage of one end's processes, and that end's processes together. */
static void end_stage(const struct sampler_summary *s, const char *self, const char *where,
		      bool creates_here, bool agent_creates, struct attribution_input *in)
{
	char all[64], spread[16];

	/*
	 * procs[0] is the sampler's own process ("self"): xfercmp here, the
	 * agent on the host. creates_here: this end makes the destination's
	 * files; agent_creates: its procs[0] does (our receivers).
	 */
	for (unsigned i = 0; i < s->nprocs; i++) {
		unsigned cores = cores_of(&s->procs[i], s->cpus);

		snprintf(spread, sizeof(spread), "%u", cores);
		consider(in, s->procs[i].cpu_s, cores, spread, i == 0 ? self : s->procs[i].name, where,
			 creates_here && agent_creates && i == 0);
	}
	if (s->cpus > 0) {
		snprintf(all, sizeof(all), "%u processes", s->nprocs);
		snprintf(spread, sizeof(spread), "%u", s->cpus);
		consider(in, s->procs_cpu_s, s->cpus, spread, all, where, creates_here);
	}
	/*
	 * The busiest thread (s->busiest_thread_cpu_s, in the JSON) is measured
	 * but not taken as a stage of its own yet. It would be right for the
	 * agent's tar receiver, which extracts on one thread (8.46 s of CPU in a
	 * 9.41 s zstd run of 20,000 files, 2026-12-02, where the agent's CPU over
	 * its 3 threads read 3 s), but a thread that writes into the page cache
	 * burns CPU for the disk's work: in a fresh-clone CI run 2 GiB to durable
	 * ext4 then read "cpu-bound: the agent's busiest thread needed 1.4 s of
	 * the 1.7 s" where taking the destination disk away saved most. Which of
	 * a thread's seconds are the disk's is not measured; until it is, the
	 * process over its threads stands.
	 */
}

/* Both ends on one machine (the testbed): one boot id. */
static bool one_machine(const struct run_record *r)
{
	return r->have_local && r->have_remote && r->local.boot_id[0] &&
	       !strcmp(r->local.boot_id, r->remote.boot_id);
}

/*
 * How busy an uncompressed byte stream through sshd keeps this machine's
 * cores, when both ends are on it: 1 (all of them) unless measured. Each
 * process of such a chain (our sender's threads, sshd, the host's tar or
 * sftp-server) waits on the next at every hand-off, so their CPU does not
 * fill the cores. The SSH probe is that chain (our channel, sshd, cat) run
 * flat out: the share of the cores busy meanwhile is the packing, when the
 * chain's CPU held it: it kept more than one core's worth busy (less says
 * it waited on something else: a window) and ran clearly below the link (at
 * 1 Gbit/s and 2 ms the probe carried the link's 120 MB/s while the
 * testbed's delayer kept the cores 61% busy).
 *
 * Measured on the testbed (2 cores), 2026-12-04/05. The probe kept the
 * cores 68-71% busy (five probes). In five truth passes on 4 GiB, scp kept
 * them 73-76% busy and tar-ssh 71-77%; with every core busy, tar-ssh's
 * prediction ran 0.72-0.75 of the measured time and scp's 0.70 (the fifth
 * pass); with the probe's packing 1.03 and 1.03 (68%), then 0.94 and 0.95
 * (74%). Left at every core:
 * - compressing chains, where zstd's worker threads keep more work ready to
 *   run: zstd-ssh kept the cores 83-87% busy and zstd 81-87%, and the
 *   probe's packing predicted zstd-ssh at 1.21 of its time, past the
 *   misfit, where every core busy read 0.85-0.86;
 * - small files, whose many files in flight do the same: splice and
 *   parallel on 120,000 files kept the cores 88-91% busy, their prediction
 *   with every core busy at 0.93-0.96.
 */
static double stream_packing(const struct run_record *r, const struct probe_results *p)
{
	unsigned cpus = r->local.cpus, flags = r->strategy->flags;
	double busy = p ? p->ssh_cpu_busy : 0;

	if (!(flags & STRATEGY_SSH) || (flags & STRATEGY_COMPRESSED) || !one_machine(r) || cpus < 2 ||
	    r->sent.files == 0 || (double)r->sent.bytes_read / (double)r->sent.files <= SMALL_FILE_BYTES)
		return 1;
	if (!(busy > 1.0 / cpus) || busy >= 1 || !(p->net_bps_1 > p->ssh_bps * (1 + ATTRIBUTION_CEILING_NOISE)))
		return 1;
	return busy;
}

/*
 * The cores left to both ends on one machine: its cores less what processes
 * not ours took meanwhile (foreign_s over the run's seconds), at least one.
 * Those are mostly the kernel's threads doing the run's own work outside
 * our processes (writeback, network receive, the testbed's delayer), which
 * runs on the same cores. Measured in the sixth and seventh truth passes
 * (2026-12-05): zstd-ssh, whose CPU sets its time, read 0.84 of its time
 * on 4 GiB and on 120,000 files with every core counted ours while others
 * took 0.12 and 0.20 cores; at 1 Gbit/s and 2 ms 0.78 while others
 * (there mostly the delayer) took 0.52. Not applied where a chain's
 * packing is measured: the SSH probe's busy share already counts them.
 */
static double cores_left(unsigned cpus, double foreign_s, double seconds)
{
	double left = cpus;

	if (foreign_s > 0 && seconds > 0 && isfinite(foreign_s))
		left -= foreign_s / seconds;
	return left > 1 ? left : 1;
}

/*
 * The cpu stage measured on both ends: the busiest process (CPU seconds over
 * its threads, at most the machine's cores), or one end's processes together
 * over its cores; when both ends are one machine (the testbed), both ends'
 * processes together over its cores as busy as a chain keeps them (packing).
 */
static void cpu_stage(const struct run_record *r, double packing, struct attribution_input *in)
{
	in->cpu_stage_s = -1;
	in->cpu_stage[0] = '\0';
	in->own_cpu_s = r->have_local ? r->local.procs_cpu_s : -1;
	in->own_run_delay_s = r->have_local ? r->local.threads_run_delay_s : -1;
	in->peer_cpu_s = r->have_remote ? r->remote.procs_cpu_s : -1;
	in->peer_busiest[0] = '\0';
	if (r->have_remote)
		for (unsigned i = 0, best = 0; i < r->remote.nprocs; i++)
			if (r->remote.procs[i].cpu_s > r->remote.procs[best].cpu_s || i == 0) {
				best = i;
				snprintf(in->peer_busiest, sizeof(in->peer_busiest), "%s %.1f s",
					 i == 0 ? "the agent" : r->remote.procs[i].name,
					 r->remote.procs[i].cpu_s);
			}
	/* our receivers run in the agent; a real tool's or an SSH pipeline's in its own process */
	bool agent_creates = !(r->strategy->flags & (STRATEGY_SSH | STRATEGY_REFERENCE));

	if (r->have_local)
		end_stage(&r->local, "xfercmp", " here", false, false, in);
	if (r->have_remote)
		end_stage(&r->remote, "the agent", " on the host", true, agent_creates, in);
	bool same = one_machine(r);

	in->foreign_cpu_s = -1;
	if (r->have_local && r->local.cpus > 0)
		in->foreign_cpu_s = r->local.cpu_busy * r->local.cpus * r->local.seconds -
				    r->local.procs_cpu_s - (same ? r->remote.procs_cpu_s : 0);
	if (same && r->local.cpus > 0) {
		unsigned cpus = r->local.cpus;
		double left = cores_left(cpus, in->foreign_cpu_s, r->local.seconds);
		char spread[64];

		if (packing < 1)
			snprintf(spread, sizeof(spread), "%u cores kept %.0f%% busy", cpus, packing * 100);
		else if (left < cpus)
			snprintf(spread, sizeof(spread), "the %.2f of %u cores others left", left, cpus);
		else
			snprintf(spread, sizeof(spread), "%u", cpus);
		consider(in, r->local.procs_cpu_s + r->remote.procs_cpu_s,
			 packing < 1 ? cpus * packing : left, spread,
			 "both ends' processes on this machine", "", true);
	}
}

/*
 * Source and destination on one device: both ends on one machine (one
 * boot id) and their samplers found one disk under the source and the
 * destination's scratch root.
 */
static int one_device(const struct run_record *r)
{
	return one_machine(r) && r->local.has_disk &&
	       r->remote.has_disk && r->local.disk_dev[0] &&
	       !strcmp(r->local.disk_dev, r->remote.disk_dev);
}

/* The one disk read and written at once, at most streams deep: the best such copy probed (0: none). */
static double disk_copy_ceiling(const struct probe_results *p, unsigned streams)
{
	struct probe_rate at[PROBE_DEPTHS_MAX];

	for (unsigned i = 0; i < p->ndisk_at_once; i++)
		at[i] = (struct probe_rate){ .depth = p->disk_at_once[i].depth, .per_s = p->disk_at_once[i].copy_bps };
	return probe_rate_at(at, p->ndisk_at_once, streams);
}

/*
 * Raw TCP streams held back by their window (the probe found one stream
 * window-limited, and these streams carry clearly less than the link): the
 * network ceiling is the link's swept capacity and what the streams carry
 * at their count is their window's cap, so the difference is waited on the
 * window (latency), not on the link. Through sshd the channel's own
 * ceiling stands (ssh_bps). A single stream whose send buffer was sized
 * past the probe's autotuned one (strategy_open_one_stream) carries more a
 * round trip: its cap is what the probe's stream sized the same way
 * carried, or, without that step, the autotuned stream's rate scaled by the
 * two buffers; at most the link.
 */
static void window_ceiling(const struct run_record *r, unsigned streams,
			   const struct probe_results *p, struct ceilings *c)
{
	double at, window = p->window.sndbuf_bytes;

	if (!p->window.limited || (r->strategy->flags & STRATEGY_SSH) || p->nsweep == 0)
		return;
	at = net_sweep_rate_at(p->sweep, p->nsweep, streams) / 8;
	if (streams == 1 && r->sizing.sized && r->sizing.send.request_bytes > 0 &&
	    p->window.sized_bits_per_s > 0) {
		/* measured so: probe_net.c's sized_stream */
		at = fmin(p->net_link_bps, p->window.sized_bits_per_s / 8);
		window = p->window.sized_sndbuf_bytes;
		c->net_bps = fmax(c->net_bps, at);
	} else if (streams == 1 && r->sizing.sized && window > 0 && r->sizing.sndbuf_bytes > window) {
		at = fmin(p->net_link_bps, at * r->sizing.sndbuf_bytes / window);
		window = r->sizing.sndbuf_bytes;
		c->net_bps = fmax(c->net_bps, at);
	}
	if (!(at > 0) || !(p->net_link_bps > at * (1 + NET_SWEEP_GAIN)))
		return;
	c->net_bps = p->net_link_bps;
	c->stream_cap_bps = at;
	if (window > 0)
		c->window_bytes = window;
}

static double positive_or_zero(double v)
{
	return v > 0 ? v : 0;
}

unsigned verdict_create_depth(const struct strategy *s, const struct probe_results *p)
{
	return (s->dest_depth ? s->dest_depth : 1) * streams_of(s, p);
}

double verdict_create_ceiling(const struct strategy *s, const struct probe_results *p)
{
	return p->ncreate_at ? probe_rate_at(p->create_at, p->ncreate_at, verdict_create_depth(s, p))
			     : p->create_per_s;
}

/*
 * Creates probed slower before the run and faster after it bound their
 * ceiling by the run's own rate (verdict_inputs), a prediction fitted to
 * the run. When the recheck's rate as the ceiling, every other stage as
 * measured, explains the run within the misfit, the creates were not what
 * held it, and the recheck stands: the prediction is then made, not
 * fitted. Truth bench of 2026-12-05 (eighth pass, 120,000 files): the
 * probe read 5,572/s one at a time and 25,409/s after tar-ssh's run,
 * which made 11,295 files/s while our sender opened them one at a time
 * (the open probe: 12,203/s); tar-ssh, zstd-ssh and zstd all read
 * "metadata-bound: creates ran at their ceiling", fitted, where the
 * seventh pass had read all three cpu-bound.
 */
static void prefer_the_recheck(struct attribution_input *in, struct ceilings *c)
{
	struct attribution_input measured = *in;
	struct ceilings rechecked = *c;
	struct attribution out;

	measured.create_from_run = false;
	rechecked.create_per_s = in->create_recheck_per_s;
	if (attribution_compute(&measured, &rechecked, &out) < 0 || out.misfit)
		return;
	in->create_from_run = false;
	c->create_per_s = in->create_recheck_per_s;
}

void verdict_inputs(const struct run_record *r, const struct probe_results *p,
		    struct attribution_input *in, struct ceilings *c)
{
	const struct strategy *s = r->strategy;
	unsigned flags = s->flags, streams = streams_of(s, p);

	memset(in, 0, sizeof(*in));
	memset(c, 0, sizeof(*c));
	in->transfer_s = r->transfer_s;
	in->flush_s = r->flush_s;
	in->wall_s = r->transfer_s + r->flush_s;
	in->bytes = r->sent.bytes_read;
	in->wire_bytes = r->sent.wire_bytes;
	in->files = r->sent.files;
	in->round_trips = r->sent.round_trips;
	in->streams = streams;
	in->setup_round_trips = (uint64_t)s->setup_round_trips;
	in->bulk_stream = !s->serial;
	in->structure = s->serial ? ATTR_SERIAL : ATTR_PIPELINE;
	in->dest_is_tmpfs = !strcmp(r->dest_fs, "tmpfs");
	in->src_is_warm = r->warm_source;
	in->shared_disk = one_device(r);
	in->dest_disk_busy = r->have_remote && r->remote.has_disk ? r->remote.disk_busy : -1;
	in->src_disk_busy = r->have_local && r->local.has_disk ? r->local.disk_busy : -1;
	in->cpu_busy = r->have_local ? r->local.cpu_busy : -1;
	cpu_stage(r, stream_packing(r, p), in);

	c->net_bps = streams > 1 && p->net_bps_n > 0 ? p->net_bps_n : p->net_bps_1;
	c->rtt_s = p->rtt_p50_s;
	c->rtt_cpu_s = p->rtt_cpu_s;
	c->request_rtt_s = (flags & STRATEGY_SSH) ? p->sftp_rtt_s : 0;
	c->window_bytes = (flags & STRATEGY_SSH) ? SSH_WINDOW_BYTES : TCP_WINDOW_BYTES;
	window_ceiling(r, streams, p, c);
	c->disk_write_bps = p->disk_write_bps;
	/* several streams read their ranges at once (parallel's large files) */
	c->disk_read_bps = p->nread_at ? probe_rate_at(p->read_at, p->nread_at, streams) : p->disk_read_bps;
	c->disk_copy_bps = disk_copy_ceiling(p, streams);
	/* the ceilings at the files this strategy keeps in flight, all streams together */
	c->create_per_s = verdict_create_ceiling(s, p);
	/*
	 * Measured again after a run that beat the probe, where it ran. The
	 * faster of the two stands, but no faster than the run's own creates
	 * went: a probe right after a mass delete crawls (ext4 without a journal
	 * passes over inodes deleted less than 60 s ago), the window may close
	 * during the run or after it, and in a fresh-clone CI run the recheck
	 * read 18,084 files/s for 20,000 creates the run made in 9.0 s (its
	 * CPU in the kernel's create path; the probe read 1,638/s): creates
	 * fast after the run say nothing of the run. Two measurements on either
	 * side of the run's rate bound it by that rate, taken as the probe takes
	 * its own: to durable, the flush included (creates, then syncfs).
	 */
	if (r->create_rechecked_per_s > c->create_per_s) {
		double made = r->transfer_s + positive_or_zero(r->flush_s);
		double run_rate = made > 0 && r->sent.files > 0 ? (double)r->sent.files / made : 0;

		double probe = c->create_per_s;

		c->create_per_s = run_rate > c->create_per_s ? fmin(r->create_rechecked_per_s, run_rate)
							     : r->create_rechecked_per_s;
		/* the run's own rate stands: the reports must not call it a prediction */
		in->create_from_run = run_rate > probe && run_rate < r->create_rechecked_per_s;
		in->create_probe_per_s = probe;
		in->create_recheck_per_s = r->create_rechecked_per_s;
	}
	c->src_open_per_s = p->nopen_at ? probe_rate_at(p->open_at, p->nopen_at,
							(s->src_depth ? s->src_depth : 1) * streams)
					: p->src_open_per_s;
	c->src_open_cpu_s = p->src_open_cpu_s;
	/* the creates' CPU, on the stage's clock, when the CPU stage holds them (probed on this file system) */
	in->cpu_stage_creates_s = in->cpu_stage_s > 0 && in->cpu_stage_holds_creates &&
						  !strcmp(r->dest_fs, p->dest_fs) ?
					  (double)in->files * positive_or_zero(p->create_cpu_s) /
						  in->cpu_stage_over :
					  0;
	/*
	 * Small files into our own receiver (not a decompressing one): the
	 * agent's CPU in the run is its creates, writes and closes, receiving a
	 * few KiB a file costing little beside them. Measured in the run, where
	 * the probe's tight loop is not the run: a fresh-clone CI run moved
	 * 20,000 files in 10.27 s (1,950/s), both ends 19.2 s of CPU, creates
	 * probed at 3,878/s, the null sink 0.27 s: the run's creates crawled
	 * harder than the probe's.
	 */
	if (in->cpu_stage_creates_s > 0 && !(flags & (STRATEGY_SSH | STRATEGY_REFERENCE | STRATEGY_COMPRESSED)) &&
	    r->have_remote && r->remote.nprocs > 0 && in->files > 0 &&
	    (double)in->bytes / (double)in->files <= SMALL_FILE_BYTES) {
		double agent = r->remote.procs[0].cpu_s / in->cpu_stage_over;

		if (agent > in->cpu_stage_creates_s)
			in->cpu_stage_creates_s = agent;
	}
	in->creates_are_cpu = p->create_cpu_s * p->create_per_s >= 0.5;
	/* our own sender, one thread opening one file at a time (not a real tool's process) */
	in->sender_thread_cpu_s = -1;
	in->sender_run_delay_s = -1;
	if (!(flags & STRATEGY_REFERENCE) && !s->serial && s->src_depth <= 1 && streams == 1 && r->have_local) {
		in->sender_thread_cpu_s = r->local.busiest_thread_cpu_s;
		in->sender_run_delay_s = r->local.busiest_thread_run_delay_s;
		in->sender_own_s = r->sender_own_s;
	}
	c->cpu_bps = (flags & STRATEGY_COMPRESSED) ? p->zstd_bps : 0;
	/*
	 * Through sshd a stream cannot beat the SSH channel's measured ceiling
	 * (cipher, sshd's copies, its 2 MiB window): that is the path's network
	 * ceiling, so the cipher is not counted again as CPU.
	 */
	if ((flags & STRATEGY_SSH) && p->ssh_bps > 0 && (c->net_bps <= 0 || p->ssh_bps < c->net_bps))
		c->net_bps = p->ssh_bps;
	if (in->create_from_run)
		prefer_the_recheck(in, c);
}

bool verdict_compute(const struct run_record *r, const struct probe_results *p,
		     struct attribution *out)
{
	struct attribution_input in;
	struct ceilings c;

	if (!p)
		return false;
	verdict_inputs(r, p, &in, &c);
	return attribution_compute(&in, &c, out) == 0;
}

void verdict_depths(const struct strategy *const *list, size_t n, unsigned streams,
		    struct probe_depths *creates, struct probe_depths *opens,
		    struct probe_depths *reads)
{
	memset(creates, 0, sizeof(*creates));
	memset(opens, 0, sizeof(*opens));
	memset(reads, 0, sizeof(*reads));
	probe_depths_add(creates, 1);
	probe_depths_add(opens, 1);
	probe_depths_add(reads, 1);
	for (size_t i = 0; i < n; i++) {
		unsigned k = (list[i]->flags & STRATEGY_MULTI_STREAM) && streams > 1 ? streams : 1;

		probe_depths_add(creates, (list[i]->dest_depth ? list[i]->dest_depth : 1) * k);
		probe_depths_add(opens, (list[i]->src_depth ? list[i]->src_depth : 1) * k);
		probe_depths_add(reads, k);
	}
}
