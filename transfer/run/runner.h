#ifndef XFERCMP_RUNNER_H
#define XFERCMP_RUNNER_H

/*
 * Runs strategies one at a time, never concurrently, each against a fresh
 * destination: cold source, timed transfer, timed flush to durable, verify
 * against the manifest, remove. Knows nothing strategy-specific.
 */

#include "model/accounting.h"
#include "model/forecast.h"
#include "model/run_record.h"
#include "model/what_if.h"
#include "probe/probes.h"
#include "sample/sampler.h"
#include "strategy/strategy.h"
#include "stats.h"
#include "wallclock.h"

#include <stdbool.h>

#define RUNNER_MAX_REPEAT 100
/* The most --what-if links one comparison forecasts every strategy on. */
#define RUNNER_WHAT_IF_MAX 8

enum result_status {
	RESULT_OK,
	RESULT_FAILED,
	RESULT_SKIPPED,
};

/* Where a result's wire bytes come from (the report's "wire_bytes_from"). */
enum wire_source {
	WIRE_UNMEASURED,	/* neither: null in the report */
	WIRE_SENDER,		/* our sender's count (sent.wire_bytes) */
	WIRE_LINK,		/* the link's counters: for a tool that counts nothing */
};

/* One timed attempt. */
struct run_sample {
	double transfer, flush;	/* seconds */
	double sender_own_s;	/* the sender's own stage (send_stats.own_s; 0: not measured) */
	unsigned index;		/* which run, for its samples */
};

struct strategy_result {
	const struct strategy *strategy;
	enum result_status status;
	bool verified;
	char error[1024];	/* failure or skip reason */
	char verify_summary[512];
	/* enum preserve_bits: the kinds the tree holds, and those the copy kept (as verified) */
	unsigned tree_present, tree_kept;
	bool content_ok;	/* every file and name as verified, whatever else differs */
	bool stream_checked;	/* a null-sink run: what the sink counted matched the manifest */
	char dest_fs[32];
	bool warm_source;	/* the source was read from the page cache (--warm) */
	bool cleartext;		/* it ran and its data crossed a network unencrypted */
	/*
	 * verified, and every byte of the copy proven the client's: through
	 * ssh, or by the agent's checks (stream/seal_stream.h's tags, the
	 * large files' keyed hashes: docs/SECURITY.md); unauthenticated: verified
	 * all the same, by XXH3 alone (a cmd: entry, STRATEGY_OWN_TRANSPORT)
	 */
	bool authenticated, unauthenticated;
	bool agent_via_ssh;	/* a raw-TCP strategy whose streams went through ssh (the
				 * agent's port closed to us, or --agent-via-ssh): the
				 * cipher and one more hop were in its path */
	/* the run whose total time is the median; min/max over all runs */
	struct run_sample median;
	double min_seconds, max_seconds;
	unsigned runs;
	/* every verified run's total (transfer + flush) in run order, and their statistics */
	double run_seconds[RUNNER_MAX_REPEAT];
	struct stats time;
	struct send_stats sent;
	/*
	 * The bytes that crossed the wire, for the report: our sender's count
	 * (what it handed to the socket or channel, framing included), or for a
	 * tool that counts nothing (the reference strategies, cmd:) what the
	 * interface towards the agent transmitted over the median run (the
	 * client's sampler, /proc/net/dev: TCP/IP headers and whatever else
	 * crossed it in that window included, so a little more than the tool's
	 * own); 0 and WIRE_UNMEASURED when neither (no sampling, no interface).
	 * The model reads sent.wire_bytes, not this.
	 */
	uint64_t wire_bytes;
	enum wire_source wire_source;
	struct recv_stats received;
	struct stream_sizing sizing;	/* a single raw stream's buffers (strategy_open_one_stream) */
	/* both ends' /proc counters over the median run (when sampling) */
	bool have_local, have_remote;
	struct sampler_summary local, remote;
	/*
	 * Peak resident bytes, the highest over the runs, each from the run's
	 * prepare to its verify (sample/rss.h): of the client (this process)
	 * and of the agent (its process, as it reports; 0 when it did not);
	 * and the agent's peak over its life so far.
	 */
	uint64_t client_peak_rss_bytes, agent_peak_rss_bytes, agent_lifetime_peak_rss_bytes;
	/*
	 * The forecast, made before the strategy moved a byte of this
	 * workload, from the probes, the workload's counts and its traits
	 * (model/forecast.h); made_at is earlier than started_at, when its
	 * first run began. None without probes.
	 */
	bool have_forecast;
	struct forecast forecast;
	char forecast_made_at[WALLCLOCK_TEXT_MAX];
	/*
	 * --sample: forecast is the whole workload's, made from the runs on
	 * its sample (runner_forecast_whole; the report's basis "sample"),
	 * not this workload's from the probes.
	 */
	bool forecast_from_sample;
	char started_at[WALLCLOCK_TEXT_MAX];
	/* where the measured time went (when probes ran): model/accounting.h */
	bool have_accounting;
	struct accounting accounting;
	/* this run carried onto each --what-if link (runner_opts.what_if; model/what_if.h) */
	bool have_what_if[RUNNER_WHAT_IF_MAX];
	struct what_if_forecast what_if[RUNNER_WHAT_IF_MAX];
};

