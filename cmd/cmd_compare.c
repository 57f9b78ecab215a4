/*
 * xfercmp [OPTIONS] [HOST]: the comparison, top to bottom. cmd_compare
 * parses (compare_options.c), opens the session (compare_session.c: the
 * destination, the source, the probes; compare_watch.c watches for an
 * interrupt from then on), runs the strategies, then --explain's removals
 * (transfer/run), reports (cmd/report) and closes the session. `xfercmp
 * probe` (cmd_probe.c) shares the options and the session (compare.h).
 */
#include "commands.h"
#include "compare.h"
#include "compare_cleanup.h"
#include "compare_sample.h"
#include "err.h"
#include "exitcode.h"
#include "fsutil.h"
#include "report/report.h"
#include "run/environment.h"
#include "run/explain_run.h"
#include "sample/rss.h"
#include "strategy/list.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int run_strategies(struct compare_session *s, const struct strategy **list, int n);
static int explain(struct compare_session *s, const struct strategy_result *results, size_t n,
		   struct explain_report *ex);
static void command_line(const struct compare_opts *o, char *buf, size_t len);
static int no_color(void);

int cmd_compare(int argc, char **argv)
{
	struct compare_session s;
	const struct strategy *list[COMPARE_MAX_STRATEGIES];
	int n, rc, code;

	if ((rc = compare_parse(argc, argv, &s.o, 0)) != 0)
		return rc;
	n = strategy_parse_list(s.o.strategies, list, COMPARE_MAX_STRATEGIES);
	if (n < 0)
		return cmd_usage_error(NULL, "%s", err_msg());
	code = compare_open(&s, list, (size_t)n);
	if (code == EXIT_OK)
		code = run_strategies(&s, list, n);
	if (compare_close(&s) != EXIT_OK && code == EXIT_OK)
		code = EXIT_FAILED;
	for (int i = 0; i < n; i++)
		strategy_free(list[i]);
	return code;
}

/*
 * Runs the n strategies of list (on the sample, then with --check the
 * whole: compare_sample_run), cleans up and reports. Returns the exit code.
 */
static int run_strategies(struct compare_session *s, const struct strategy **list, int n)
{
	struct strategy_result *results = calloc(COMPARE_MAX_STRATEGIES, sizeof(*results));
	struct strategy_result *sample_results = calloc(COMPARE_MAX_STRATEGIES, sizeof(*results));
	struct explain_report *ex = NULL;
	char notice[1024];
	int rc, code, cleaned;

	if (!results || !sample_results) {
		free(results);
		free(sample_results);
		err_set("out of memory for results");
		return compare_fail();
	}
	s->sample_results = sample_results;
	s->strategies_started = clock_now();
	if (runner_cleartext_notice(&s->o.run, &s->dest.target, list, (size_t)n, notice, sizeof(notice)))
		fprintf(stderr, "xfercmp: %s\n", notice);
	watch_strategies(results, n);
	rc = compare_sample_run(s, list, (size_t)n, results, sample_results);
	watch_strategies_done();
	if (rc == 0 && s->o.explain && (ex = calloc(1, sizeof(*ex)))) {
		/* an interrupt from here on reports the comparison and the removals that finished */
		ex->partial = true;
		watch_explain(ex);
		rc = explain(s, results, (size_t)n, ex);
		ex->partial = false;
	}
	s->timing.strategies_s = clock_seconds(s->strategies_started, clock_now());
	/* the copies here go before the report, the host's too or to its remover: the prompt comes back with it */
	cleaned = compare_cleanup(s, s->temp_source, compare_sample_dir(s), !s->o.quiet && isatty(2),
				  s->o.verbose, compare_cleanup_background(&s->o), &s->timing);
	if (cleaned < 0)
		cmd_fail(NULL, EXIT_FAILED);
	/* an interrupted run's report is the interrupt's */
	watch_leave_exit();
	watch_reporting(1);
	code = compare_report(s, results, n, ex, rc, false);
	watch_reporting(2);
	watch_leave_exit();
	watch_end();
	free(ex);
	free(results);
	free(sample_results);
	s->sample_results = NULL;
	return cleaned < 0 && code == EXIT_OK ? EXIT_FAILED : code;
}

/* --explain's progress lines, on stderr. */
static void explain_progress(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "%s\n", line);
}

/* A cleanup of one of --explain's extra destinations that failed: one line, the run goes on. */
static void explain_cleanup_failed(void *ctx)
{
	(void)ctx;
	fprintf(stderr, "xfercmp: --explain: %s\n", err_msg());
}

/*
 * --explain after the comparison: the removals of the strategies it
 * chooses, the recommendation's first (what the report will name), into ex.
 * Returns explain_run's.
 */
static int explain(struct compare_session *s, const struct strategy_result *results, size_t n,
		   struct explain_report *ex)
{
	const struct compare_opts *o = &s->o;
	/* what report_recommended reads: the recommendation the report will give */
	const struct report rep = { .results = results, .nresults = n, .probes = o->run.probes,
				    .what_if = o->what_if, .nwhat_if = o->nwhat_if };
	const struct explain_setup e = {
		.run = &o->run, .src_root = s->root, .m = &s->m, .dest = &s->dest, .list = o->explain_list,
		.recommended = report_recommended(&rep),
		.progress = o->verbose || (!o->quiet && isatty(2)) ? explain_progress : NULL,
		.cleanup_failed = explain_cleanup_failed,
	};

