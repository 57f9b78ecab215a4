#ifndef XFERCMP_STRATEGY_H
#define XFERCMP_STRATEGY_H

/*
 * A strategy is one way of moving a tree to the destination: a struct of
 * function pointers, one file per strategy, all listed in table.c. The
 * runner knows nothing strategy-specific: it prepares a fresh destination,
 * makes the source cold, times run(), then flushes, verifies and removes the
 * destination through the agent.
 *
 * Adding a strategy, step by step (take zstd.c or scp.c as the example):
 *
 *  1. Create transfer/strategy/NAME.c (one file per strategy; the real-*
 *     ones of one family share a file). Its opening comment says what the
 *     strategy models and which code is the mirror on the receiving side.
 *
 *  2. In it, write a `static int NAME_run(struct xfer_run *run)` that moves
 *     run->manifest's files from run->src_root to run->dest and fills
 *     run->sent (and run->received when it learns what arrived). It returns
 *     0, or -1 with err_set(): it never prints and never exits.
 *
 *  3. Define the strategy with designated initializers, not static (table.c
 *     refers to it):
 *
 *         const struct strategy strategy_NAME = {
 *             .name = "NAME",
 *             .summary = "one line for --help",
 *             .flags = STRATEGY_SSH,
 *             .available = strategy_needs_ssh,
 *             .run = NAME_run,
 *         };
 *
 *     .flags: only what someone reads (enum strategy_flags says who);
 *     STRATEGY_REFERENCE for a strategy that runs the system's own program
 *     (real-*), which keeps it out of "all" and in "real".
 *     .available: NULL when it runs everywhere; strategy_needs_ssh for an
 *     SSH host; host_programs.h's checks for programs it needs.
 *     .models: for our own strategy that models a reference one, that
 *     strategy's name ("real-scp"); --list-strategies prints the pairs and
 *     scripts/bench.sh sets them side by side. NULL otherwise.
 *     .preserves: what beyond content it carries (PRESERVE_SYMLINKS, ...);
 *     verification holds it to exactly that.
 *     .traits: its structure, for the model's forecast (struct
 *     strategy_traits below, docs/MODEL.md): the path its bytes take,
 *     serial requests or a pipeline, the files in flight at each end, who
 *     creates the destination's files, a file's header bytes, the
 *     handshakes. Declare every field: the model reads nothing else of it.
 *     .release and .stop: only for what holds memory or starts processes
 *     (see below).
 *
 *  4. Register it in table.c: an `extern const struct strategy
 *     strategy_NAME;` line and an entry in strategy_table[], at the place
 *     where --strategies all (or real) should run it. The Makefile picks
 *     up the new file by itself.
 *
 *  5. Test it: a unit test in tests/unit/strategy/test_NAME.c for whatever
 *     it computes without a host (tests/unit/testutil.h); a strategy that
 *     moves data is tested end to end against the testbed in
 *     tests/integration/ (compare_local.t without SSH, compare_ssh.t or
 *     reference.t with it), where every run ends in a verification.
 *     tests/unit/strategy/test_strategy.c checks the table (names, models).
 *
 *  6. Add its row to README.md's "Strategies" table (name, what it models,
 *     how), or name it among the reference strategies there (and in
 *     docs/USAGE.md); its row in docs/USAGE.md's "What a tree may hold".
 */

#include "client/agent_client.h"
#include "client/xfer_target.h"
#include "manifest.h"
#include "verify.h"
#include "stream/sockbuf_plan.h"
#include "stream/xfer_stats.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ssh_target;

/* Only flags that something reads: each says who. */
enum strategy_flags {
	/* goes through the host's sshd: --explain's runs (explain.c); with REFERENCE, a connection of its own (sample_forecast.c) */
	STRATEGY_SSH = 1 << 0,
	STRATEGY_REFERENCE = 1 << 1,	/* runs a real tool: in "real", not in "all" (list.c) */
	STRATEGY_COMPRESSED = 1 << 2,	/* compresses with zstd at --zstd-level: the forecast, report_advice.c */
	STRATEGY_MULTI_STREAM = 1 << 3,	/* several TCP streams at once (-P): the forecast, the accounting, what-if */
	/*
	 * its data crosses the network unencrypted (raw TCP to the agent: the
	 * link measured without a cipher): runner.c runs it on the user's own
	 * tree to a host off loopback only with --allow-cleartext, and the
	 * report names it
	 */
	STRATEGY_CLEARTEXT = 1 << 4,
	/*
	 * its transport is the user's own command (a cmd: entry): nothing of
	 * it is authenticated by xfercmp, so its copy is verified against the
	 * manifest's XXH3 (which catches faults, not a forger) and runner.c
	 * never reports it "authenticated"
	 */
	STRATEGY_OWN_TRANSPORT = 1 << 5,
};

