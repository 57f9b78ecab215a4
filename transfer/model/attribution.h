#ifndef XFERCMP_ATTRIBUTION_H
#define XFERCMP_ATTRIBUTION_H

/*
 * Which resource bounded a run, and how long the run should have taken:
 * pure arithmetic over the probes' ceilings, what the run moved, the CPU
 * its processes were measured to use, and the strategy's structure.
 *
 * The stages. For each resource, the time it would need at its measured
 * ceiling to do this run's work ("need", seconds):
 *
 *   network   wire_bytes / net_bps (net_bps is the ceiling at the stream
 *             count and path the strategy uses: -P streams, the SSH channel).
 *   latency   round_trips * request_rtt_s (rtt_s when that is 0): requests
 *             the strategy waited on one after another (scp's open, write
 *             acknowledgement and close of each file), plus
 *             setup_round_trips * rtt_s (connection, channel and job
 *             handshakes, per stream in series) and, for a bulk stream, the
 *             round trips of slow start up to the window (log2 of the
 *             window over ten segments), plus, for streams held back by
 *             their window (stream_cap_bps below net_bps, the link's
 *             swept capacity), the time they wait on it beyond the slowest
 *             overlapped stage (attribution_window.h).
 *   disk      max(bytes / disk_write_bps, bytes / disk_read_bps): the reads
 *             and the writes run at once, on two disks. On one device
 *             (shared_disk: the testbed, a copy within one machine) they
 *             share its time and add: bytes / disk_read_bps + bytes /
 *             disk_write_bps. Measured here: 2 GiB through splice, each
 *             probed alone at 1.44 GB/s cold read and 1.41 GB/s durable
 *             write, read and wrote 0.77 GB/s each at once (1.54 GB/s in
 *             all, the disk 90% busy): the device's budget, not either
 *             rate, set the time. The sum needs 8-10% more than such a run
 *             took (the device overlaps a little of its reads and writes),
 *             which is no ceiling contradicted: each term is tested against
 *             the wall time alone. The write term is 0 for a tmpfs
 *             destination, the read term 0 for a warm source.
 *   metadata  files / create_per_s and files / src_open_per_s, each ceiling
 *             measured at the concurrency the strategy keeps in flight
 *             (verdict.c picks it): in a pipeline the source's opens and the
 *             destination's creates overlap (max), in series they add.
 *   cpu       max(bytes / cpu_bps + wire_bytes / cipher_bps, cpu_stage_s):
 *             the compressor's and cipher's ceilings, or the busiest
 *             CPU-bound stage as measured (a process's CPU seconds over the
 *             cores it could use; on one machine both ends' processes
 *             together over its cores), whichever is longer.
 *
 * A ceiling that is 0, negative or not finite is unknown and its term is 0
 * (never a division by zero).
 *
 * The prediction. A pipeline (tar | ssh | tar, the raw streams) overlaps its
 * stages: predicted = latency + max(network + flush, disk, metadata,
 * cpu + flush), and the largest of those sets it. flush is the run's
 * measured flush phase (its syncfs, timed after the transfer): the network
 * and the CPU stages end with the transfer's last byte and the flush then
 * waits in series; the disk and metadata ceilings were probed to durable
 * (write + fsync, creates + syncfs) and hold their flush already. It is 0
 * for a tmpfs destination (no disk waited on); the flush's share is the
 * disk's. A serial strategy (scp: each file opened, sent
 * and closed before the next) waits for each stage in turn: predicted =
 * max(latency + network + disk + metadata, cpu) (its processes' CPU is spent
 * inside those waits). The verdict is the stage that sets the predicted
 * time. A stage whose need exceeds the measured wall time (by more than
 * ATTRIBUTION_CEILING_NOISE) ran faster than its ceiling says it can, so
 * its ceiling is wrong for this run (a probe on a busy machine, a
 * concurrency it did not measure): the note says so and the prediction is
 * made without that stage (its need reads 0), so it is never the verdict
 * nor named in the reason.
 *
 * Shares of the measured wall time: the stages on the critical path (in a
 * pipeline latency and the bound stage, and the flush after a network or cpu
 * stage as the disk's, in series every addend, or cpu
 * alone when it is longer) as need / max(wall, predicted), the rest 0;
 * other = the wall time the prediction does not explain (0 when the run was
 * faster than predicted). They are never scaled to fit: when predicted and
 * measured differ by more than ATTRIBUTION_MISFIT the note says so and
 * names the unexplained time. Every share is in [0, 1] and they sum to at
 * most 1 (to 1 when the prediction is not above the wall).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum resource {
	RES_NETWORK,
	RES_LATENCY,
	RES_DISK,
	RES_METADATA,
	RES_CPU,
	RES_COUNT	/* as a share index: "other"; as a verdict: nothing attributable */
};

/* How a strategy's stages combine (struct strategy's .structure). */
enum attribution_structure {
	ATTR_PIPELINE,	/* stages overlap: the slowest sets the time */
	ATTR_SERIAL,	/* each file waits for every stage in turn: they add */
};

