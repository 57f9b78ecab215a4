#ifndef XFERCMP_COMPARE_SAMPLE_H
#define XFERCMP_COMPARE_SAMPLE_H

/*
 * --sample SIZE|PERCENT|COUNT and --check in the comparison
 * (compare_sample.c): the sample drawn from the whole's manifest and
 * materialised on the source before the probes (workload_sample.h), each
 * strategy run on it, then with --check on the whole as well.
 */

#include "compare.h"

/* The options' --help texts (compare_options.c's table). */
#define COMPARE_SAMPLE_HELP                                                                    \
	"move a sample of the workload, not all of it: 2G, 5% or\n"                            \
	"10000 (files); drawn with the whole's shape (size classes,\n"                         \
	"directories, links, compressed names, pieces of large files)\n"                      \
	"from --seed, copied to a scratch tree here; the destination\n"                        \
	"needs room for the sample only"
#define COMPARE_CHECK_HELP                                                                     \
	"with --sample: then move the whole workload through each\n"                          \
	"strategy too, to set the sample's time beside the whole's"

/* The option's argument: sets o->sample_text and o->sample_req. Returns 0, or cmd_usage_error's code. */
int compare_sample_option(struct compare_opts *o, const char *arg);

/* What --sample and --check say with the other options. Returns 0, or cmd_usage_error's code. */
int compare_sample_check_opts(const struct compare_opts *o);

/* Whether a dir: tree is only listed, not read: --sample without --check never moves the whole. */
bool compare_sample_lists_only(const struct compare_opts *o);

/*
 * Draws the sample of s->m and materialises it in a scratch directory, and
 * the one-file tree beside it (nothing without --sample). Returns 0 or -1
 * (error set).
 */
int compare_sample_prepare(struct compare_session *s);

/* The tree and manifest the strategies move first: the sample's, or the whole's. */
const char *compare_sample_root(const struct compare_session *s);
const struct manifest *compare_sample_manifest(const struct compare_session *s);

/* Whether a sample tree was made (the strategies move it, not the whole, first). */
bool compare_sample_made(const struct compare_session *s);

/*
 * What the destination must hold, one copy at a time: the sample's files
 * and bytes, or the whole's (no sample, or --check). *what names it for
 * the space check's message.
 */
void compare_sample_space(const struct compare_session *s, uint64_t *bytes, uint64_t *files,
			  const char **what);

/*
 * Runs the strategies: each on a tree of one file of the workload first,
 * its fixed cost (with probes: the whole's forecasts use it), then on the
 * sample (into sample_results, or into results when the whole does not
 * move), then on the whole (into results) when
 * there is no sample or with --check, sending the agent the whole's
 * manifest first; each pass told to the watch as it begins (watch_phase).
 * Sets s->whole_moved. Returns runner_run's result (the first pass that
 * could not run ends it).
 */
int compare_sample_run(struct compare_session *s, const struct strategy *const *list, size_t n,
		       struct strategy_result *results, struct strategy_result *sample_results);

/* Beyond this forecast (seconds) a comparison without --sample is told --sample would be quicker. */
#define COMPARE_SAMPLE_SUGGEST_S 600.0

/*
 * Without --sample, once the probes ran: when they forecast the strategies'
 * runs to take more than COMPARE_SAMPLE_SUGGEST_S in all, says so on stderr
 * and suggests --sample (report_sample_suggestion); the comparison goes on
 * as asked (no question: a script has no one to answer it, and Ctrl-C gives
 * the report so far).
 */
void compare_sample_suggest(const struct compare_session *s, const struct strategy *const *list, size_t n);

/* Removes the sample's tree (the interrupt's thread, while it may still be being made). */
void compare_sample_interrupt(void);

/*
 * The sample's directory to remove at the end, "" when none. Releases the
 * sample's memory, and removes the one-file tree if a run that ended early
 * left it: compare_sample_release, 0 or -1 (error set).
 */
const char *compare_sample_dir(const struct compare_session *s);
int compare_sample_release(struct compare_session *s);

#endif
