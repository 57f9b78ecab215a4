#ifndef XFERCMP_REPORT_H
#define XFERCMP_REPORT_H

/*
 * What a comparison produced, and the renderers that show it: a terminal
 * table on stdout and the versioned JSON document (docs/JSON.md).
 */

#include "probe/probes.h"
#include "model/what_if.h"
#include "run/runner.h"
#include "run/winner.h"
#include "workload.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>

#define REPORT_SCHEMA 3

/* After "partial: " in every rendering of an interrupted run (table, HTML, exports). */
#define REPORT_PARTIAL_WHY "interrupted; only the strategies marked ok finished"

struct explain_report;
struct workload_sample;

/*
 * Where the answer's time went (JSON "timing"): setup (connecting, making
 * the source, drawing the sample), the probes, the strategies (every run,
 * the sample's and the whole's, --explain's), the cleanup (the copies on
 * the host and the temporary trees here, before the report), and the
 * answer: from the start to the report. The rest of the answer is the
 * report itself.
 */
struct report_timing {
	double setup_s, probes_s, strategies_s, cleanup_s, answer_s;
	bool cleaned;		/* the cleanup ran (an interrupted run's report comes before it) */
	uint64_t host_removed, local_removed;	/* what it removed, entries */
	/* the host's copies left to the agent's remover (--cleanup background): their entries */
	bool host_background;
	uint64_t host_background_entries;
	/* an earlier run's removal finished or waited for in the setup (agent_leftover.h) */
	unsigned leftover_roots;
	double leftover_s;
	uint64_t leftover_removed;
};

struct report {
	const char *host;		/* as the user named it */
	const char *host_addr;		/* the address the agent was reached at directly; NULL: unknown */
	const char *workload_name;	/* "smallfiles", "dir:/srv/x", ... */
	const struct workload_spec *spec;
	uint64_t files, bytes;
	const struct manifest *manifest;	/* the tree's shape (directories, links); may be NULL */
	const char *source_fs;
	const char *dest_fs;
	json_object *agent_info;	/* may be NULL */
	const struct strategy_result *results;
	size_t nresults;
	const char *error;		/* a run-level error, or NULL */
	unsigned repeat;
	bool warm;
	const struct probe_results *probes;	/* NULL when --no-probes */
	const struct what_if *what_if;		/* --what-if scenarios */
	size_t nwhat_if;
	json_object *environment;		/* may be NULL */
	bool partial;		/* interrupted: only the strategies that finished */
	const char *command;	/* the command line as typed, for the record; may be NULL */
	const char *started_at;	/* RFC 3339 UTC time the run started; may be NULL */
	int argc;		/* the argv as given, for the JSON's "command" (0: none) */
	char **argv;
	unsigned streams;	/* -P: the parallelism parallel and the real parallel tools ran at */
	uint64_t client_lifetime_peak_rss_bytes;	/* this process's peak over its life; 0 = unknown */
	const struct explain_report *explain;	/* --explain's removals; NULL without it */
	bool streams_auto;	/* -P auto chose it */
	const char *streams_why;	/* how: "-P auto chose 8: ..." (may be NULL) */
	bool agent_via_ssh;	/* every connection to the agent went through ssh (agent_client.h) */
	/*
	 * --sample (report_sample.c): what was drawn (NULL without), the
	 * sample's results (results itself when only the sample moved), and
	 * whether the whole moved too (--check), results then being the
	 * whole's. files, bytes and manifest are the whole workload's.
	 */
	const struct workload_sample *sample;
	const struct strategy_result *sample_results;
	bool whole_moved;
	uint64_t moved_files, moved_bytes;	/* the sample's when only it moved; 0: files, bytes */
	const struct report_timing *timing;	/* NULL: not timed */
	char recommendation[1024];		/* "" when there is none */
	char compression_hint[512];
};

/*
 * A report read back (xfercmp diff) in schema REPORT_SCHEMA: a schema-1 doc is
 * changed in place (rates renamed to their unit and scaled, 0 and "" for "not
 * measured" made null, the fields schema 2 always has added as null). Returns
 * 0, or -1 (error set, naming path) for a doc with no schema or a newer one.
 */
int report_json_upgrade(json_object *doc, const char *path);