/* The most TCP streams one run opens (-P, and its default on a machine of many cores). */
#define STRATEGY_MAX_STREAMS 64
/*
 * Files in flight in our io_uring sender and receiver, for .traits.sender_depth
 * and .receiver_depth: the sender's blocking opens run in splice_sender.c's 64 io-wq
 * workers (IOWQ_WORKERS there), the receiver's creates in frames_receiver.c's
 * 16 (its IOWQ_WORKERS; 128 chains queue behind them). Keep them in step.
 */
#define STRATEGY_SENDER_DEPTH 64
#define STRATEGY_RECEIVER_DEPTH 16
/*
 * Handshakes before a stream's data: a raw TCP stream waits for its
 * connection, the agent's "stream" reply and its "finish" reply; an SSH
 * exec channel for the channel, the exec request and the exit status; an
 * SFTP session for the channel, the subsystem and the version.
 */
#define STRATEGY_SETUP_ROUND_TRIPS 3

/*
 * Stream bytes a name costs in each format, for .traits.header_bytes: a tar
 * header block, with content padded to blocks of the same size (POSIX
 * ustar); an SFTP request's fixed fields beside its path (the packet's
 * length, type and id, a handle or the attributes: draft-ietf-secsh-filexfer-02);
 * the SCP protocol's "C0644 SIZE " line beside the name; an rsync file-list
 * entry's flags, size, mtime and mode beside the name (rsync's flist.c
 * send_file_entry). Our own records: stream/frames.h's FRAME_HEADER.
 */
#define TAR_HEADER_BYTES 512
#define TAR_BLOCK_BYTES 512
#define SFTP_REQUEST_BYTES 64
#define SCP_LINE_BYTES 24
#define RSYNC_ENTRY_BYTES 16

/* The most zstd compression threads (--zstd-threads, and its default likewise). */
#define STRATEGY_MAX_ZSTD_THREADS 64

/*
 * How a strategy's bytes travel (struct strategy_traits): what bounds its
 * stream's rate besides the link.
 */
enum strategy_path {
	PATH_NONE,		/* not declared (a cmd: strategy): the model makes no forecast */
	PATH_RAW_TCP,		/* raw TCP streams to the agent: the link's rate at their count */
	PATH_SSH_CHANNEL,	/* a stream through sshd: also at most the SSH channel's rate */
	PATH_SFTP,		/* SFTP requests through sshd to sftp-server: the channel's rate too */
};

/* Who makes the destination's files (struct strategy_traits). */
enum strategy_creator {
	CREATOR_AGENT,		/* our receiver, receiver_depth files at once */
	CREATOR_HOST_PROGRAM,	/* the host's tar or rsync: one file at a time */
	CREATOR_SFTP_SERVER,	/* sftp-server, inside each file's open request */
};

/*
 * What a strategy declares of its structure, so the model (docs/MODEL.md)
 * never infers it from flags: how its files and bytes travel, what waits on
 * what, and who does the work at each end. Fill every field for a new
 * strategy; the model makes no forecast for path PATH_NONE.
 */
struct strategy_traits {
	enum strategy_path path;
	/*
	 * serial: each file's requests wait on their replies, one file after
	 * another (scp), so its costs add; otherwise the stages overlap as a
	 * pipeline and the slowest sets the time. requests_per_file and
	 * requests_per_dir: the round trips a serial strategy waits on for each
	 * (its protocol's requests; writes within a file overlap and count one).
	 */
	bool serial;
	unsigned requests_per_file, requests_per_dir;
	/*
	 * Files opened and read at once at the source (1: one thread, one file
	 * at a time), and made at once at the destination; 0 means 1. A
	 * STRATEGY_MULTI_STREAM strategy has that many per stream.
	 */
	unsigned sender_depth, receiver_depth;
	enum strategy_creator creator;
	/* metadata operations each file costs its creator (2: a temporary file, then its rename) */
	unsigned creates_per_file;
	/*
	 * Stream bytes each name (file, link, directory) costs beyond its
	 * content, and the block its content is padded to (a tar stream: a
	 * 512-byte header, content in 512-byte blocks; 0: no padding).
	 */
	unsigned header_bytes, block_bytes;
	/* handshakes each stream waits for before its data (connection, channel, job) */
	unsigned setup_round_trips;
};

