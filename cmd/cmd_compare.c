/*
 * xfercmp [OPTIONS] [HOST]: the comparison. Parses, sets up source and
 * target, runs, reports. `xfercmp probe` (cmd_probe.c) shares the options
 * and the setup (compare.h).
 */
#define _GNU_SOURCE
#include "commands.h"
#include "compare.h"
#include "report/live.h"
#include "model/verdict.h"
#include "sample/rss.h"
#include "run/environment.h"
#include "err.h"
#include "exitcode.h"
#include "fsutil.h"
#include "generate.h"
#include "netaddr.h"
#include "parallel.h"
#include "report/report.h"
#include "run/explain_run.h"
#include "report/text_wrap.h"
#include "ssh/ssh_log.h"
#include "strategy/list.h"
#include "units.h"

#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_STRATEGIES 32

/* NO_COLOR's convention (no-color.org): set AND non-empty turns colour off. */
static int no_color(void)
{
	const char *v = getenv("NO_COLOR");

	return v && *v;
}

/* What an interrupt must remove: the temporary source, if we made one. */
static char temp_source[PATH_MAX];
static struct agent_process *running_agent;
/* Set once an interrupt is being handled: its thread says how the run ends. */
static atomic_int interrupted;
/*
 * What the interrupt stops besides: each chosen strategy's stop, once.
 * Copied, since the cmd: strategies are freed at the end while an
 * interrupt may still come.
 */
static void (*interrupt_stops[MAX_STRATEGIES])(void);
static size_t ninterrupt_stops;

/*
 * What the interrupt needs to report the strategies that finished: the
 * session, the list and the results being filled. results[0..completed)
 * are final (the runner fills each before its "done" progress call).
 */
static struct compare_session *partial_session;
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
static void leave_exit_to_interrupt(void)
{
	while (atomic_load(&interrupted))
		pause();
}

int compare_fail(void)
{
	leave_exit_to_interrupt();
	return cmd_fail(NULL, EXIT_FAILED);
}

static int report_results(struct compare_session *s, struct strategy_result *results, int n, int rc,
			  bool partial);

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

	if (!partial_results || !partial_session)
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
	report_results(partial_session, copy, partial_n, 0, true);
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
	if (temp_source[0]) {
		char manifest[PATH_MAX + 16];

		/*
		 * The generator's threads may still be creating files: asked to,
		 * they stop at their next file; the first pass takes their
		 * directories from under them, and a later pass takes what they
		 * made meanwhile (0555 directories of --tree-features included).
		 */
		workload_generate_cancel(true);
		for (int pass = 0; pass < 50 && fs_remove_tree(temp_source) < 0; pass++)
			usleep(100 * 1000);
		if (manifest_default_path(temp_source, manifest, sizeof(manifest)) == 0)
			unlink(manifest);
	}
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
		if (k == ninterrupt_stops && ninterrupt_stops < MAX_STRATEGIES)
			interrupt_stops[ninterrupt_stops++] = list[i]->stop;
	}
}

static void start_interrupt_watch(void)
{
	static sigset_t set;
	pthread_t tid;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	pthread_create(&tid, NULL, watch_interrupt, &set);
}

/* The wire bytes a strategy should move, for the status line's total: 0 when unknown. */
static uint64_t expected_wire(const struct compare_session *s, const struct strategy *st)
{
	if (!(st->flags & STRATEGY_COMPRESSED))
		return s->m.total_bytes;
	if (s->o.run.probes && s->o.run.probes->zstd_ratio > 0)
		return (uint64_t)((double)s->m.total_bytes / s->o.run.probes->zstd_ratio);
	return 0;
}

