#ifndef XFERCMP_PROBES_H
#define XFERCMP_PROBES_H

/*
 * The probes that measure each ceiling before the strategies run, on the
 * same pair of machines (DESIGN.md, "Probes and attribution"): the network
 * (client -> agent, like iperf3 and qperf tcp_lat), the destination disk and
 * metadata (run by the agent), the source disk and metadata, and the cpu
 * (zstd). Every probe is bounded in time (a budget in seconds, at most
 * PROBE_MAX_SECONDS) and in bytes or files (the caps below), and fills only
 * its own fields of struct probe_results. A rate of 0 means "not measured".
 *
 * Client side, here: probe_net.c (network, and the calls to the agent's
 * probes), probe_local.c (source disk, source metadata, zstd), probe_ssh.c,
 * probe_disk_at_once.c (the one disk under both, read and written at once),
 * probe_all.c. Agent side: agent/agent_probes.h (requests "probe_disk" and
 * "probe_create", receivers "discard" and "echo"). The budgets and caps both
 * ends agree on: probe_limits.h.
 */

#include "probe/net_sweep.h"
#include "stream/probe_limits.h"
#include "workload_counts.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

struct agent_client;
struct manifest;

/* A rate measured with `depth` operations in flight (threads). */
struct probe_rate {
	unsigned depth;
	double per_s;
};

/* The concurrencies one metadata probe measures at, ascending, without repeats; 1 always first. */
struct probe_depths {
	unsigned n;
	unsigned depth[PROBE_DEPTHS_MAX];
};

/*
 * Adds depth (clamped to 1..PROBE_MAX_DEPTH) to d, keeping it ascending and
 * without repeats; when d is full the largest depth is replaced only by a
 * larger one. Depth 1 is added first by an empty d.
 */
void probe_depths_add(struct probe_depths *d, unsigned depth);

/*
 * The ceiling at depth: the best rate measured at that depth or below (a
 * strategy with more in flight can do at least what fewer did; on a shared
 * machine one probe of a fraction of a second may meet another job's
 * syncfs), or the rate at the smallest measured depth when none is at or
 * below. 0 when nothing was measured.
 */
double probe_rate_at(const struct probe_rate *rates, unsigned n, unsigned depth);

/*
 * The one disk under source and destination, read and written at once: as
 * many bytes read cold as written to durable, begun together.
 */
struct probe_disk_at_once {
	unsigned depth;		/* the streams the source was read with */
	double read_bps;	/* the cold read, bytes/s over its own time */
	double write_bps;	/* the durable write (fsync included), bytes/s over its own time */
	double copy_bps;	/* bytes/s each way over the time until both were done: a copy's */
};

struct probe_results {
	double net_bps_1, net_bps_n;	/* TCP memory-to-memory bytes/s, 1 stream and net_streams (client→agent) */
	unsigned net_streams;		/* the streams the multi-stream strategies run with (-P, or what auto chose) */
	struct net_sweep_step sweep[NET_SWEEP_MAX_STEPS];	/* 1, 2, 4, ... streams until the link saturates */
	unsigned nsweep;
	enum net_sweep_stop sweep_stop;	/* why the sweep ended */
	unsigned net_saturation;	/* the fewest streams that carry the link (net_sweep_saturation) */
	double net_link_bps;		/* the best the sweep measured, bytes/s: the link's capacity */
	struct net_window window;	/* what bounds one stream: its buffer, the round trip */
	double rtt_p50_s, rtt_p99_s;	/* TCP round trip, 1-byte ping-pong on an established connection */
	double rtt_cpu_s;		/* the p50's part that both ends' CPU took of those trips' time (0 = unknown) */
	char net_peer[96];		/* the agent's address those were measured to: "[2001:2::2]:42277"
					 * (" through ssh" after it when they went through ssh) */
	char net_iface[32];		/* this machine's interface on that path ("" if unknown) */
	double disk_write_bps;		/* destination: sequential write to durable (fsync included), by the agent */
	uint64_t disk_write_bytes;	/* what that probe wrote */
	double create_per_s;		/* destination: open+write(4 KiB)+close of small files then syncfs, by the agent, one at a time */
	struct probe_rate create_at[PROBE_DEPTHS_MAX];	/* the same at each depth asked (create_at[0] is depth 1) */
	struct probe_rate create_made_at[PROBE_DEPTHS_MAX];	/* the creates alone at those depths, the syncfs left out (0: not said) */
	unsigned ncreate_at;
	double create_cpu_s;		/* the agent's CPU one of those creates took at depth 1 (0 = unknown) */
	double disk_read_bps;		/* source: cold sequential read of the largest workload files, one stream */
	struct probe_rate read_at[PROBE_DEPTHS_MAX];	/* bytes/s with that many streams reading at once */
	unsigned nread_at;
	struct probe_disk_at_once disk_at_once[PROBE_DEPTHS_MAX];	/* at each read depth; none when not one disk */
	unsigned ndisk_at_once;
	double src_open_per_s;		/* source: cold open+fstat+read+close of small files, one at a time */
	double src_open_cpu_s;		/* the CPU one of those took (mean, one at a time; 0 = unknown) */
	struct probe_rate open_at[PROBE_DEPTHS_MAX];	/* the same at each depth asked */
	unsigned nopen_at;
	double zstd_bps;		/* zstd at the given level and threads on a sample of the workload (input bytes/s) */
	double zstd_ratio;		/* input/output on that sample */
	double zstd_cpu_per_byte;	/* the CPU its threads spent a byte of input, all of them (0 = unknown) */
	double unzstd_bps;		/* one thread decompressing that sample (output bytes/s; 0 = unknown) */
	double ssh_bps;			/* SSH exec channel throughput with the negotiated cipher */
	double ssh_cpu_busy;		/* the share of this machine's cores busy meanwhile (0 = unknown) */
	double sftp_rtt_s;		/* one SFTP request round trip (stat), p50 */
	char ssh_cipher[64];
	char dest_fs[32];
	/* the pair of hosts (probe_hosts), known before any strategy runs */
	bool one_disk;			/* source and destination on one disk (probe_one_disk) */
	bool one_machine;		/* both ends on one machine (one boot id): they share its cores */
	unsigned cores_local, cores_remote;
	double dest_dirty_bytes;	/* the destination's background dirty threshold (sample/dirty_limit.h); 0 = unknown */
};

