#ifndef XFERCMP_STRATEGY_H
#define XFERCMP_STRATEGY_H

/*
 * A strategy is one way of moving a tree to the destination: a struct of
 * function pointers, one file per strategy, all listed in table.c. The
 * runner knows nothing strategy-specific: it prepares a fresh destination,
 * makes the source cold, times run(), then flushes, verifies and removes the
 * destination through the agent.
 */

#include "client/agent_client.h"
#include "manifest.h"
#include "stream/xfer_stats.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ssh_target;

enum strategy_flags {
	STRATEGY_RAW_TCP = 1 << 0,	/* streams to the agent's port */
	STRATEGY_SSH = 1 << 1,		/* goes through the host's sshd */
	STRATEGY_PER_FILE = 1 << 2,	/* waits on the peer for every file */
	STRATEGY_REFERENCE = 1 << 3,	/* runs a real tool, not in "all" */
	STRATEGY_COMPRESSED = 1 << 4,	/* compresses with zstd at --zstd-level */
	STRATEGY_MULTI_STREAM = 1 << 5,	/* several TCP streams at once (-P) */
};

/* The most TCP streams one run opens (-P, and its default on a machine of many cores). */
#define STRATEGY_MAX_STREAMS 64
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
};

/* Where the data goes: the agent always; SSH when a HOST was given. */
struct xfer_target {
	struct agent_client *agent;
	struct ssh_target *ssh;	/* NULL without SSH */
	const char *label;	/* the host as the user named it */
	const char *ssh_config;	/* -F FILE; NULL: ssh's default */
	int accept_new_hostkey;	/* --accept-new-hostkey */
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
};

struct strategy {
	const char *name;
	const char *summary;
	unsigned flags;
	/*
	 * Optional. Returns 0 when the strategy can run against target, or 1
	 * with a reason in why when it cannot (the run shows it as skipped).
	 */
	int (*available)(const struct xfer_target *target, char *why, size_t len);
	/* Moves run->manifest's files from run->src_root to run->dest. Returns 0 or -1 (error set). */
	int (*run)(struct xfer_run *run);
};

/* For `available`: the SSH strategies need a HOST reached over SSH. */
int strategy_needs_ssh(const struct xfer_target *target, char *why, size_t len);

/* The table, in the order --strategies all runs them. */
extern const struct strategy *const strategy_table[];
extern const size_t strategy_count;

const struct strategy *strategy_find(const char *name);

/*
 * Parses "all", "real" (the reference strategies) or a comma-separated list
 * of names into out[] (at most max, no duplicates). Returns the count or -1
 * (error set naming the unknown strategy and listing the known ones).
 */
int strategy_parse_list(const char *list, const struct strategy **out, size_t max);

#endif
