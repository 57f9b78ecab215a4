/* --sample and --check in the comparison. See compare_sample.h. */
#define _GNU_SOURCE
#include "compare_sample.h"

#include "commands.h"
#include "err.h"
#include "fs_remove.h"
#include "fsutil.h"
#include "report/report.h"
#include "parallel.h"
#include "units.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* Room kept free beside the sample's copy on the source. */
#define SOURCE_MARGIN (256ull << 20)

/* The sample's directory and the one-file tree's while they exist, for the interrupt's thread (buffers of the session). */
static const char *interrupt_dir, *interrupt_one_dir;

int compare_sample_option(struct compare_opts *o, const char *arg)
{
	if (workload_sample_parse(arg, &o->sample_req) < 0)
		return cmd_usage_error(NULL, "%s", err_msg());
	o->sample_text = arg;
	return 0;
}

int compare_sample_check_opts(const struct compare_opts *o)
{
	if (o->sample_check && !o->sample_text)
		return cmd_usage_error(NULL, "--check compares a sample's run with the whole's: give --sample too");
	if (o->sample_text && o->explain)
		return cmd_usage_error(NULL, "--explain reruns strategies on the whole workload: not with --sample");
	return 0;
}

bool compare_sample_lists_only(const struct compare_opts *o)
{
	return o->sample_text && !o->sample_check;
}

bool compare_sample_made(const struct compare_session *s)
{
	return s->sampled && s->sample.dir[0];
}

static bool say(const struct compare_opts *o)
{
	return o->verbose || (!o->quiet && isatty(2));
}

/* The source's scratch must hold the sample's copy. */
static int check_source_space(const struct workload_sample *sample)
{
	struct statvfs v;
	uint64_t need = workload_sample_disk_bytes(sample) + SOURCE_MARGIN, have;
	char a[32], b[32];

	if (statvfs(fs_scratch_base(), &v) < 0)
		return 0;
	have = (uint64_t)v.f_bavail * v.f_frsize;
	if (have >= need)
		return 0;
	return err_set("not enough space here for the sample's copy: it needs about %s in %s, which has %s free; "
		       "ask for a smaller sample, or point XFERCMP_SCRATCH at a larger file system",
		       units_format_bytes(need, a, sizeof(a)), fs_scratch_base(),
		       units_format_bytes(have, b, sizeof(b)));
}

/*
 * Takes and materialises s->one: the sample's smallest file that is not
 * empty (workload_sample_one), on which each strategy's fixed cost is
 * measured (compare_sample_run). None (one_made false, no error) when the
 * workload is one file, or when that file is no small part of the sample:
 * its own work would then be in the fixed cost. Returns 0 or -1 (error set).
 */
static int prepare_one_file(struct compare_session *s)
{
	if (workload_sample_one(&s->sample, &s->one) < 0)
		return err_wrap("the one-file tree for the fixed costs");
	s->one_drawn = true;
	if (workload_sample_is_whole(&s->one) || s->one.m.total_bytes > s->sample.m.total_bytes / 4) {
		if (s->o.verbose)
			fprintf(stderr, "no fixed cost measured: the sample's smallest file (%llu bytes) is more than "
				"a quarter of it\n", (unsigned long long)s->one.m.total_bytes);
		return 0;
	}
	interrupt_one_dir = s->one.dir;
	if (workload_sample_materialise(&s->one, &s->m, s->root, fs_scratch_base(), 1) < 0)
		return err_wrap("cannot make the one-file tree for the fixed costs");
	s->one_made = true;
	if (fs_sync_dir_fs(s->one.dir) < 0)
		return err_wrap("cannot make the one-file tree for the fixed costs");
	return 0;
}