/* Predicted and measured differ by more than this fraction of the measured time: a misfit. */
#define ATTRIBUTION_MISFIT 0.25
/*
 * A stage whose need exceeds the wall time by more than this fraction ran
 * faster than its ceiling allows: that ceiling is wrong for this run. Within
 * it, the two are one rate measured twice (a probe of 2 s and a run).
 */
#define ATTRIBUTION_CEILING_NOISE 0.10

/* What the probes measured on this pair of machines. 0 = not measured. */
struct ceilings {
	double net_bps;		/* bytes/s for the stream count and path used */
	double rtt_s;		/* TCP round trip, p50 */
	double rtt_cpu_s;	/* the CPU both ends spend on one such round trip (0 = unknown):
				   a transfer's processes are charged for it in their own CPU */
	double request_rtt_s;	/* one round trip of the strategy's per-file protocol
				   (SFTP request); 0 = use rtt_s */
	double window_bytes;	/* the flow-control window one stream may have in flight
				   (what bounds it on a long link); 0 = unbounded */
	double stream_cap_bps;	/* bytes/s the strategy's streams were measured to carry when
				   their window, not the link (net_bps), bounds them; 0 = not */
	double disk_write_bps;	/* destination sequential write to durable */
	double disk_read_bps;	/* source cold sequential read */
	double disk_copy_bps;	/* one disk under source and destination, read cold and written to
				   durable at once: bytes/s each way (0 = not measured) */
	double create_per_s;	/* destination creates at the strategy's concurrency */
	double src_open_per_s;	/* source cold opens at the strategy's concurrency */
	double src_open_cpu_s;	/* the CPU of one such open, one at a time (0 = unknown) */
	double cpu_bps;		/* compression throughput (content bytes/s); 0 = not compressed */
	double cipher_bps;	/* 0 = no encryption counted */
};

/* What one run did. */
struct attribution_input {
	double wall_s;		/* 0 = transfer_s + flush_s */
	double transfer_s, flush_s;
	uint64_t bytes;		/* content */
	uint64_t wire_bytes;
	uint64_t files;
	uint64_t round_trips;	/* requests that waited on the peer (per-file protocols) */
	uint64_t setup_round_trips;	/* handshakes waited in series */
	unsigned streams;	/* TCP streams at once (slow start and the window are per stream); 0 = 1 */
	bool bulk_stream;	/* a stream that ramps up through slow start (not request/reply) */
	enum attribution_structure structure;
	int dest_is_tmpfs;	/* no disk at the destination */
	int src_is_warm;	/* source in the page cache: its disk is not read */
	int shared_disk;	/* source and destination on one device: its reads and writes add */
	/* measured: the busiest CPU-bound stage, seconds (negative = unknown), and its name */
	double cpu_stage_s;
	char cpu_stage[128];
	double cpu_stage_over;	/* the cores (or threads) that stage's CPU is spread over, as busy as they were kept */
	bool cpu_stage_holds_creates;	/* it holds the process that creates the destination's files */
	/*
	 * Of cpu_stage_s, the seconds that are the destination's creates: files
	 * x the create probe's CPU each, or for small files into our receiver
	 * the agent's CPU in the run when more, over the stage's cores (0 =
	 * none, or not measured). A create, its write and close are CPU in the
	 * kernel.
	 */
	double cpu_stage_creates_s;
	bool creates_are_cpu;	/* the create probe's creates were mostly CPU (at least half their time) */
	/*
	 * measured: CPU seconds of all our processes (own_cpu_s) and of the
	 * host's (peer_cpu_s, the per-request work a serial strategy waits on),
	 * and the host's busiest process for the reason; negative = unknown.
	 */
	double own_cpu_s, peer_cpu_s;
	/* measured: what our process's threads waited for a core, in all (negative: unknown) */
	double own_run_delay_s;
	char peer_busiest[64];
	/*
	 * measured: the CPU seconds of our sender's busiest thread, when one
	 * thread opens and reads the source one file at a time (tar-ssh,
	 * zstd-ssh, zstd); negative = not such a sender, or unknown. That
	 * thread waits each cold open in turn beside its own work.
	 */
	double sender_thread_cpu_s;
	double sender_run_delay_s;	/* what that thread waited for a core (0 or negative: none or unknown) */
	/*
	 * measured: that sender's own stage, its time less what it waited for
	 * the next stage to take its bytes (send_stats.own_s): its CPU, its
	 * waits for a core, and the source's opens and reads as they went in
	 * the run, beside whatever else the disk did. 0 or negative: unknown,
	 * and the opens are taken at their probed rate.
	 */
	double sender_own_s;
	/* measured: CPU seconds the machine spent on processes not ours meanwhile (a shared machine) */
	double foreign_cpu_s;
	/*
	 * The create ceiling is this run's own rate (verdict.c: the probe before
	 * the run read slower, the recheck after it faster): its rates, for the
	 * note; create_from_run false when the ceiling is a probe's.
	 */
	bool create_from_run;
	double create_probe_per_s, create_recheck_per_s;
	/* measured, optional (negative = unknown), fractions in [0, 1], quoted in reasons: */
	double dest_disk_busy;
	double src_disk_busy;
	double cpu_busy;	/* machine-wide */
};

