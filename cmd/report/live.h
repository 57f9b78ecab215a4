#ifndef XFERCMP_LIVE_H
#define XFERCMP_LIVE_H

/*
 * The live status line of a comparison on a terminal: per strategy, files
 * finished of the tree's files and content bytes sent of its total (what
 * our own senders count: sent_progress.h), the current rate, elapsed time
 * and an ETA, redrawn twice a second on stderr and cleared when the
 * strategy ends, then a line with its outcome. A reference tool is another
 * program and counts nothing: its line has the interface's transmitted
 * bytes towards the agent (/proc/net/dev) of the expected wire bytes; they
 * include protocol overhead, hence the "~".
 */

#include "run/runner.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct live {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	bool thread_running, stopping;
	char iface[32];		/* towards the agent; "" when not found (no bytes shown) */
	const struct strategy *current;	/* NULL between strategies */
	unsigned run, runs;
	uint64_t t0_ns, tx0, expect;	/* expect: wire bytes to move; 0 when unknown */
	uint64_t files_total;	/* the tree's files; 0 when unknown */
	uint64_t content_total;	/* the tree's content bytes */
	uint64_t last_ns, last_done;	/* the previous tick, for the current rate */
	bool last_wire;		/* the previous tick showed the interface's bytes */
	double rate;		/* bytes/s, smoothed */
	double forecast;	/* the strategy's forecast, seconds (0: none) */
	bool drawn;		/* a status line is on the screen */
};

/* Starts the ticker thread towards agent_host (an address). Returns 0 or -1 (error set). */
int live_start(struct live *l, const char *agent_host);

/*
 * A strategy's run begins: files_total and content_total are the tree's
 * files and content bytes, expect the wire bytes it should move (0: unknown),
 * forecast its forecast made before it began (seconds; 0: none).
 */
void live_begin(struct live *l, const struct strategy *s, unsigned run, unsigned runs,
		uint64_t files_total, uint64_t content_total, uint64_t expect, double forecast);

/* The strategy ended: clears the line and prints one line with its outcome. */
void live_end(struct live *l, const struct strategy_result *done, uint64_t files);

/* Clears the line (an interrupt, an error) without ending the ticker. */
void live_clear(struct live *l);

/* Stops the thread and clears the line. */
void live_stop(struct live *l);

/*
 * The status line for a strategy at `elapsed` seconds having finished
 * `files` of `files_total` files (no file count when either is 0: a
 * reference tool counts none) and moved `done` of `expect` bytes (0:
 * unknown; wire: the interface's bytes, an estimate, shown with "~") at
 * `rate` bytes/s, with its forecast (seconds; 0: none), into buf (at most
 * 100 columns). Pure: the unit tests' and the ticker's.
 */
void live_format(char *buf, size_t len, const char *name, unsigned run, unsigned runs,
		 double elapsed, uint64_t files, uint64_t files_total, uint64_t done,
		 uint64_t expect, bool wire, double rate, double forecast);

/*
 * The status line: "removing 120,000 files on the host: 40%" and, when
 * local_found, ", 20,000 here: 70%"; before the host's walk has listed
 * everything, "removing the copies on the host (35,000 files so far)".
 * Pure, for the tests; compare_cleanup.c draws it.
 */
void live_cleanup_format(char *buf, size_t len, uint64_t host_found, uint64_t host_removed,
			 bool host_walked, uint64_t local_found, uint64_t local_removed);

#endif
