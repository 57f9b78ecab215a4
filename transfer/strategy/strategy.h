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
 *     how), or name it among the reference strategies there.
 */

#include "client/agent_client.h"
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
	STRATEGY_SSH = 1 << 0,		/* goes through the host's sshd: verdict.c counts the SSH ceilings */
	STRATEGY_REFERENCE = 1 << 1,	/* runs a real tool: in "real", not in "all" (list.c) */
	STRATEGY_COMPRESSED = 1 << 2,	/* compresses with zstd at --zstd-level: verdict.c, report_advice.c */
	STRATEGY_MULTI_STREAM = 1 << 3,	/* several TCP streams at once (-P): verdict.c */
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
 * Files in flight in our io_uring sender and receiver, for .src_depth and
 * .dest_depth: the sender's blocking opens run in splice_sender.c's 64 io-wq
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

/* The most zstd compression threads (--zstd-threads, and its default likewise). */
#define STRATEGY_MAX_ZSTD_THREADS 64

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

/* Where the data goes: the agent always; SSH when a HOST was given. */
struct xfer_target {
	struct agent_client *agent;
	struct ssh_target *ssh;	/* NULL without SSH */
	const char *label;	/* the host as the user named it */
	const char *ssh_config;	/* -F FILE; NULL: ssh's default */
	int accept_new_hostkey;	/* --accept-new-hostkey */
	/* the tree to move, for an `available` that depends on it; set by the runner */
	const struct manifest *manifest;
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
	/*
	 * Its structure, for the model that predicts its time (model/
	 * attribution.h; verdict.c reads these). serial: each file waits for
	 * its requests in turn (scp), so the stages add; otherwise the stages
	 * overlap as a pipeline and the slowest sets the time. src_depth and
	 * dest_depth: the files one stream keeps in flight at the source
	 * (opens and reads) and at the destination (creates); 0 means 1, and a
	 * STRATEGY_MULTI_STREAM strategy has that many per stream. The probes
	 * measure the open and create ceilings at these depths.
	 * setup_round_trips: handshakes each stream waits before its data.
	 * real_command: the command a user would type for the same transfer,
	 * DIR, HOST and DST standing for the tree, the host and the destination.
	 */
	bool serial;
	unsigned src_depth, dest_depth;
	unsigned setup_round_trips;
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

#endif