int compare_sample_prepare(struct compare_session *s)
{
	struct compare_opts *o = &s->o;
	char a[32];

	if (!o->sample_text)
		return 0;
	if (workload_sample_draw(&s->m, &o->sample_req, o->wo.spec.seed, &s->sample) < 0)
		return err_wrap("--sample %s", o->sample_text);
	s->sampled = true;
	if (workload_sample_is_whole(&s->sample)) {
		/* the whole moves after all: a tree only listed is read now, for verification */
		if (o->wo.spec.kind != WORKLOAD_DIR || !compare_sample_lists_only(o))
			return 0;
		manifest_release(&s->m);
		return manifest_from_tree(&s->m, s->root, 2 * parallel_cpus());
	}
	if (say(o))
		fprintf(stderr, "copying a sample of %llu files (%s) to a scratch tree...\n",
			(unsigned long long)s->sample.sample.files,
			units_format_bytes(s->sample.sample.bytes, a, sizeof(a)));
	if (check_source_space(&s->sample) < 0)
		return -1;
	interrupt_dir = s->sample.dir;
	if (workload_sample_materialise(&s->sample, &s->m, s->root, fs_scratch_base(), 2 * parallel_cpus()) < 0 ||
	    fs_sync_dir_fs(s->sample.dir) < 0)
		return err_wrap("cannot make the sample's tree");
	return prepare_one_file(s);
}

const char *compare_sample_root(const struct compare_session *s)
{
	return compare_sample_made(s) ? s->sample.dir : s->root;
}

const struct manifest *compare_sample_manifest(const struct compare_session *s)
{
	return compare_sample_made(s) ? &s->sample.m : &s->m;
}

void compare_sample_space(const struct compare_session *s, uint64_t *bytes, uint64_t *files,
			  const char **what)
{
	const struct manifest *m = compare_sample_made(s) && !s->o.sample_check ? &s->sample.m : &s->m;

	*bytes = m->total_bytes;
	*files = m->count;
	*what = m == &s->m ? (s->sampled ? "the whole workload (--check moves it)" : "the workload") :
			     "the sample (--sample: room for the sample only)";
}

/* Removes the one-file tree, once its runs are done (or the run ended before them). Returns 0 or -1 (error set). */
static int remove_one_file(struct compare_session *s)
{
	int rc = 0;

	if (s->one_made && s->one.dir[0])
		rc = fs_remove_tree_parallel(AT_FDCWD, s->one.dir, s->one.dir, 1, NULL);
	interrupt_one_dir = NULL;
	s->one.dir[0] = '\0';
	s->one_made = false;
	return rc;
}

/*
 * Each strategy's run on the one-file tree, into fixed[0..n) (calloc'd;
 * NULL and 0 when there is none to make: no tree, or no probes, so no
 * forecast of the whole to make with it), before the sample's: its transfer
 * is what a run costs whatever its size (runner_forecast_whole). A plain
 * run, as --explain's control: no sampling, no forecast, no progress of
 * its own; --repeat as asked (the median is the fixed cost). The agent
 * verifies against the tree that moves: the one file's manifest, then the
 * sample's again. Returns 0, or -1 (error set) when the agent could not go on.
 */
static int measure_fixed(struct compare_session *s, const struct strategy *const *list, size_t n,
			 struct strategy_result **fixed)
{
	struct runner_opts o = s->o.run;
	int rc;

	*fixed = NULL;
	if (!s->one_made || !s->o.run.probes)
		return remove_one_file(s);
	if (!(*fixed = calloc(n, sizeof(**fixed))))
		return err_set("out of memory for the fixed costs' runs");
	o.sample = false;
	o.probes = NULL;
	o.what_if = NULL;
	o.nwhat_if = 0;
	o.forecasts = NULL;
	o.progress = NULL;
	o.phase = NULL;
	if (say(&s->o))
		fprintf(stderr, "measuring each strategy's fixed cost on one file (%s)...\n", s->one.m.entries[0].path);
	if (destination_send_manifest(&s->dest, &s->one.m) < 0)
		return -1;
	rc = runner_run(&o, s->one.dir, &s->one.m, &s->dest.target, list, n, *fixed);
	for (size_t i = 0; rc == 0 && s->o.verbose && i < n; i++)
		if ((*fixed)[i].status == RESULT_OK && (*fixed)[i].runs)
			fprintf(stderr, "  %s: %.3f s for one file\n", list[i]->name, (*fixed)[i].median.transfer);
		else
			fprintf(stderr, "  %s: no fixed cost (%s)\n", list[i]->name, (*fixed)[i].error);
	if (remove_one_file(s) < 0 || rc < 0)
		return -1;
	return destination_send_manifest(&s->dest, &s->sample.m);
}

