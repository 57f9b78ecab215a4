#ifndef XFERCMP_COMPARE_H
#define XFERCMP_COMPARE_H

/*
 * What `xfercmp [OPTIONS] [HOST]` (cmd_compare.c) and `xfercmp probe`
 * (cmd_probe.c) share: the options (compare_options.c), the session before
 * the strategies run or the ceilings are reported: the agent, the source
 * and its manifest, the probes (compare_session.c), and what watches it
 * meanwhile: the interrupt that cleans up, the progress (compare_watch.c).
 */

#include "client/destination.h"
#include "clock.h"
#include "report/report.h"
#include "run/explain.h"
#include "model/what_if.h"
#include "run/runner.h"
#include "manifest.h"
#include "probe/probes.h"
#include "strategy/strategy.h"
#include "workload_opts.h"
#include "workload_sample.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most --what-if scenarios one run answers. */
#define COMPARE_WHAT_IF_MAX RUNNER_WHAT_IF_MAX
/* The most strategies one run compares. */
#define COMPARE_MAX_STRATEGIES 32

struct compare_opts {
	struct workload_opts wo;
	const char *workload_name;
	const char *source_dir;
	const char *strategies;
	const char *agent;
	const char *token_file;
	const char *json;
	const char *html;
	const char *export_csv, *export_markdown;	/* the results table as CSV, Markdown */
	const char *host;
	double probe_seconds;
	uint64_t disk_probe_bytes;
	int no_probes;
	int probe_only;		/* xfercmp probe */
	const char *ssh_config;
	const char *remote_dir;
	int accept_new_hostkey;
	int agent_via_ssh;	/* --agent-via-ssh: every connection to the agent through ssh */
	struct runner_opts run;
	int streams_auto;	/* -P auto (the default): run.strategy.streams chosen after the network probe */
	char streams_why[256];	/* how the streams were chosen, for the report */
	int verbose;		/* how many -v: 1 progress off a tty, 2 libssh too, 3 its protocol */
	int quiet;		/* -q: no progress at all */
	/* for the record in the reports: the command line and when it started (RFC 3339, UTC) */
	int argc;
	char **argv;
	char started_at[32];
	/* --explain[=LIST] (run/explain.h): rerun strategies with one resource taken away */
	int explain;
	const char *explain_list;	/* NULL: the recommended and the slowest (explain_choose) */
	/* --what-if scenarios, in the order given */
	struct what_if what_if[COMPARE_WHAT_IF_MAX];
	size_t nwhat_if;
	/* --sample (NULL without) and --check (compare_sample.h) */
	const char *sample_text;
	struct workload_sample_request sample_req;
	int sample_check;
	clock_ns started_ns;	/* when the command started: the answer's time runs from here */
	/* --cleanup: the host's copies removed after exit, or before the report (compare_cleanup.h) */
	enum { COMPARE_CLEANUP_AUTO, COMPARE_CLEANUP_BACKGROUND, COMPARE_CLEANUP_WAIT } cleanup;
};

/* One comparison, or one probe, from connecting to cleaning up. */
struct compare_session {
	struct compare_opts o;
	struct destination dest;	/* the agent, and SSH when HOST is reached over it */
	struct manifest m;
	struct probe_results probes;	/* o.run.probes points here once measured */
	const char *root;		/* the source tree */
	char temp_source[PATH_MAX];	/* the temporary source, if we made one ("" if not) */
	/* --sample: what was drawn; the sample's results (NULL: none); whether the whole moved */
	struct workload_sample sample;
	bool sampled;
	/* --sample: a tree of one file of the workload, each strategy's fixed cost measured on it first (one_made) */
	struct workload_sample one;
	bool one_drawn, one_made;
	struct strategy_result *sample_results;
	bool whole_moved;
	struct report_timing timing;
	clock_ns strategies_started;	/* 0: not yet; an interrupted run's report counts to its moment */
};

/*
 * Parses the options into o (probe_only: for `xfercmp probe`). Returns 0,
 * or an exit code after printing the usage error. --help, --version and
 * --list-strategies print and exit here.
 */