/* Source disk: only files at least this large are read; at most this many bytes at each depth. */
#define PROBE_READ_MIN_FILE (8ull << 20)
#define PROBE_READ_MAX_BYTES (1ull << 30)
/* Source metadata: at most this many files, each at most this large. */
#define PROBE_OPEN_MAX_FILES 2000u
#define PROBE_OPEN_MAX_SIZE WORKLOAD_SMALL_FILE_BYTES
/* zstd: the sample's size, and the most input compressed in all passes. */
#define PROBE_ZSTD_SAMPLE_BYTES (64u << 20)
#define PROBE_ZSTD_MAX_INPUT (4ull << 30)

/*
 * Network, client -> agent, over a = an open control session. Prepares a job
 * (strategy name "probe"), then: PROBE_RTT_COUNT 1-byte ping-pongs with the
 * "echo" receiver (fewer if `seconds` runs out); then the stream sweep into
 * the agent's "discard" receiver, 1, 2, 4, ... streams (each in its own
 * thread) until a step gains less than NET_SWEEP_GAIN or PROBE_NET_MAX_STREAMS
 * is measured (net_sweep_next), or the budget ends: 2 x `seconds` (what
 * the 1-stream and n-stream phases took before the sweep, without their
 * connection set-up), each step measuring for 1 / PROBE_NET_SWEEP_SLOTS of
 * it, its connections' set-up counted in the budget; then removes the job, also after a failure. A step's rate is what
 * its streams sent after a warm-up (slow start; a quarter of the step, at
 * least ten round trips, at most half of it) over the time they sent it,
 * and the agent must have received every byte sent. Fills sweep, nsweep,
 * net_saturation, net_link_bps, net_bps_1, window (the one stream's
 * SO_SNDBUF, tcp_wmem and tcp_rmem maxima, the round trip, judged),
 * net_bps_n at `streams` (0: at the saturation point; net_streams says
 * which), rtt_p50_s, rtt_p99_s, dest_fs, net_peer and net_iface (the local
 * interface of the route to the agent, IPv4 or IPv6). `streams` is 0 to
 * PROBE_NET_MAX_STREAMS. Returns 0 or -1 (error set).
 */
int probe_network(struct agent_client *a, unsigned streams, double seconds,
		  struct probe_results *r);

/*
 * Destination disk and metadata: asks the agent for "probe_disk" and
 * "probe_create" with that budget each and default caps. Fills
 * disk_write_bps, disk_write_bytes, create_per_s, create_at and dest_fs.
 * disk_bytes 0 is the default write (up to PROBE_DISK_DEFAULT_BYTES within
 * the budget); otherwise the disk probe writes that much, given up to
 * PROBE_MAX_SECONDS. The creates are measured at each of creates' depths
 * (NULL: depth 1), the budget shared between them, so the phase takes no
 * longer than one probe did. Returns 0 or -1 (error set).
 */
