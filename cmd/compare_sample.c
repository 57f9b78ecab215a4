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
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* Room kept free beside the sample's copy on the source. */
#define SOURCE_MARGIN (256ull << 20)

/* The sample's directory while it exists, for the interrupt's thread (a buffer of the session). */
static const char *interrupt_dir;

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
	return 0;
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

int compare_sample_run(struct compare_session *s, const struct strategy *const *list, size_t n,
		       struct strategy_result *results, struct strategy_result *sample_results)
{
	struct strategy_result *first = s->o.sample_check ? sample_results : results;
	int rc;

	s->whole_moved = !compare_sample_made(s);
	if (s->whole_moved) {
		watch_phase(results, &s->m);
		return runner_run(&s->o.run, s->root, &s->m, &s->dest.target, list, n, results);
	}
	watch_phase(first, &s->sample.m);
	rc = runner_run(&s->o.run, s->sample.dir, &s->sample.m, &s->dest.target, list, n, first);
	/* the whole's forecasts from the sample's runs (those that ran, even if the agent went after) */
	runner_forecast_whole(&s->o.run, &s->m, &s->sample.m, first, n);
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
	const char *dir = interrupt_dir;

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

void compare_sample_release(struct compare_session *s)
{
	interrupt_dir = NULL;
	if (s->sampled)
		workload_sample_release(&s->sample);
	s->sampled = false;
}