/*
 * The tree beyond its files, ", 310 directories, 64 symbolic links, 12 hard
 * links, 1 special file left out" ("" for none of them), and what one
 * strategy kept of it, "symlinks yes, hardlinks no, ..." (kinds the tree
 * holds only; "" when it holds none). report_preserved_json: the result's
 * "preserved" object, each kind true, false, or null when the tree has none.
 */
void report_tree_shape(const struct manifest *m, char *buf, size_t len);
void report_preserved_text(const struct strategy_result *res, char *buf, size_t len);
json_object *report_preserved_json(const struct strategy_result *res);

/* A result's time: its median run's transfer + flush (winner_seconds). */
double report_seconds(const struct strategy_result *r);

/* The one winner (run/winner.h's winner_decide over r's results): every rendering asks here. */
void report_winner(const struct report *r, struct winner *w);

/*
 * "no clear winner between A (m ± σ s, lo–hi), B (...) and C (...): a tie
 * within the runs' noise (their ranges overlap)" into buf when the winner
 * is not clear, naming every tied strategy; returns the length written,
 * 0 (buf untouched) when it is clear.
 */
int report_noise_text(const struct winner *w, char *buf, size_t len);

/*
 * res's forecast: on the link w, one of r->what_if (this run carried onto it,
 * computed by the runner); NULL: the one made before it ran, from the probes.
 * 0 when there is none.
 */
double report_forecast(const struct report *r, const struct strategy_result *res,
		       const struct what_if *w);

/* The time a recommendation compares: on a --what-if link its forecast, here what was measured. */
double report_projected(const struct report *r, const struct strategy_result *res,
			const struct what_if *w);

/* The link the recommendation is for: the first --what-if when there are probes, else NULL (this one). */
const struct what_if *report_recommend_link(const struct report *r);

/*
 * The strategy the recommendation names (report_recommend), as
 * winner_recommended decides it: on this link report_winner's winner; on
 * report_recommend_link the least forecast there. NULL when none ran.
 * Reads only results, nresults, probes, what_if and nwhat_if of r.
 */
const struct strategy_result *report_recommended(const struct report *r);

/*
 * When best is parallel and real-fpsync or real-rclone ran and verified:
 * "; the closest real tool here: fpsync -n 8 SRC/ HOST:DST/, 12.30 s
 * (parallel 4.10 s)" (the faster of the two) into buf, for the
 * recommendation. Returns the length written; 0 (buf untouched) otherwise.
 */
int report_real_tool(const struct report *r, const struct strategy_result *best, char *buf, size_t len);

/*
 * The CPU seconds one end (agent: the destination, else the source) spent
 * per GiB of the workload, over res's median run: our process and those it
 * watched there (sampler.h's processes_cpu_seconds). -1 when not sampled or
 * res did not run.
 */
double report_cpu_per_gib(const struct report *r, const struct strategy_result *res, bool agent);

/*
 * Adds to a result's JSON object: client_ and agent_cpu_seconds_per_gib,
 * client_ and agent_peak_rss_bytes (null for what was not measured).
 */
void report_cost_json(const struct report *r, const struct strategy_result *res, json_object *o);

/* The document's "peak_rss": {"client_bytes", "agent_bytes"} over both processes' lives. */
json_object *report_peak_rss_json(const struct report *r);

/*
 * "cpu 1.20 s/GiB here, 0.80 s/GiB at the host; peak memory 35 MB here, 20 MB
 * agent" ("?" for what was not measured) into buf. Returns the length
 * written; 0 when res did not run.
 */
int report_cost_text(const struct report *r, const struct strategy_result *res, char *buf, size_t len);

/*
 * A single raw stream's socket buffers (report_sockbuf.c): "needs 105 MB a
 * side (...); send 8.0 MiB (set), receive 100.1 MiB (set, forced as root);
 * this machine caps the send buffer: raise net.ipv4.tcp_wmem max to at
 * least ..." into buf. Returns the length written; 0 when res's stream was
 * not sized (more than one stream, no probes, not a raw stream).
 */
int report_sockbuf_text(const struct report *r, const struct strategy_result *res, char *buf, size_t len);

/*
 * A result's "socket_buffers": {"bdp_bytes", "send": {...}, "receive":
 * {...} or null}, or NULL when report_sockbuf_text has nothing to say.
 */
