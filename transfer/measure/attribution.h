#ifndef XFERCMP_ATTRIBUTION_H
#define XFERCMP_ATTRIBUTION_H

/*
 * Which resource bounded a run: pure arithmetic over the probes' ceilings and
 * what the run moved, optionally cross-checked with what the samplers measured.
 *
 * The model. For each resource, the time it would need at its measured
 * ceiling to do this run's work ("need", seconds):
 *
 *   network   wire_bytes / net_bps. When the measured link utilization is
 *             known, need = max(model, net_util * wall): the link was busy
 *             at least that long.
 *   disk      max(bytes / disk_write_bps, bytes / disk_read_bps): a pipeline
 *             reads and writes at once, so the slower side bounds it. The
 *             write term is 0 when the destination is tmpfs. Measured
 *             evidence raises it: need = max(model, dest_disk_busy * wall,
 *             src_disk_busy * wall, flush_s) — the flush phase (syncfs) is
 *             time the destination disk alone was working. dest_disk_busy and
 *             flush_s are ignored for a tmpfs destination; the read term
 *             and src_disk_busy for a warm source (what the source's
 *             sampler saw was another reader or, on one machine, the
 *             destination's writes).
 *   metadata  files / create_per_s + files / src_open_per_s (per-file work
 *             at both ends; no open term for a warm source) + round_trips * (request_rtt_s, or rtt_s when
 *             that is 0): every request that waits on the peer is per-file
 *             latency (scp's open, write and close each wait).
 *   cpu       bytes / cpu_bps (compression) + wire_bytes / cipher_bps
 *             (encryption). The machine-wide cpu_busy is not added to it: a
 *             machine fraction cannot tell compression from the kernel's
 *             per-file or copy work, which the other resources already
 *             count; it is quoted in the reason instead.
 *
 * A ceiling that is 0, negative or not finite is unknown and its term is 0
 * (never a division by zero).
 *
 * Shares of the wall time: s_r = need_r / wall. Resources of a pipeline
 * overlap, so when the s_r sum past 1 they are scaled to sum to 1 and "other"
 * is 0; otherwise other = 1 - sum (the time no ceiling explains: setup,
 * stalls, a ceiling not measured). Every share is in [0, 1] and the shares
 * sum to 1. The verdict is the resource with the largest need.
 */

#include <stddef.h>
#include <stdint.h>

enum resource {
	RES_NETWORK,
	RES_DISK,
	RES_METADATA,
	RES_CPU,
	RES_COUNT	/* as a share index: "other"; as a verdict: nothing attributable */
};

/* What the probes measured on this pair of machines. 0 = not measured. */
struct ceilings {
	double net_bps;		/* TCP memory-to-memory, bytes/s, for the stream count used */
	double rtt_s;		/* TCP round trip, p50 */
	double request_rtt_s;	/* one round trip of the strategy's per-file protocol
				   (SFTP request); 0 = use rtt_s */
	double disk_write_bps;	/* destination sequential write to durable */
	double disk_read_bps;	/* source cold sequential read */
	double create_per_s;	/* destination create rate (open+write+close, then syncfs) */
	double src_open_per_s;	/* source open+stat rate, cold */
	double cpu_bps;		/* compression throughput (content bytes/s) at the chosen level
				   with the threads used; 0 = not compressed */
	double cipher_bps;	/* 0 = no encryption */
};

/* What one run did. */
struct attribution_input {
	double wall_s;		/* 0 = transfer_s + flush_s */
	double transfer_s, flush_s;
	uint64_t bytes;		/* content */
	uint64_t wire_bytes;
	uint64_t files;
	uint64_t round_trips;	/* requests that waited on the peer (per-file protocols) */
	int dest_is_tmpfs;	/* no disk at the destination */
	int src_is_warm;	/* source in the page cache: its disk is not read */
	/* measured, optional (negative = unknown), fractions in [0, 1]: */
	double dest_disk_busy;
	double src_disk_busy;
	double net_util;
	double cpu_busy;	/* machine-wide, for the reason text only */
};

struct attribution {
	double need_s[RES_COUNT];
	double share[RES_COUNT + 1];	/* network, disk, metadata, cpu, other: sums to 1 */
	enum resource verdict;		/* RES_COUNT when every need is 0 */
	char reason[256];		/* one line with the numbers behind the verdict */
};

/*
 * Fills out from the model above. Returns 0, or -1 (error set) when the wall
 * time is not positive or not finite.
 */
int attribution_compute(const struct attribution_input *in, const struct ceilings *c,
			struct attribution *out);

/* "network", "disk", "metadata", "cpu"; "other" for RES_COUNT. */
const char *attribution_resource_name(enum resource r);

/* "network-bound", "disk-bound", "metadata-bound", "cpu-bound"; "unattributed" for RES_COUNT. */
const char *attribution_verdict_name(enum resource r);

/*
 * Writes one line saying whether compressing this data pays on this link:
 * "compression pays below X Gbit/s for this data (ratio R, zstd at S MB/s)"
 * followed by what it would do on the measured link (c->net_bps). ratio is
 * content bytes / compressed bytes and compress_bps the compressor's content
 * throughput, both measured on a sample of the data. The derivation is in
 * attribution.c.
 */
void attribution_recommend(const struct attribution_input *in, const struct ceilings *c,
			   double compress_ratio, double compress_bps, char *out, size_t len);

#endif
