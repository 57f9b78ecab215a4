/*
 * What watches a comparison while it runs (compare.h): the interrupt, the
 * probes' and the runner's progress (the live status line on a terminal,
 * progress lines with -v), which also tells the interrupt how far the
 * results are.
 */
#define _GNU_SOURCE
#include "compare.h"
#include "compare_sample.h"

#include "commands.h"
#include "exitcode.h"
#include "fsutil.h"
#include "generate.h"
#include "report/live.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The session watched, from watch_start on: its temporary source, its manifest's counts. */
static struct compare_session *session;
/* The agent launched here that an interrupt stops; NULL when none, or when compare_close does. */
static struct agent_process *running_agent;
/* Set once an interrupt is being handled: its thread says how the run ends. */
static atomic_int interrupted;
/*
 * What the interrupt stops besides: each chosen strategy's stop, once.
 * Copied, since the cmd: strategies are freed at the end while an
 * interrupt may still come.
 */
static void (*interrupt_stops[COMPARE_MAX_STRATEGIES])(void);
static size_t ninterrupt_stops;

/*
 * What the interrupt needs to report the strategies that finished: the list
 * and the results being filled. results[0..completed) are final (the runner
 * fills each before its "done" progress call).
 */
static const struct strategy *const *partial_list;
static struct strategy_result *partial_results;
static int partial_n;
static atomic_int partial_completed;
/* --explain's removals, once the comparison finished: reported as far as they got */
static struct explain_report *partial_explain;
/* set while the normal report is being written: the interrupt waits for it instead */
static atomic_int reporting;

/* The live status line, on a terminal unless -q (live.h). */
static struct live live;
static bool live_on;

/*
 * The interrupt pulls the agent and the source from under the run, which
 * then fails: that failure is not the run's end to report, nor its exit
 * status. The interrupt's thread ends the process once it has cleaned up.
 */
void watch_leave_exit(void)
{
	while (atomic_load(&interrupted))
		pause();
}

int compare_fail(void)
{
	watch_leave_exit();
	return cmd_fail(NULL, EXIT_FAILED);
}

/*
 * On an interrupt during the strategies: the report of those that finished,
 * the one running marked interrupted and the rest not run, on stdout and in
 * the files asked for, marked partial. When the normal report is already
 * being written, waits (up to 10 s) for it instead of writing a second.
 */
static void report_partial(void)
{
	struct strategy_result *copy;
	int done = atomic_load(&partial_completed);

	if (!partial_results)
		return;
	if (atomic_load(&reporting)) {
		for (int i = 0; i < 100 && atomic_load(&reporting) == 1; i++)
			usleep(100 * 1000);
		return;
	}
	copy = calloc((size_t)partial_n, sizeof(*copy));
	if (!copy)
		return;
	memcpy(copy, partial_results, (size_t)done * sizeof(*copy));
	for (int i = done; i < partial_n; i++) {
		copy[i].strategy = partial_list[i];
		copy[i].status = i == done ? RESULT_FAILED : RESULT_SKIPPED;
		snprintf(copy[i].error, sizeof(copy[i].error), "%s",
			 i == done ? "interrupted while it ran" : "not run: interrupted");
	}
	compare_report(session, copy, partial_n, partial_explain, 0, true);
	fflush(stdout);
	free(copy);
}

static void *watch_interrupt(void *arg)
{
	sigset_t *set = arg;
	int sig;

	while (sigwait(set, &sig) != 0)
		;
	atomic_store(&interrupted, 1);
	if (live_on)
		live_clear(&live);
	fprintf(stderr, "\nxfercmp: interrupted, cleaning up\n");
	for (size_t i = 0; i < ninterrupt_stops; i++)
		interrupt_stops[i]();
	report_partial();
	if (running_agent)
		agent_process_stop(running_agent);
	if (session->temp_source[0]) {
		char manifest[PATH_MAX + 16];

		/*
		 * The generator's threads may still be creating files: asked to,
		 * they stop at their next file; the first pass takes their
		 * directories from under them, and a later pass takes what they
		 * made meanwhile (0555 directories of --tree-features included).
		 */
		workload_generate_cancel(true);
		for (int pass = 0; pass < 50 && fs_remove_tree(session->temp_source) < 0; pass++)
			usleep(100 * 1000);
		if (manifest_default_path(session->temp_source, manifest, sizeof(manifest)) == 0)
			unlink(manifest);
	}
	compare_sample_interrupt();
	_exit(EXIT_INTERRUPTED);
	return NULL;
}

/* Keeps each distinct stop of list[] for the interrupt. */
static void keep_stops(const struct strategy *const *list, size_t n)
{
	ninterrupt_stops = 0;
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;

		if (!list[i]->stop)
			continue;
		while (k < ninterrupt_stops && interrupt_stops[k] != list[i]->stop)
			k++;
		if (k == ninterrupt_stops && ninterrupt_stops < COMPARE_MAX_STRATEGIES)
			interrupt_stops[ninterrupt_stops++] = list[i]->stop;
	}
}