struct attribution {
	double need_s[RES_COUNT];
	double share[RES_COUNT + 1];	/* network, latency, disk, metadata, cpu, other */
	double predicted_s;		/* from the ceilings and the structure; 0 = nothing measured */
	double measured_s;		/* the wall time */
	bool misfit;			/* |predicted - measured| > ATTRIBUTION_MISFIT * measured */
	/*
	 * The bound stage's ceiling was taken from this run itself (the create
	 * rate between a slower probe and a faster recheck): predicted_s then
	 * equals the run by construction and checks nothing. Said in the note;
	 * the reports show no ratio for it.
	 */
	bool fitted;
	enum resource bound;		/* the stage that sets predicted_s (RES_COUNT: none) */
	/*
	 * The CPU stage set the time and the destination's creates were most
	 * of it (attribution_input's cpu_stage_creates_s; attribution.c's
	 * creates_on_cpu() says when): those seconds; the verdict, the bound
	 * and that share are metadata's. 0 otherwise.
	 */
	double creates_on_cpu_s;
	enum resource verdict;		/* RES_COUNT when no stage explains the run */
	unsigned understated;		/* 1 << resource: ceilings this run contradicted, left out */
	char reason[256];		/* one line with the numbers behind the verdict */
	char note[512];			/* the misfit and understated ceilings; "" when none */
};

/*
 * Fills out from the model above. Returns 0, or -1 (error set) when the wall
 * time is not positive or not finite.
 */
int attribution_compute(const struct attribution_input *in, const struct ceilings *c,
			struct attribution *out);

/*
 * The stages' needs (need[RES_COUNT]) and the predicted time; *bound (may be
 * NULL) is set to the stage that sets it (RES_COUNT when every need is 0).
 * Stages in drop (1 << resource, struct attribution's understated) are left
 * out. Needs nothing measured after the run but the processes' CPU: what-if
 * uses it.
 */
double attribution_predict(const struct attribution_input *in, const struct ceilings *c,
			   unsigned drop, double need[RES_COUNT], enum resource *bound);

/* Another link: its rate (bits/s) and round trip; 0 keeps what was measured. */
struct what_if {
	double rate_bits_per_s;
	double rtt_s;
};

/*
 * The ceilings of the same run on the link w: the network ceiling is the
 * lowest of w's rate, the measured path ceiling (the SSH channel's cipher
 * and copies do not get faster on a slower link) and streams windows per
 * round trip; a request round trip keeps the time the peer measured to spend
 * on it beyond the TCP round trip (sshd and sftp-server's work) and gets
 * w's round trip for the rest. Disk, metadata and cpu stay as measured.
 */
void attribution_what_if_ceilings(const struct attribution_input *in, const struct ceilings *c,
				  const struct what_if *w, struct ceilings *out);

/* attribution_predict on attribution_what_if_ceilings. */
double attribution_what_if(const struct attribution_input *in, const struct ceilings *c,
			   unsigned drop, const struct what_if *w);

/*
 * Parses one scenario "rate=1gbit,rtt=20ms" (either key may be left out,
 * not both; rate in bit, kbit, mbit, gbit or tbit per second, decimal
 * prefixes; rtt in us, ms or s). Returns 0, or -1 (error set naming the
 * part that is wrong).
 */
int attribution_parse_what_if(const char *text, struct what_if *out);

/* "on a 1 Gbit/s, 20 ms link", "on a 1 Gbit/s link", "on the measured link with a 2 ms round trip". */
const char *attribution_what_if_label(const struct what_if *w, char *buf, size_t len);

/* "network", "latency", "disk", "metadata", "cpu"; "other" for RES_COUNT. */
const char *attribution_resource_name(enum resource r);

/* "network-bound", ..., "cpu-bound"; "unattributed" for RES_COUNT. */
const char *attribution_verdict_name(enum resource r);

/* "1 h 12 min", "9 min 4 s", "12.3 s", "0.41 s" into buf. */
const char *attribution_format_seconds(double s, char *buf, size_t len);

/*
 * Writes one line saying whether compressing this data pays on this link:
 * "compression pays below X Gbit/s for this data (ratio R, zstd at S MB/s)"
 * followed by what it would do on the measured link (c->net_bps). ratio is
 * content bytes / compressed bytes and compress_bps the compressor's content
 * throughput, both measured on a sample of the data. The derivation is in
 * attribution_text.c.
 */
void attribution_recommend(const struct attribution_input *in, const struct ceilings *c,
			   double compress_ratio, double compress_bps, char *out, size_t len);

#endif