int compare_sample_run(struct compare_session *s, const struct strategy *const *list, size_t n,
		       struct strategy_result *results, struct strategy_result *sample_results)
{
	struct strategy_result *first = s->o.sample_check ? sample_results : results, *fixed = NULL;
	struct runner_fixed one;
	int rc;

	s->whole_moved = !compare_sample_made(s);
	if (s->whole_moved) {
		watch_phase(results, &s->m);
		return runner_run(&s->o.run, s->root, &s->m, &s->dest.target, list, n, results);
	}
	watch_phase(first, &s->sample.m);
	if (measure_fixed(s, list, n, &fixed) < 0) {
		free(fixed);
		return -1;
	}
	one = (struct runner_fixed){ .m = &s->one.m, .results = fixed };
	rc = runner_run(&s->o.run, s->sample.dir, &s->sample.m, &s->dest.target, list, n, first);
	/* the whole's forecasts from the sample's runs (those that ran, even if the agent went after) */
	runner_forecast_whole(&s->o.run, &s->m, &s->sample.m, &one, first, n);
	free(fixed);
	if (rc < 0 || !s->o.sample_check)
		return rc;
	/* the agent verifies against the tree that moves: the whole's manifest now */
	if (destination_send_manifest(&s->dest, &s->m) < 0)
		return -1;
	s->whole_moved = true;
	watch_phase(results, &s->m);
	/* each strategy's forecast of the whole is the sample's, made before this pass */
	s->o.run.forecasts = sample_results;
	rc = runner_run(&s->o.run, s->root, &s->m, &s->dest.target, list, n, results);
	s->o.run.forecasts = NULL;
	return rc;
}

void compare_sample_suggest(const struct compare_session *s, const struct strategy *const *list, size_t n)
{
	char line[320];
	double total;

	if (s->o.sample_text || s->o.quiet)
		return;
	total = runner_forecast_total(&s->o.run, list, n, &s->m);
	if (total <= COMPARE_SAMPLE_SUGGEST_S)
		return;
	report_sample_suggestion(total, line, sizeof(line));
	fprintf(stderr, "xfercmp: %s\n", line);
}

void compare_sample_interrupt(void)
{
	const char *dir = interrupt_dir, *one = interrupt_one_dir;

	if (one && one[0])
		fs_remove_tree_parallel(AT_FDCWD, one, one, 1, NULL);

	if (!dir || !dir[0])
		return;
	/* the copy's threads may still be writing: a later pass takes what they made meanwhile */
	for (int pass = 0; pass < 50 && fs_remove_tree_parallel(AT_FDCWD, dir, dir, FS_REMOVE_THREADS, NULL) < 0; pass++)
		usleep(100 * 1000);
}

const char *compare_sample_dir(const struct compare_session *s)
{
	return compare_sample_made(s) ? s->sample.dir : "";
}

int compare_sample_release(struct compare_session *s)
{
	/* left only when the run ended before the fixed costs were measured */
	int rc = remove_one_file(s);

	interrupt_dir = NULL;
	if (s->one_drawn)
		workload_sample_release(&s->one);
	s->one_drawn = false;
	if (s->sampled)
		workload_sample_release(&s->sample);
	s->sampled = false;
	return rc;
}