/*
 * The traits several strategies share, for .traits (each says why in the
 * strategy's file): scp over SFTP (OpenSSH's do_upload: open, the writes
 * overlapped, the size, close; mkdir, then the mode), a tar stream through
 * sshd into the host's tar (one file read at a time here, one made at a
 * time there), a tar stream over raw TCP into the agent's extraction (the
 * same, one file at a time at each end), our records over raw TCP (many
 * files in flight at each end), rsync over ssh (a pipeline whose receiver
 * writes a temporary file and renames it).
 */
#define STRATEGY_TRAITS_SCP { .path = PATH_SFTP, .serial = true, .requests_per_file = 4, \
	.requests_per_dir = 2, .creator = CREATOR_SFTP_SERVER, .header_bytes = SFTP_REQUEST_BYTES, \
	.setup_round_trips = STRATEGY_SETUP_ROUND_TRIPS }
#define STRATEGY_TRAITS_TAR_SSH { .path = PATH_SSH_CHANNEL, .creator = CREATOR_HOST_PROGRAM, \
	.header_bytes = TAR_HEADER_BYTES, .block_bytes = TAR_BLOCK_BYTES, \
	.setup_round_trips = STRATEGY_SETUP_ROUND_TRIPS }
#define STRATEGY_TRAITS_TAR_TO_AGENT { .path = PATH_RAW_TCP, .creator = CREATOR_AGENT, \
	.header_bytes = TAR_HEADER_BYTES, .block_bytes = TAR_BLOCK_BYTES, \
	.setup_round_trips = STRATEGY_SETUP_ROUND_TRIPS }
#define STRATEGY_TRAITS_RECORDS { .path = PATH_RAW_TCP, .sender_depth = STRATEGY_SENDER_DEPTH, \
	.receiver_depth = STRATEGY_RECEIVER_DEPTH, .creator = CREATOR_AGENT, \
	.header_bytes = FRAME_HEADER, .setup_round_trips = STRATEGY_SETUP_ROUND_TRIPS }
#define STRATEGY_TRAITS_RSYNC { .path = PATH_SSH_CHANNEL, .creator = CREATOR_HOST_PROGRAM, \
	.creates_per_file = 2, .header_bytes = RSYNC_ENTRY_BYTES, \
	.setup_round_trips = STRATEGY_SETUP_ROUND_TRIPS }

/* Knobs the user sets for every strategy. */
struct strategy_opts {
	unsigned streams;	/* parallel: TCP streams, 1 to STRATEGY_MAX_STREAMS */
	int zstd_level;
	unsigned zstd_threads;
	/*
	 * --warm: leave the source's pages cached. Otherwise the senders drop
	 * each file's pages once read: the next run must read cold, and on a VM
	 * reusing those pages is much cheaper than touching fresh memory.
	 */
	bool keep_cached;
	/*
	 * The path the network probe measured (the swept link's rate and the
	 * round trip; 0 = unknown, as with --no-probes): a single raw stream
	 * sizes its socket buffers for their product (strategy_open_one_stream).
	 */
	double path_bytes_per_s, path_rtt_s;
};

/* How a single raw stream's buffers were sized for the path (strategy_open_one_stream). */
struct stream_sizing {
	bool sized;			/* the path was known and the stream opened */
	struct sockbuf_plan send;	/* the sender's plan, on this machine's sysctls */
	double sndbuf_bytes;		/* SO_SNDBUF the kernel reported once the stream had sent all */
};

/* One run of one strategy: what it is given and what it reports back. */
struct xfer_run {
	const struct strategy *strategy;	/* the strategy being run */
	const char *src_root;
	const struct manifest *manifest;
	struct xfer_target *target;
	const struct strategy_opts *opts;
	uint64_t job;		/* the agent's destination */
	const char *dest;	/* absolute path on the destination host */
	struct send_stats sent;		/* filled by the strategy */
	struct recv_stats received;	/* filled by the strategy from the agent, when it knows */
	struct stream_sizing sizing;	/* filled by strategy_open_one_stream */
};