int compare_parse(int argc, char **argv, struct compare_opts *o, int probe_only);

/*
 * -P auto, once the network probe swept (p may be NULL: --no-probes): the
 * sweep's saturation (net_sweep_auto) between one stream a core (more for
 * large files' ranges) and 8 a core (at most 16), no more than m's files and
 * large-file ranges; sets o->run.strategy.streams, p's streams and
 * o->streams_why. With -P N, only the why and p's streams.
 */
void compare_choose_streams(struct compare_opts *o, const struct manifest *m, struct probe_results *p);

/*
 * Sets up s after compare_parse filled s->o: watches for an interrupt
 * (which also stops what the n strategies of list run, through their
 * stop), connects to the agent, makes the source and sends its manifest,
 * and runs the probes unless --no-probes. Returns EXIT_OK, or the exit
 * code after printing the error. Either way compare_close(s) follows.
 */
int compare_open(struct compare_session *s, const struct strategy *const *list, size_t n);

/*
 * Lets an interrupt being handled end the process; then ends the agent
 * (which removes its destinations and root), frees s and removes a temporary
 * source. Returns EXIT_OK, or EXIT_FAILED after printing one line for each
 * cleanup that failed (what is left and how to remove it): a run that leaves
 * something behind does not end in success.
 */
int compare_close(struct compare_session *s);

/*
 * Prints the report of the strategies' results[0..n) (rc: runner_run's; ex:
 * --explain's removals, or NULL) and writes the files asked for. partial:
 * the interrupt's report (it must not wait on itself). Returns the exit code.
 */
int compare_report(struct compare_session *s, struct strategy_result *results, int n,
		   const struct explain_report *ex, int rc, bool partial);

/* The one way the comparison reports its own failure: prints the error, returns EXIT_FAILED. */
int compare_fail(void);

/*
 * What watches the comparison (compare_watch.c). The interrupt (Ctrl-C,
 * SIGTERM, SIGHUP), in a thread of its own from watch_start on, stops what
 * the strategies run (their stop), reports the strategies that finished
 * (compare_report, partial) unless the normal report is being written,
 * stops an agent launched here, removes a temporary source, and ends the
 * process with EXIT_INTERRUPTED. The comparison tells it as it goes.
 */

/* Starts the interrupt's thread for s, which runs the n strategies of list (none: probe). */
void watch_start(struct compare_session *s, const struct strategy *const *list, size_t n);

/* The agent launched here the interrupt stops; NULL: none, or the caller stops it from now on. */
void watch_agent(struct agent_process *p);

/*
 * The probes of plan run from now on: sets its progress (the live status
 * line on a terminal unless -q, lines with -v: each probe named as it
 * begins, what it measured as it ends).
 */
void watch_probes(struct probe_plan *plan);

/* The probes ran, or failed: ends their status line. */
void watch_probes_done(void);

/*
 * The strategies run into results[0..n) from now on: sets the runner's
 * progress (the live status line on a terminal unless -q, lines with -v),
 * which tells the interrupt how many have finished.
 */
void watch_strategies(struct strategy_result *results, int n);

/*
 * A pass of the strategies begins (compare_sample_run: the sample's, then
 * with --check the whole's): they fill results[0..n) from now on, moving the
 * tree of manifest m (the status line's totals).
 */
void watch_phase(struct strategy_result *results, const struct manifest *m);

/* The strategies ran: ends the status line (the interrupt still reports the results). */
void watch_strategies_done(void);

/* --explain's removals from now on, reported as far as they got (ex->partial set meanwhile). */
void watch_explain(struct explain_report *ex);

/* 1 while the normal report is being written (an interrupt waits for it instead), 2 once written. */
void watch_reporting(int state);

/* Nothing more to report: the results and ex are about to be freed. */
void watch_end(void);

/*
 * The interrupt pulls the agent and the source from under the run, which
 * then fails: returns only when no interrupt is being handled (when one is,
 * its thread ends the process).
 */
void watch_leave_exit(void);

#endif