void watch_start(struct compare_session *s, const struct strategy *const *list, size_t n)
{
	static sigset_t set;
	pthread_t tid;

	session = s;
	partial_list = list;
	keep_stops(list, n);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	pthread_create(&tid, NULL, watch_interrupt, &set);
}

void watch_agent(struct agent_process *p)
{
	running_agent = p;
}

/* The tree the strategies are moving (the sample's, then with --check the whole's): the status line's totals. */
static const struct manifest *moving;

/* The wire bytes a strategy should move, for the status line's total: 0 when unknown. */
static uint64_t expected_wire(const struct compare_session *s, const struct strategy *st)
{
	if (!(st->flags & STRATEGY_COMPRESSED))
		return moving->total_bytes;
	if (s->o.run.probes && s->o.run.probes->zstd_ratio > 0)
		return (uint64_t)((double)moving->total_bytes / s->o.run.probes->zstd_ratio);
	return 0;
}

/* The forecast the runner made for s before its first run (its result holds it); 0: none. */
static double forecast_of(const struct strategy *s)
{
	for (int i = 0; partial_results && i < partial_n; i++)
		if (partial_results[i].strategy == s && partial_results[i].have_forecast)
			return partial_results[i].forecast.seconds;
	return 0;
}

/*
 * s's place in the list (from 1; 0 when not in it) and what the probes
 * forecast for those after it, all their runs (-1 when none can be said).
 */
static unsigned position_of(const struct strategy *s, double *after)
{
	for (int i = 0; i < partial_n; i++)
		if (partial_list[i] == s) {
			size_t rest = (size_t)(partial_n - i - 1);

			*after = rest ? runner_forecast_total(&session->o.run, partial_list + i + 1,
							      rest, moving) : 0;
			if (rest && *after <= 0)
				*after = -1;
			return (unsigned)i + 1;
		}
	*after = -1;
	return 0;
}

/* The run's phase after its bytes, on the live line. */
static void phase(void *ctx, const char *what)
{
	(void)ctx;
	if (live_on)
		live_phase(&live, what);
}

/* The runner's progress: the live line, or lines on stderr; and how far the results are. */
static void progress(void *ctx, const struct strategy *s, unsigned run, unsigned runs,
		     const struct strategy_result *done)
{
	const struct compare_opts *o = ctx;

	if (done && partial_results && done >= partial_results &&
	    done < partial_results + partial_n)
		atomic_store(&partial_completed, (int)(done - partial_results) + 1);
	if (live_on) {
		if (done)
			live_end(&live, done, moving->count);
		else {
			double after;
			unsigned at = position_of(s, &after);

			live_position(&live, at, at ? (unsigned)partial_n : 0, after);
			live_begin(&live, s, run, runs, moving->count, moving->total_bytes,
				   expected_wire(session, s), forecast_of(s));
		}
		return;
	}
	if (o->quiet || (!o->verbose && !isatty(2)))
		return;
	if (!done)
		fprintf(stderr, "running %s%s", s->name, runs > 1 ? "" : "...\n");
	if (!done && runs > 1)
		fprintf(stderr, " (%u/%u)...\n", run, runs);
	if (done && done->status != RESULT_OK)
		fprintf(stderr, "  %s %s: %s\n", s->name,
			done->status == RESULT_SKIPPED ? "skipped" : "failed", done->error);
}

/* A probe begins or ended: the live line, or lines on stderr. */
static void probe_step(void *ctx, const struct probe_step *step)
{
	const struct compare_opts *o = ctx;
	char line[256];

	if (live_on) {
		live_probe(&live, step);
		return;
	}
	if (o->quiet || (!o->verbose && !isatty(2)))
		return;
	if (!step->done) {
		fprintf(stderr, "probing %s (%u/%u)...\n", step->name, step->index, step->count);
		return;
	}
	/* no terminal to fit: the whole line */
	live_probe_result(line, sizeof(line), step, sizeof(line));
	fprintf(stderr, "%s\n", line);
}

void watch_probes(struct probe_plan *plan)
{
	plan->progress = probe_step;
	plan->progress_ctx = &session->o;
	live_on = !session->o.quiet && isatty(2) && live_start(&live, session->dest.agent.addr) == 0;
}

void watch_probes_done(void)
{
	watch_strategies_done();
}

void watch_strategies(struct strategy_result *results, int n)
{
	partial_n = n;
	partial_results = results;
	moving = &session->m;
	session->o.run.progress = progress;
	session->o.run.phase = phase;
	session->o.run.progress_ctx = &session->o;
	live_on = !session->o.quiet && isatty(2) && live_start(&live, session->dest.agent.addr) == 0;
}

void watch_phase(struct strategy_result *results, const struct manifest *m)
{
	atomic_store(&partial_completed, 0);
	partial_results = results;
	moving = m;
}

void watch_strategies_done(void)
{
	if (live_on)
		live_stop(&live);
	live_on = false;
}

void watch_explain(struct explain_report *ex)
{
	partial_explain = ex;
}

void watch_reporting(int state)
{
	atomic_store(&reporting, state);
}

void watch_end(void)
{
	partial_results = NULL;
	partial_explain = NULL;
}