struct strategy {
	const char *name;
	const char *summary;
	unsigned flags;		/* enum strategy_flags */
	/* The reference strategy this one models ("real-scp"), or NULL. */
	const char *models;
	/*
	 * What of a tree beyond content and names it claims to carry (enum
	 * preserve_bits in verify.h): verification fails it for those, and only
	 * reports the rest. Say in the strategy's opening comment why it
	 * carries what it does (the tool it models, and its flags).
	 */
	unsigned preserves;
	/* What the model needs to know of how it moves a tree (docs/MODEL.md). */
	struct strategy_traits traits;
	/*
	 * The command a user would type for the same transfer, DIR, HOST and
	 * DST standing for the tree, the host and the destination, ADDR for
	 * the host's address (where nc connects: nc does not read the ssh
	 * config that may define HOST), N for the streams
	 * (strategy_real_command fills in what is known). Runs as printed
	 * (tests/integration/advice_commands.t): the nc forms send with -N,
	 * without which netcat-openbsd keeps the connection open at the end
	 * of its input and both ends wait when nothing on the host ends the
	 * stream first (zstd -d reads to the end: seen on the testbed).
	 */
	const char *real_command;
	/*
	 * Optional. Returns 0 when the strategy can run against target, or 1
	 * with a reason in why when it cannot (the run shows it as skipped).
	 */
	int (*available)(const struct xfer_target *target, char *why, size_t len);
	/* Moves run->manifest's files from run->src_root to run->dest. Returns 0 or -1 (error set). */
	int (*run)(struct xfer_run *run);
	/*
	 * Optional, for a strategy made at run time (a cmd: entry): frees it
	 * and what it holds. The table's strategies are static and have none.
	 * Call it through strategy_free.
	 */
	void (*release)(const struct strategy *s);
	/*
	 * Optional, for the interrupt handler (a thread, not a signal handler):
	 * stops the processes this kind of strategy has running now, if any, so
	 * that nothing it started outlives xfercmp. Safe to call at any time,
	 * from any thread, and for every strategy of one kind at once.
	 */
	void (*stop)(void);
	/* What run, available and release need of their own (a cmd: entry's command); NULL for most. */
	void *priv;
};

/* For `available`: the SSH strategies need a HOST reached over SSH. */
int strategy_needs_ssh(const struct xfer_target *target, char *why, size_t len);

/*
 * For a strategy of one raw TCP stream: raw_stream_open of one stream with
 * its buffers sized for the path's bandwidth-delay product (run->opts):
 * the send buffer here, when autotuning would not reach it
 * (stream/sockbuf_plan.h), and the agent asked to size its receive buffer
 * likewise. Records the plan and the granted sizes in run->sizing (and the
 * agent's, once finished, in run->received). Returns 0 or -1 (error set).
 */
int strategy_open_one_stream(struct xfer_run *run, const char *receiver, int *fd,
			     unsigned char key[WIRE_KEY_BYTES]);

/*
 * Once the stream has sent everything (fd still open; -1: nothing to read):
 * run->sizing's send buffer as it ended, set or as far as autotuning grew it.
 */
void strategy_one_stream_sent(struct xfer_run *run, int fd);

/* Frees s with its release; does nothing for a table's strategy (no release) or NULL. */
void strategy_free(const struct strategy *s);

/* The table (table.c), in the order --strategies all runs them. */
extern const struct strategy *const strategy_table[];
extern const size_t strategy_count;

/*
 * s's real_command as a command line to run: the words N, HOST, ADDR and
 * DIR replaced by streams, host, addr and dir (HOST and DIR left as they
 * are when NULL or empty, N when streams is 0; ADDR becomes host when
 * addr is NULL or empty, and HOST when both are), each in '...' quotes
 * when it holds anything a POSIX shell would split or expand (anything
 * but letters, digits and @%+=:,./_-); DST and PORT stay for the user.
 * Returns the length written, 0 when s has no real command.
 */
int strategy_real_command(const struct strategy *s, unsigned streams, const char *host, const char *addr,
			  const char *dir, char *buf, size_t len);

#endif
