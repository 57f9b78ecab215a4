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

#include "probe/probes.h"
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
	unsigned index, count;	/* its place in the comparison (count 0: unknown) */
	double after;		/* the forecasts of those after it, seconds (< 0: unknown) */
	const char *phase;	/* after the bytes: "flushing", ...; NULL while they move */
	const char *probe;	/* the probe measuring (its step's name) while no strategy runs; NULL: none */
	unsigned probe_index, probe_count;
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
 * What one status line shows (live_format). name: the strategy; index of
 * count: its place in the comparison (count 0: none shown); run of runs:
 * the --repeat run; files of files_total finished (no file count when
 * either is 0: a reference tool counts none); done of expect bytes (expect
 * 0: unknown; wire: the interface's bytes, an estimate, shown with "~") at
 * rate bytes/s; forecast: this strategy's, seconds (0: none); phase: what
 * follows the bytes ("flushing", "verifying", "cleaning up"; NULL while
 * they move); left: the comparison's time left, seconds (< 0: unknown).
 */
struct live_view {
	const char *name;
	unsigned index, count, run, runs;
	double elapsed;
	uint64_t files, files_total, done, expect;
	bool wire;
	double rate, forecast;
	const char *phase;
	double left;
};

/*
 * The status line of v into buf, at most width - 1 columns (the last column
 * would wrap on some terminals, and a wrapped line cannot be redrawn in
 * place): "[3/6] zstd-ssh  41% 9,120/20,000 files  37.0 MB/s  7.0 s
 * forecast 2.1 s  comparison ETA 1 min 10 s". When it does not fit, the
 * least useful goes first: the ETA said as "left", then the rate, the
 * forecast, the elapsed time, the file count, the ETA; then it is cut.
 * ASCII only: a byte is a column. Pure: the unit tests' and the ticker's.
 */
void live_format(char *buf, size_t len, const struct live_view *v, unsigned width);

/*
 * The comparison's time left while a strategy runs, seconds: this run's
 * time left, its runs still to come at the forecast each, and `after`, the
 * forecasts of the strategies after it (all their runs). This run's time
 * left: from its progress once it has done LIVE_PROGRESS_ETA of its bytes
 * (done, a fraction; its rate so far for the rest, none once it is 1),
 * before that its forecast less its elapsed time (never below 0). A run
 * slower than forecast then still counts down: at 59% of 120,000 files
 * after 8.5 s against a forecast of 7.2 s, a line read "left 6.5 s" until
 * the strategy ended. -1 (no ETA) when this one has no forecast (forecast
 * <= 0) or after < 0; done < 0: unknown.
 */
#define LIVE_PROGRESS_ETA 0.10
double live_comparison_left(double forecast, double elapsed, double done, unsigned run, unsigned runs,
			    double after);

/* The terminal's width on stderr (TIOCGWINSZ), else $COLUMNS, else 80. */
unsigned live_width(void);

/*
 * A strategy's place in the comparison (index of count, from 1) and the
 * forecasts of those after it, all runs (seconds; < 0: unknown), for the
 * next live_begin's line.
 */
void live_position(struct live *l, unsigned index, unsigned count, double after);

/*
 * A probe begins (step->done NULL): its status line, drawn at once and
 * then with each tick; or it ended: the line is cleared and one line with
 * what it measured is printed (live_probe_result).
 */
void live_probe(struct live *l, const struct probe_step *step);

/*
 * The status line while a probe runs, at most width - 1 columns:
 * "probing network (1/6)  1.2 s"; the elapsed time goes first, then the
 * place; then it is cut. Pure, for the tests.
 */
void live_probe_format(char *buf, size_t len, const char *name, unsigned index, unsigned count,
		       double elapsed, unsigned width);

/*
 * The line that stays once a probe ended, what it measured, at most
 * width - 1 columns: "  probe network: 2.31 Gbit/s one stream, rtt
 * 51 µs, the link 9.40 Gbit/s with 4 streams". The figures are in the order the report's
 * ceilings give them; the last goes first when the line is too wide, then
 * it is cut. Pure, for the tests.
 */
void live_probe_result(char *buf, size_t len, const struct probe_step *step, unsigned width);

/* The current run's phase after its bytes ("flushing", ...; a static string), until live_begin. */
void live_phase(struct live *l, const char *phase);

/* How far the cleanup got, on the host and here (compare_cleanup.c). */
struct live_cleanup {
	uint64_t host_found, host_removed;
	bool host_walked;	/* host_found is the total */
	uint64_t host_expected;	/* the entries the host's parked copies were made of (0: not said) */
	uint64_t local_found, local_removed;
};

/*
 * The status line: "removing 120,000 files on the host: 40%" and, when
 * local_found, ", 20,000 here: 70%". Before the host's walk has listed
 * everything (on a big tree it lists as it removes, to the end), the total
 * is the one the host expects from its copies' manifests, "about": "removing
 * about 120,000 files on the host: 40%"; with none expected, "removing the
 * copies on the host (35,000 files so far)". Pure, for the tests;
 * compare_cleanup.c draws it.
 */
void live_cleanup_format(char *buf, size_t len, const struct live_cleanup *c);

#endif
