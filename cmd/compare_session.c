/*
 * The session of a comparison or of `xfercmp probe` (compare.h), from
 * connecting to cleaning up: the destination, the source and its manifest,
 * the probes.
 */
#define _GNU_SOURCE
#include "compare.h"
#include "compare_cleanup.h"
#include "compare_sample.h"

#include "commands.h"
#include "err.h"
#include "exitcode.h"
#include "fs_remove.h"
#include "fsutil.h"
#include "generate.h"
#include "model/forecast.h"
#include "parallel.h"
#include "ssh/ssh_log.h"
#include "strategy/list.h"
#include "units.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Makes (or finds) the source tree and its manifest; sets *root. A
 * temporary source is made in temp_source (PATH_MAX bytes).
 */
static int prepare_source(struct compare_opts *o, struct manifest *m, const char **root, char *temp_source)
{
	const struct workload_spec *spec = &o->wo.spec;
	char manifest_path[PATH_MAX + 16], description[256];
	struct generate_stats st;

	if (spec->kind == WORKLOAD_DIR) {
		if (access(spec->dir, R_OK | X_OK) != 0)
			return err_errno("cannot read workload directory '%s'", spec->dir);
		if ((compare_sample_lists_only(o) ? manifest_list_tree(m, spec->dir) :
		     manifest_from_tree(m, spec->dir, 2 * parallel_cpus())) < 0)
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
		/* an earlier run left this very workload there, and it is still there: reuse it */
		if (access(manifest_path, R_OK) == 0 && manifest_load(m, manifest_path) == 0) {
			if (m->description && !strcmp(m->description, description) &&
			    manifest_tree_holds(m, o->source_dir)) {
				*root = o->source_dir;
				return 0;
			}
			manifest_release(m);
		}
		*root = o->source_dir;
	} else {
		snprintf(temp_source, PATH_MAX, "%s/xfercmp-src.XXXXXX", fs_scratch_base());
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
 * Refuses to start when the destination cannot hold what moves (the
 * workload, or with --sample the sample: compare_sample_space): one copy
 * at a time is there (each strategy's destination is removed after it is
 * verified), plus room for file-system overhead on small files.
 */
static int check_destination_space(const struct compare_session *s)
{
	uint64_t free_bytes, bytes, files, need;
	const char *what;
	char have[32], want[32];

	compare_sample_space(s, &bytes, &files, &what);
	need = bytes + files * 4096ull + (64ull << 20);
	if (!destination_free_bytes(&s->dest, &free_bytes) || free_bytes >= need)
		return 0;
	return err_set("not enough space on %s: %s needs about %s, the scratch directory's file system has %s free; choose a larger one with --remote-dir%s",
		       s->o.host, what, units_format_bytes(need, want, sizeof(want)),
		       units_format_bytes(free_bytes, have, sizeof(have)),
		       s->sampled ? "" : ", or move a sample of it with --sample (the destination then needs room for the sample only)");
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
		/* --remote-dir is the host's: an agent launched here keeps its default */
		.scratch_dir = strcmp(o->host, "local") ? o->remote_dir : NULL, .agent_via_ssh = o->agent_via_ssh,
	};
	int rc;

	/* the interrupt stops an agent launched here (pid -1 until one is) */
	watch_agent(&d->proc);
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
	int rc;

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
	/* known before the network probe: its place "(1/n)" counts the probes to come */
	plan.one_disk = probe_one_disk(s->root, s->dest.agent.info);
	plan.agent_info = s->dest.agent.info;
	watch_probes(&plan);
	if (probe_all_network(&plan, &s->probes) < 0) {
		watch_probes_done();
		return -1;
	}
	compare_choose_streams(o, &s->m, &s->probes);
	/* a single raw stream sizes its buffers for the swept link over this round trip */
	o->run.strategy.path_bytes_per_s = s->probes.net_link_bps;
	o->run.strategy.path_rtt_s = s->probes.rtt_p50_s;
	forecast_depths(list, n, o->run.strategy.streams, &plan.creates, &plan.opens, &plan.reads);
	rc = probe_all_rest(&plan, &s->probes);
	watch_probes_done();
	if (rc < 0)
		return -1;
	o->run.probes = &s->probes;
	o->run.what_if = o->what_if;
	o->run.nwhat_if = o->nwhat_if;
	return 0;
}

int compare_open(struct compare_session *s, const struct strategy *const *list, size_t n)
{
	struct compare_opts *o = &s->o;

	destination_init(&s->dest);
	s->root = NULL;
	s->temp_source[0] = '\0';
	manifest_init(&s->m);
	s->sampled = s->whole_moved = s->one_drawn = s->one_made = false;
	s->sample_results = NULL;
	memset(&s->timing, 0, sizeof(s->timing));
	s->strategies_started = 0;
	/* libssh's own log: to stderr only with -vv, its protocol with -vvv (ssh_log.h) */
	ssh_log_route(o->verbose > 1 ? o->verbose - 1 : 0);
	watch_start(s, list, n);
	/* connect first: a refused host key should not wait for a 20 GiB workload */
	/* an earlier run's copies still going on the host go first: nothing is measured yet */
	if (open_destination(o, &s->dest) < 0 ||
	    compare_finish_leftovers(s, !o->quiet && isatty(2), o->verbose, &s->timing) < 0 ||
	    prepare_source(o, &s->m, &s->root, s->temp_source) < 0 ||
	    compare_sample_prepare(s) < 0 || check_destination_space(s) < 0 ||
	    destination_send_manifest(&s->dest, compare_sample_manifest(s)) < 0)
		return compare_fail();
	s->timing.setup_s = clock_seconds(o->started_ns, clock_now());
	if (run_probes(s, list, n) < 0)
		return compare_fail();
	s->timing.probes_s = clock_seconds(o->started_ns, clock_now()) - s->timing.setup_s;
	compare_sample_suggest(s, list, n);
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

	watch_leave_exit();
	/* the agent is stopped here from now on, not by an interrupt as well */
	watch_agent(NULL);
	/* each cleanup that failed is one line on stderr, and the run fails */
	if (destination_close(&s->dest, close_failed, NULL) < 0)
		code = EXIT_FAILED;
	/* left only when the run ended before its cleanup (compare_cleanup) */
	if (compare_sample_dir(s)[0] &&
	    fs_remove_tree_parallel(AT_FDCWD, compare_sample_dir(s), compare_sample_dir(s), FS_REMOVE_THREADS, NULL) < 0)
		code = cmd_fail(NULL, EXIT_FAILED);
	if (compare_sample_release(s) < 0)
		code = cmd_fail(NULL, EXIT_FAILED);
	manifest_release(&s->m);
	if (s->temp_source[0]) {
		if (fs_remove_tree_parallel(AT_FDCWD, s->temp_source, s->temp_source, FS_REMOVE_THREADS, NULL) < 0) {
			err_wrap("temporary source left behind (remove it with: chmod -R u+rwx '%s' && rm -rf '%s')",
				 s->temp_source, s->temp_source);
			code = cmd_fail(NULL, EXIT_FAILED);
		}
		s->temp_source[0] = '\0';
	}
	return code;
}