	return explain_run(&e, results, n, ex);
}

int compare_report(struct compare_session *s, struct strategy_result *results, int n,
		   const struct explain_report *ex, int rc, bool partial)
{
	struct compare_opts *o = &s->o;
	struct report rep;
	struct err_saved error;
	char source_fs[32] = "", command[2048];
	const char *dest_fs = "";
	int code = EXIT_OK;

	command_line(o, command, sizeof(command));
	fs_type_name(s->root, source_fs, sizeof(source_fs));
	for (int i = 0; i < n; i++)
		if (results[i].dest_fs[0])
			dest_fs = results[i].dest_fs;
	rep = (struct report){
		.host = o->host, .workload_name = o->workload_name, .spec = &o->wo.spec,
		.files = s->m.count, .bytes = s->m.total_bytes, .manifest = &s->m, .source_fs = source_fs, .dest_fs = dest_fs,
		.agent_info = s->dest.agent.info, .results = results, .nresults = (size_t)n,
		.repeat = o->run.repeat, .warm = o->run.warm,
		.probes = o->run.probes, .what_if = o->what_if, .nwhat_if = o->nwhat_if,
		.environment = environment_json(s->root, s->dest.agent.addr, s->dest.agent.info),
		.partial = partial, .started_at = o->started_at, .command = command,
		.argc = o->argc, .argv = o->argv, .streams = o->run.strategy.streams,
		.client_lifetime_peak_rss_bytes = rss_lifetime_peak(),
		.explain = ex,
		.streams_auto = o->streams_auto, .streams_why = o->streams_why,
		.agent_via_ssh = s->dest.agent.via_ssh,
		.host_addr = !s->dest.agent.via_ssh && s->dest.agent.addr[0] ? s->dest.agent.addr : NULL,
		.sample = s->sampled ? &s->sample : NULL, .whole_moved = s->whole_moved,
		.sample_results = !compare_sample_made(s) ? NULL : s->whole_moved ? s->sample_results : results,
		.moved_files = compare_sample_made(s) && !s->whole_moved ? s->sample.sample.files : 0,
		.moved_bytes = compare_sample_made(s) && !s->whole_moved ? s->sample.sample.bytes : 0,
		.timing = &s->timing,
	};
	s->timing.answer_s = clock_seconds(o->started_ns, clock_now());
	if (partial && s->strategies_started && !s->timing.strategies_s)
		s->timing.strategies_s = clock_seconds(s->strategies_started, clock_now());
	report_recommend(&rep);
	if (rc < 0) {
		err_save(&error);
		rep.error = error.msg;
		code = EXIT_FAILED;
	}
	for (int i = 0; rc == 0 && i < n; i++)
		if (results[i].status == RESULT_FAILED)
			code = EXIT_FAILED;
	if (!o->json || strcmp(o->json, "-"))
		report_table(&rep, stdout, isatty(1) && !no_color());
	/* (the interrupt's thread writes a partial report: it must not wait on itself) */
	if (o->json && report_json_write(&rep, o->json) < 0)
		code = partial ? cmd_fail(NULL, EXIT_FAILED) : compare_fail();
	if (o->html && report_html_write(&rep, o->html) < 0)
		code = partial ? cmd_fail(NULL, EXIT_FAILED) : compare_fail();
	if (o->export_csv && report_export_csv(&rep, o->export_csv) < 0)
		code = partial ? cmd_fail(NULL, EXIT_FAILED) : compare_fail();
	if (o->export_markdown && report_export_markdown(&rep, o->export_markdown) < 0)
		code = partial ? cmd_fail(NULL, EXIT_FAILED) : compare_fail();
	if (rc < 0) {
		/* the report has it on stdout; stderr ends with it, as with every error */
		err_restore(&error);
		compare_fail();
	}
	json_object_put(rep.environment);
	return code;
}

/* The command line as one string, each argument that needs it single-quoted for a shell. */
static void command_line(const struct compare_opts *o, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < o->argc && n + 4 < len; i++) {
		const char *a = o->argv[i];
		int plain = *a && !a[strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					      "0123456789-_=+.,/:@%")];

		if (i)
			buf[n++] = ' ';
		if (plain) {
			n += (size_t)snprintf(buf + n, len - n, "%s", i ? a : "xfercmp");
		} else {
			buf[n++] = '\'';
			for (; *a && n + 5 < len; a++) {
				if (*a == '\'') {
					memcpy(buf + n, "'\\''", 4);
					n += 4;
				} else {
					buf[n++] = *a;
				}
			}
			buf[n++] = '\'';
		}
		if (n >= len)
			n = len - 1;
		buf[n] = '\0';
	}
}

/* NO_COLOR's convention (no-color.org): set AND non-empty turns colour off. */
static int no_color(void)
{
	const char *v = getenv("NO_COLOR");

	return v && *v;
}