static void progress(void *ctx, const struct strategy *s, unsigned run, unsigned runs,
		     const struct strategy_result *done)
{
	const struct compare_opts *o = ctx;

	if (done && partial_results && done >= partial_results &&
	    done < partial_results + partial_n)
		atomic_store(&partial_completed, (int)(done - partial_results) + 1);
	if (live_on) {
		if (done)
			live_end(&live, done, partial_session ? partial_session->m.count : 0);
		else
			live_begin(&live, s, run, runs, partial_session ? partial_session->m.count : 0,
				   partial_session ? partial_session->m.total_bytes : 0,
				   expected_wire(partial_session, s));
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

static void probe_progress(void *ctx, const char *what)
{
	const struct compare_opts *o = ctx;

	if (o->verbose || (!o->quiet && isatty(2)))
		fprintf(stderr, "probing %s...\n", what);
}

/* Makes (or finds) the source tree and its manifest; sets *root. */
static int prepare_source(struct compare_opts *o, struct manifest *m, const char **root)
{
	const struct workload_spec *spec = &o->wo.spec;
	char manifest_path[PATH_MAX + 16], description[256];
	struct generate_stats st;

	if (spec->kind == WORKLOAD_DIR) {
		if (access(spec->dir, R_OK | X_OK) != 0)
			return err_errno("cannot read workload directory '%s'", spec->dir);
		if (manifest_from_tree(m, spec->dir, 2 * parallel_cpus()) < 0)
			return -1;
		/* no strategy could carry them all, and copying a device is no measure of a link */
		if (m->nspecials)
			fprintf(stderr,
				"xfercmp: %zu special file%s (devices, FIFOs, sockets) in '%s' %s left out, e.g. '%s'\n",
				m->nspecials, m->nspecials == 1 ? "" : "s", spec->dir,
				m->nspecials == 1 ? "is" : "are", m->specials[0].path);
		if (m->count == 0)
			return err_set("workload directory '%s' holds no regular files", spec->dir);
		*root = spec->dir;
		return 0;
	}
	workload_describe(spec, description, sizeof(description));
	if (o->source_dir) {
		if (manifest_default_path(o->source_dir, manifest_path, sizeof(manifest_path)) < 0)
			return -1;
		/* an earlier run left this very workload there: reuse it */
		if (access(manifest_path, R_OK) == 0 && manifest_load(m, manifest_path) == 0) {
			if (m->description && !strcmp(m->description, description)) {
				*root = o->source_dir;
				return 0;
			}
			manifest_release(m);
		}
		*root = o->source_dir;
	} else {
		snprintf(temp_source, sizeof(temp_source), "%s/xfercmp-src.XXXXXX", fs_scratch_base());
		if (!mkdtemp(temp_source)) {
			temp_source[0] = '\0';
			return err_errno("cannot create a temporary source under %s", fs_scratch_base());
		}
		*root = temp_source;
	}
	if (workload_generate(spec, *root, 2 * parallel_cpus(), isatty(2), m, &st) < 0)
		return -1;
	m->description = strdup(description);
	if (o->source_dir && manifest_save(m, manifest_path) < 0)
		return -1;
	return 0;
}

/*
 * Refuses to start when the destination cannot hold the workload: one copy
 * at a time is there (each strategy's destination is removed after it is
 * verified), plus room for file-system overhead on small files.
 */
static int check_destination_space(const struct destination *d, const struct manifest *m,
				   const char *host)
{
	uint64_t free_bytes, need = m->total_bytes + m->count * 4096ull + (64ull << 20);
	char have[32], want[32];

	if (!destination_free_bytes(d, &free_bytes) || free_bytes >= need)
		return 0;
	return err_set("not enough space on %s: the workload needs about %s, the scratch directory's file system has %s free; choose a larger one with --remote-dir",
		       host, units_format_bytes(need, want, sizeof(want)),
		       units_format_bytes(free_bytes, have, sizeof(have)));
}

/*
 * Opens the destination (destination.h): an agent started by hand
 * (--agent), one we start on loopback (no HOST, or "local"), or one we
 * start on HOST over SSH; says what changes what the user sees.
 */
static int open_destination(struct compare_opts *o, struct destination *d)
{
	const struct destination_opts dopts = {
		.host = o->host, .agent = o->agent, .token_file = o->token_file,
		.ssh_config = o->ssh_config, .accept_new_hostkey = o->accept_new_hostkey,
		.scratch_dir = o->remote_dir, .agent_via_ssh = o->agent_via_ssh,
	};
	int rc;

	/* the interrupt stops an agent launched here (pid -1 until one is) */
	running_agent = &d->proc;
	rc = destination_open(d, &dopts);
	if ((o->verbose || isatty(2)) && d->ssh.uploaded)
		fprintf(stderr, "uploaded the agent to %s:%s\n", o->host, d->ssh.agent_command);
	/* one line: it changes what the raw-TCP strategies measure */
	if (rc == 0 && d->agent.direct_failed[0] && !o->quiet)
		fprintf(stderr, "xfercmp: the agent's port on %s cannot be reached directly (%s): "
			"the raw-TCP strategies go through ssh, the cipher in their path\n",
			o->host, d->agent.direct_failed);
	return rc;
}

/*
 * Runs the probes into s->probes unless --no-probes: the network first, then
 * -P auto is resolved from its sweep (compare_choose_streams), then the rest at the
 * depths the chosen streams use. Returns 0 or -1 (error set).
 */
static int run_probes(struct compare_session *s, const struct strategy *const *list, size_t n)
{
	struct compare_opts *o = &s->o;
	struct probe_plan plan = {
		.agent = &s->dest.agent, .src_root = s->root, .manifest = &s->m,
		.ssh_session = s->dest.ssh.session, .streams = o->streams_auto ? 0 : o->run.strategy.streams,
		.zstd_level = o->run.strategy.zstd_level,
		.zstd_threads = o->run.strategy.zstd_threads, .seconds = o->probe_seconds,
		.disk_bytes = o->disk_probe_bytes, .warm_source = o->run.warm,
	};

	if (o->no_probes) {
		compare_choose_streams(o, &s->m, NULL);
		return 0;
	}
	/*
	 * A workload generated a moment ago is still being written back: the
	 * create probe's syncfs on the same file system (the testbed's, a copy
	 * within one machine) then flushed it too. Seen on 120,000 files just
	 * generated: creates probed at 15,594/s with 16 in flight before the
	 * run, 31,347/s measured again after it, the run itself 25,921/s.
	 */
	if (fs_sync_dir_fs(s->root) < 0)
		return err_wrap("cannot settle the source before the probes");
	/* xfercmp probe names no strategies: the ceilings at every depth the table's strategies use */
	if (!list || n == 0) {
		list = strategy_table;
		n = strategy_count;
	}
	if (probe_all_network(&plan, &s->probes, probe_progress, o) < 0)
		return -1;
	compare_choose_streams(o, &s->m, &s->probes);
	/* a single raw stream sizes its buffers for the swept link over this round trip */
	o->run.strategy.path_bytes_per_s = s->probes.net_link_bps;
	o->run.strategy.path_rtt_s = s->probes.rtt_p50_s;
	verdict_depths(list, n, o->run.strategy.streams, &plan.creates, &plan.opens, &plan.reads);
	plan.one_disk = probe_one_disk(s->root, s->dest.agent.info);
	if (probe_all_rest(&plan, &s->probes, probe_progress, o) < 0)
		return -1;
	o->run.probes = &s->probes;
	o->run.probe_seconds = o->probe_seconds;
	return 0;
}

int compare_open(struct compare_session *s, const struct strategy *const *list, size_t n)
{
	struct compare_opts *o = &s->o;

	destination_init(&s->dest);
	s->root = NULL;
	keep_stops(list, n);
	/* libssh's own log: to stderr only with -v (transfer/ssh/ssh_log.h) */
	ssh_log_route(o->verbose);
	start_interrupt_watch();
	manifest_init(&s->m);
	/* connect first: a refused host key should not wait for a 20 GiB workload */
	if (open_destination(o, &s->dest) < 0 || prepare_source(o, &s->m, &s->root) < 0 ||
	    check_destination_space(&s->dest, &s->m, o->host) < 0 ||
	    destination_send_manifest(&s->dest, &s->m) < 0)
		return compare_fail();
	if (run_probes(s, list, n) < 0)
		return compare_fail();
	return EXIT_OK;
}

/* One line for a cleanup that failed (destination_close). */
static void close_failed(void *ctx)
{
	(void)ctx;
	cmd_fail(NULL, EXIT_FAILED);
}

int compare_close(struct compare_session *s)
{
	int code = EXIT_OK;

	leave_exit_to_interrupt();
	/* the agent is stopped here from now on, not by an interrupt as well */
	running_agent = NULL;
	/* each cleanup that failed is one line on stderr, and the run fails */
	if (destination_close(&s->dest, close_failed, NULL) < 0)
		code = EXIT_FAILED;
	manifest_release(&s->m);
	if (temp_source[0]) {
		if (fs_remove_tree(temp_source) < 0) {
			err_wrap("temporary source left behind (remove it with: chmod -R u+rwx '%s' && rm -rf '%s')",
				 temp_source, temp_source);
			code = cmd_fail(NULL, EXIT_FAILED);
		}
		temp_source[0] = '\0';
	}
	return code;
}

/*
 * Prints the report of the strategies' results (rc: runner_run's) and
 * writes the files asked for. Returns the exit code.
 */
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

static int report_results(struct compare_session *s, struct strategy_result *results, int n, int rc,
			  bool partial)
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
		.explain = partial_explain,
		.streams_auto = o->streams_auto, .streams_why = o->streams_why,
		.agent_via_ssh = s->dest.agent.via_ssh,
	};
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

/* Runs the n strategies of list and reports. Returns the exit code. */
static int run_strategies(struct compare_session *s, const struct strategy **list, int n)
{
	struct strategy_result *results = calloc(MAX_STRATEGIES, sizeof(*results));
	int rc, code;

	if (!results) {
		err_set("out of memory for results");
		return compare_fail();
	}
	partial_session = s;
	partial_list = list;
	partial_n = n;
	partial_results = results;
	s->o.run.progress = progress;
	s->o.run.progress_ctx = &s->o;
	live_on = !s->o.quiet && isatty(2) && live_start(&live, s->dest.agent.addr) == 0;
	rc = runner_run(&s->o.run, s->root, &s->m, &s->dest.target, list, (size_t)n, results);
	if (live_on)
		live_stop(&live);
	live_on = false;
	if (rc == 0 && s->o.explain) {
		struct explain_report *ex = calloc(1, sizeof(*ex));

		if (ex) {
			/* an interrupt from here on reports the comparison and the removals that finished */
			ex->partial = true;
			partial_explain = ex;
			rc = explain(s, results, (size_t)n, ex);
			ex->partial = false;
		}
	}
	/* an interrupted run's report is the interrupt's (report_partial) */
	leave_exit_to_interrupt();
	atomic_store(&reporting, 1);
	code = report_results(s, results, n, rc, false);
	atomic_store(&reporting, 2);
	leave_exit_to_interrupt();
	partial_results = NULL;
	free(partial_explain);
	partial_explain = NULL;
	free(results);
	return code;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_session s;
	const struct strategy *list[MAX_STRATEGIES];
	int n, rc, code;

	if ((rc = compare_parse(argc, argv, &s.o, 0)) != 0)
		return rc;
	n = strategy_parse_list(s.o.strategies, list, MAX_STRATEGIES);
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