int probe_destination(struct agent_client *a, double seconds, uint64_t disk_bytes,
		      const struct probe_depths *creates, struct probe_results *r);

/*
 * Source disk and metadata, on the workload at src_root described by m; only
 * reads. "Cold" means what the runner does before each strategy: dirty pages
 * written back (syncfs), then each file's pages dropped (posix_fadvise
 * DONTNEED); inodes and dentries stay cached, as they do for the strategies.
 * - disk_read_bps: sequential 1 MiB reads of the largest files (each at least
 *   PROBE_READ_MIN_FILE), up to PROBE_READ_MAX_BYTES or `seconds`; left 0
 *   when the workload has no such file.
 * - src_open_per_s: open+fstat+read+close, on one thread in path order, of
 *   up to PROBE_OPEN_MAX_FILES files of at most PROBE_OPEN_MAX_SIZE sampled
 *   evenly across m, for at most `seconds`; left 0 when there is none.
 * What was read is dropped again afterwards. Returns 0 or -1 (error set).
 */
int probe_source(const char *src_root, const struct manifest *m, double seconds,
		 struct probe_results *r);

/*
 * probe_source with the opens measured at each of opens' depths (NULL:
 * depth 1) into open_at: each depth reads its own share of the sample (so
 * each reads cold) on that many threads, in its share of the budget; and
 * the cold read at each of reads' depths (NULL: 1) into read_at: depth 1
 * in order, a deeper one as that many streams reading 8 MiB pieces at once,
 * each depth on bytes the ones before left cold.
 */
int probe_source_at(const char *src_root, const struct manifest *m, double seconds,
		    const struct probe_depths *opens, const struct probe_depths *reads,
		    struct probe_results *r);

/*
 * A cold read of the workload's largest files (those probe_source reads) on
 * `depth` threads in 8 MiB pieces, each dropped as read, on a thread of its
 * own: what the source gives while something else runs. *bytes is asked,
 * and set to what will be read: whole pieces, no more than the files hold
 * (*out NULL and 0 returned when that is none). _wait waits for the last
 * byte, sets *end to its time (clock_now) and *bytes to what was read,
 * drops it all again and frees rd. Both return 0 or -1 (error set).
 */
struct probe_cold_reader;
int probe_cold_reader_start(const char *src_root, const struct manifest *m, unsigned depth,
			    uint64_t *bytes, struct probe_cold_reader **out);
int probe_cold_reader_wait(struct probe_cold_reader *rd, uint64_t *end_ns, uint64_t *bytes);

/*
 * Whether the source at src_root and the agent's root (info: the agent's
 * "info" answer, with boot_id and root_device) lie on one disk of one
 * machine: the same boot id and the same block device.
 */
bool probe_one_disk(const char *src_root, json_object *agent_info);

/*
 * The one disk under source and destination reading and writing at once: at
 * each of reads' depths (NULL: 1), the cold reader reads the source while
 * the agent's "probe_disk" writes as many bytes to durable, both begun
 * together, timed to the last of them. The bytes are what the depth's share
 * of `seconds` holds were the two done in turn at their rates probed alone
 * (probe_source and probe_destination first), at least 8 MiB and at most
 * PROBE_READ_MAX_BYTES. Fills disk_at_once; nothing when no file is large
 * enough to read. Returns 0 or -1 (error set).
 */
int probe_disk_at_once(struct agent_client *a, const char *src_root, const struct manifest *m,
		       double seconds, const struct probe_depths *reads, struct probe_results *r);

/*
 * cpu: a sample of up to PROBE_ZSTD_SAMPLE_BYTES of the workload's content
 * (64 windows evenly spaced through the files in manifest order, read for at
 * most `seconds`), compressed with zstd's streaming API at `level` (0 is
 * zstd's default, 3) with `threads` worker threads (0: in the calling
 * thread) and the content checksum on, as the zstd strategies do, one frame
 * per pass, passes repeated for `seconds`. Fills zstd_bps (input bytes per
 * second of compression), zstd_ratio (input / output), zstd_cpu_per_byte
 * (the process's CPU over those passes, all of zstd's threads, a byte of
 * input) and unzstd_bps (probe_unzstd); all stay 0 for an empty workload.
 * Returns 0 or -1 (error set).
 */
int probe_zstd(const char *src_root, const struct manifest *m, int level, unsigned threads,
	       double seconds, struct probe_results *r);