struct runner_opts {
	unsigned repeat;	/* runs per strategy; >= 1 */
	bool warm;		/* skip dropping the source from the page cache */
	struct strategy_opts strategy;
	bool sample;		/* sample /proc on both ends while each strategy runs */
	const struct probe_results *probes;	/* ceilings for the forecasts and the accounting; NULL = none */
	/* other links to forecast each run on (--what-if), at most RUNNER_WHAT_IF_MAX; needs probes */
	const struct what_if *what_if;
	size_t nwhat_if;
	/*
	 * The workload is the user's own tree (dir:): a STRATEGY_CLEARTEXT
	 * strategy to an agent off loopback is skipped unless allow_cleartext
	 * (--allow-cleartext) says the user accepts it going in clear.
	 */
	bool user_tree;
	bool allow_cleartext;
	/*
	 * --explain's "no destination disk" run (run/explain.c): the agent's
	 * receives go to its null sink (agent/null_sink.h). Such a run is never
	 * verified (nothing is kept): its result is RESULT_OK with verified
	 * false and stream_checked true when the files and bytes the sink
	 * counted, every whole file's hash checked, match the manifest.
	 */
	bool null_sink;
	/*
	 * --sample --check's pass on the whole: result i takes forecasts[i]'s
	 * forecast of the whole, made from the sample's runs before this pass
	 * (runner_forecast_whole), in place of one from the probes. NULL: none.
	 */
	const struct strategy_result *forecasts;
	/* optional: called before and after each strategy (progress lines) */
	void (*progress)(void *ctx, const struct strategy *s, unsigned run, unsigned runs,
			 const struct strategy_result *done);
	/*
	 * optional: called with progress_ctx as a run moves past its bytes:
	 * "flushing", "verifying", "cleaning up" (static strings)
	 */
	void (*phase)(void *ctx, const char *what);
	void *progress_ctx;
};

/*
 * Before runner_run: the strategies of list[0..n) it will skip because
 * they would send the user's own tree (o->user_tree) unencrypted to t,
 * "splice, zstd and parallel will be skipped: they would send your files
 * unencrypted over TCP to HOST (...); pass --allow-cleartext to run
 * them" into buf, so the user hears it before the run, not after. Returns
 * how many (0: buf untouched).
 */
size_t runner_cleartext_notice(const struct runner_opts *o, const struct xfer_target *t,
			       const struct strategy *const *list, size_t n, char *buf, size_t len);

/*
 * Runs list[0..n) and fills results[0..n). A strategy that fails does not
 * stop the others. Returns 0 when the runner itself could work (look at each
 * result), -1 (error set) when it could not, e.g. the agent went away: then
 * the results so far stand, the one that hit it is failed and the rest are
 * skipped.
 */
int runner_run(const struct runner_opts *o, const char *src_root, const struct manifest *m,
	       struct xfer_target *target, const struct strategy *const *list, size_t n,
	       struct strategy_result *results);

/* What the model reads of a result that ran (its median run): its run record. */
void runner_record(const struct strategy_result *r, struct run_record *rec);

/* What the forecast of s on m may use, with o's probes and knobs (model/forecast.h). */
void runner_forecast_input(const struct runner_opts *o, const struct strategy *s,
			   const struct manifest *m, struct forecast_input *in);

/*
 * --sample: each strategy's runs on a tree of one file of the workload,
 * before the sample's: results[i] for the sample's results[i] (the same
 * strategy), on the tree of manifest m. Their transfer is the strategy's
 * fixed cost per run (model/sample_forecast.h, struct sample_run).
 */
struct runner_fixed {
	const struct manifest *m;
	const struct strategy_result *results;
};

/*
 * --sample: each of results[0..n) that ran on sample (a sample of whole)
 * gets the whole's forecast in place of its own, made now from its runs
 * there (model/sample_forecast.h), forecast_from_sample set; with
 * have_forecast false and forecast.why set when none could be made. The
 * fixed cost is fixed's (NULL, or a one-file run that failed: none, the
 * model's handshakes stand for it). No probes: nothing changes (the model
 * has no ceilings to scale).
 */
void runner_forecast_whole(const struct runner_opts *o, const struct manifest *whole,
			   const struct manifest *sample, const struct runner_fixed *fixed,
			   struct strategy_result *results, size_t n);

/*
 * What the probes forecast moving m through list[0..n), o->repeat times
 * each, to take: the strategies' forecasts added (a strategy the model
 * cannot forecast adds nothing). 0 without probes.
 */
double runner_forecast_total(const struct runner_opts *o, const struct strategy *const *list, size_t n,
			     const struct manifest *m);

/*
 * Drops the source files from the page cache (after writing back any dirty
 * pages, which fadvise cannot drop) so the next read comes from the disk.
 */
int runner_drop_source_cache(const char *src_root, const struct manifest *m);

/* Reads every source file into the page cache (--explain's warm source). Returns 0 or -1 (error set). */
int runner_load_source_cache(const char *src_root, const struct manifest *m);

#endif