json_object *report_sockbuf_json(const struct report *r, const struct strategy_result *res);

/* Fills r->recommendation and r->compression_hint from the results and probes. */
void report_recommend(struct report *r);

/* The ceilings as a small table (xfercmp probe, and above the results). */
void report_ceilings(const struct probe_results *p, FILE *out);

/*
 * The network sweep's lines of the ceilings (report_sweep.c): the rate at
 * each stream count, where it saturates and why it stopped, and, when one
 * stream is window-limited, what bounds it (its send buffer, the sysctl
 * maxima, the round trip, their quotient) and which sysctl to raise to what.
 */
void report_sweep(const struct probe_results *p, FILE *out);

/*
 * "one stream is capped at 1.66 Gbit/s by a 4.0 MiB send buffer at 20.2 ms;
 * the link carries 22.0 Gbit/s with 16 streams" into buf; "" when one
 * stream is not window-limited.
 */
void report_window_line(const struct probe_results *p, char *buf, size_t len);

void report_table(const struct report *r, FILE *out, bool color);

/* The files and bytes the results moved (the sample's when only the sample moved), for rates. */
static inline uint64_t report_moved_files(const struct report *r)
{
	return r->moved_files ? r->moved_files : r->files;
}

static inline uint64_t report_moved_bytes(const struct report *r)
{
	return r->moved_bytes ? r->moved_bytes : r->bytes;
}

/* Only a sample moved (--sample without --check): results are the sample's runs. */
static inline bool report_sample_only(const struct report *r)
{
	return r->sample_results && !r->whole_moved;
}

/* The whole's forecast from the sample's runs (runner_forecast_whole); 0: none. */
static inline double report_whole_forecast(const struct strategy_result *res)
{
	return res->status == RESULT_OK && res->forecast_from_sample && res->have_forecast ?
		       res->forecast.seconds : 0;
}

/*
 * The recommendation when only a sample moved: the strategy forecast
 * fastest for the whole, its command, its forecast and range for the
 * whole's files and bytes, the runner-up's, and what the answer cost
 * ("answered in 3 min 10 s from a 5% sample"). Returns what it wrote.
 */
int report_sample_recommendation(const struct report *r, const struct strategy_result *best,
				 char *buf, size_t len);

/*
 * The line telling a comparison the probes forecast at total_s in all that
 * --sample would answer sooner, with a share that would take about a
 * minute of runs (1% to 20%).
 */
void report_sample_suggestion(double total_s, char *buf, size_t len);

/* The lines saying the sample drawn and, with --check, each strategy's sample and whole. */
void report_sample_lines(const struct report *r, FILE *out);

/*
 * The table's end: each strategy's time on the sample, the whole's
 * forecast from it with its range and, with --check, the whole's measured
 * time against it; which is fastest for the whole when that is not the
 * sample's fastest; then where the answer's time went ("answered in ..."), when timed.
 */
void report_sample_tail(const struct report *r, FILE *out);

/*
 * The document's "sample" (null without --sample) and "timing" (null when
 * not timed); a result's "sample_seconds" and "sample_run_seconds" (null
 * without a sample run), and its "seconds" made null when the whole did
 * not move.
 */
void report_sample_json(const struct report *r, json_object *doc);
void report_sample_result_json(const struct report *r, size_t i, json_object *o);

/* Builds the JSON document; the caller owns it. */
json_object *report_json(const struct report *r);

/* Writes the JSON document to path ("-" = stdout). Returns 0 or -1 (error set). */
int report_json_write(const struct report *r, const char *path);

/*
 * The results table, one row per strategy, as CSV (RFC 4180) or as a
 * Markdown table. An interrupted run (r->partial) is marked in both: CSV by
 * its last column, "partial", "yes" in every row ("no" otherwise), which a
 * reader that picks columns by name passes over; Markdown by a line
 * "**partial: interrupted; ...**" before the table. Returns 0 or -1 (error set).
 */
int report_export_csv(const struct report *r, const char *path);
int report_export_markdown(const struct report *r, const char *path);

/* Writes the self-contained HTML page (SVG chart and tables). Returns 0 or -1 (error set). */
int report_html_write(const struct report *r, const char *path);

#endif