/*
 * The receiver's side of the zstd probe (probe_unzstd.c): compresses up to
 * 16 MiB of sample[0..len) into one frame at `level`, then decompresses it
 * on one thread, again and again for at most `seconds` (and a quarter of a
 * second). Sets *bps (output bytes per second; 0 for an empty sample).
 * Returns 0 or -1 (error set).
 */
int probe_unzstd(const unsigned char *sample, size_t len, int level, double seconds, double *bps);

/*
 * The results for the report, a new object owned by the caller: keys
 * network_bps_1, network_bps_n, network_streams, rtt_p50_s, rtt_p99_s,
 * disk_write_bps, create_per_s, disk_read_bps, source_open_per_s, zstd_bps,
 * zstd_ratio, dest_fs, and create_at / open_at / read_at ([{depth, per_s}]).
 */
/*
 * SSH: the exec channel's throughput (into `cat > /dev/null` on the host,
 * for `seconds`) and the p50 of 200 SFTP stat round trips. Fills ssh_bps,
 * sftp_rtt_s and ssh_cipher. Returns 0 or -1 (error set).
 */
struct ssh_session_struct;
int probe_ssh(struct ssh_session_struct *session, double seconds, struct probe_results *r);

/*
 * The pair of hosts from the agent's "info" answer (may be NULL: an older
 * agent) and one_disk: fills one_disk, one_machine, cores_local,
 * cores_remote and dest_dirty_bytes.
 */
void probe_hosts(json_object *agent_info, bool one_disk, struct probe_results *r);

/* The probes probe_all runs, in this order (those a plan leaves out are skipped). */
enum probe_kind { PROBE_NETWORK, PROBE_DESTINATION, PROBE_SOURCE, PROBE_SHARED_DISK, PROBE_ZSTD, PROBE_SSH,
		  PROBE_KINDS };

/*
 * One probe beginning or ending, told to a plan's progress: a caller's
 * live view names the probe as it runs and shows what it measured.
 */
struct probe_step {
	enum probe_kind kind;
	const char *name;	/* "network", "destination", "source", "shared disk", "zstd", "ssh" */
	unsigned index, count;	/* its place among the probes the plan runs, from 1 */
	const struct probe_results *done;	/* NULL as it begins; once it ended, the results so far */
};

/* What probe_all measures, and with what. */
struct probe_plan {
	struct agent_client *agent;
	const char *src_root;
	const struct manifest *manifest;
	struct ssh_session_struct *ssh_session;	/* NULL: no SSH probes */
	unsigned streams;	/* the network ceiling is reported at this many streams; 0: the saturation point */
	int zstd_level;
	unsigned zstd_threads;
	double seconds;		/* budget of each probe */
	uint64_t disk_bytes;	/* the destination disk probe writes this much; 0: default */
	bool warm_source;	/* skip probe_source: it would leave the source cold */
	bool one_disk;		/* source and destination on one disk (probe_one_disk): probe_disk_at_once */
	json_object *agent_info;	/* the agent's "info" answer, for probe_hosts (may be NULL) */
	struct probe_depths creates, opens, reads;	/* the concurrencies the strategies use; n 0: depth 1 */
	/*
	 * Told as each probe begins and as it ends, not after a failure (may
	 * be NULL); called on the probing thread, with progress_ctx.
	 */
	void (*progress)(void *ctx, const struct probe_step *step);
	void *progress_ctx;
};

/*
 * The probes plan runs, in all: one_disk, warm_source and ssh_session are
 * to be set before the network probe for its step to count them.
 */
unsigned probe_plan_count(const struct probe_plan *plan);

/*
 * Runs every probe: network, destination disk and creates, source reads
 * (unless the source is to stay warm), zstd, and SSH when there is a
 * session; plan's progress is told of each. Returns 0 or -1 (error set,
 * naming the probe).
 */
int probe_all(const struct probe_plan *plan, struct probe_results *r);

/*
 * probe_all in two: the network (r cleared first), then the rest, so a
 * caller can choose the streams from the sweep between them (-P auto) and
 * set the depths the rest measure at.
 */
int probe_all_network(const struct probe_plan *plan, struct probe_results *r);
int probe_all_rest(const struct probe_plan *plan, struct probe_results *r);

json_object *probe_results_json(const struct probe_results *r);

/*
 * Sets net_streams to `streams` (what -P auto chose, or -P) and net_bps_n to
 * the swept rate there (net_sweep_rate_at), when there was a sweep.
 */
void probe_results_set_streams(struct probe_results *r, unsigned streams);

#endif
