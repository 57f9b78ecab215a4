#define _GNU_SOURCE
#include "run/runner.h"

#include "clock.h"
#include "err.h"
#include "fsutil.h"
#include "nospace.h"
#include "client/agent_client.h"
#include "client/dest_space.h"
#include "client/measure.h"
#include "parallel.h"
#include "sample/rss.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct drop_job {
	const char *root;
	const struct manifest *m;
	bool load;	/* read each file into the page cache instead of dropping it */
};

static int drop_one(void *ctx, unsigned worker, uint64_t i)
{
	struct drop_job *job = ctx;
	char path[PATH_MAX], buf[1 << 16];
	int fd;

	(void)worker;
	if (fs_join(path, sizeof(path), job->root, job->m->entries[i].path) < 0)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return err_errno("cannot open source file '%s'", path);
	posix_fadvise(fd, 0, 0, job->load ? POSIX_FADV_WILLNEED : POSIX_FADV_DONTNEED);
	while (job->load && read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
	return 0;
}

int runner_load_source_cache(const char *src_root, const struct manifest *m)
{
	struct drop_job job = { .root = src_root, .m = m, .load = true };

	return parallel_for(m->count, 2 * parallel_cpus(), 64, drop_one, &job, NULL);
}

int runner_drop_source_cache(const char *src_root, const struct manifest *m)
{
	struct drop_job job = { .root = src_root, .m = m };
	int fd = open(src_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return err_errno("cannot open source '%s'", src_root);
	/* dirty pages survive DONTNEED: write them back first */
	syncfs(fd);
	close(fd);
	return parallel_for(m->count, 2 * parallel_cpus(), 64, drop_one, &job, NULL);
}

/*
 * A source file's size and times when the transfer started. A file written,
 * truncated or replaced while a strategy reads it changes one of them (ctime
 * moves on any write, even one that restores size and mtime), and its copy
 * then matches neither the manifest nor the file: the run must say so rather
 * than verify against stale data. Cheap: one lstat a file, no reading.
 */
struct src_stamp {
	uint64_t size;
	struct timespec mtime, ctime;
};

struct stamp_job {
	const char *root;
	const struct manifest *m;
	struct src_stamp *stamps;
	int check;	/* 0: take the stamps; 1: compare with them */
};

static int stamp_one(void *ctx, unsigned worker, uint64_t i)
{
	struct stamp_job *job = ctx;
	struct src_stamp now, *was = &job->stamps[i];
	char path[PATH_MAX];
	struct stat st;

	(void)worker;
	if (fs_join(path, sizeof(path), job->root, job->m->entries[i].path) < 0)
		return -1;
	if (lstat(path, &st) < 0) {
		if (job->check)
			return err_set("source changed during the run: %s (it is gone: %s)", path,
				       strerror(errno));
		return err_errno("cannot stat source file '%s'", path);
	}
	now = (struct src_stamp){ .size = (uint64_t)st.st_size, .mtime = st.st_mtim, .ctime = st.st_ctim };
	if (!job->check) {
		*was = now;
		return 0;
	}
	if (now.size != was->size || now.mtime.tv_sec != was->mtime.tv_sec ||
	    now.mtime.tv_nsec != was->mtime.tv_nsec || now.ctime.tv_sec != was->ctime.tv_sec ||
	    now.ctime.tv_nsec != was->ctime.tv_nsec)
		return err_set("source changed during the run: %s (its copy cannot be verified; rerun while nothing writes to the source)",
			       path);
	return 0;
}

/* Takes (check 0) or compares (check 1) every source file's stamp. Returns 0 or -1 (error set). */
static int stamp_source(const char *src_root, const struct manifest *m, struct src_stamp *stamps,
			int check)
{
	struct stamp_job job = { .root = src_root, .m = m, .stamps = stamps, .check = check };

	return parallel_for(m->count, 2 * parallel_cpus(), 256, stamp_one, &job, NULL);
}

/*
 * Errors that a full destination gives without saying so: sftp-server's
 * status 4, "Failure" (OpenSSH's maps ENOSPC to it), and GNU tar's short
 * write. They are called out of space only when the file system is full.
 */
static bool may_be_full(const char *error)
{
	return strstr(error, "(status 4") || strstr(error, "Wrote only");
}

/*
 * A destination that filled up is named as such, whichever side saw it (the
 * agent's receivers, the host's tar or sftp-server, a reference tool), with
 * what its file system has free now (nospace.h): the error names what was
 * being written. Call it with the agent's channel idle (no receive or
 * sampling under way): it asks the agent.
 */
static void name_out_of_space(struct xfer_target *t, struct strategy_result *r)
{
	struct nospace_free f;
	struct err_saved saved;
	bool enospc = nospace_says_enospc(r->error), known;

	if (strstr(r->error, NOSPACE_TEXT) || (!enospc && !may_be_full(r->error)) || t->agent->lost)
		return;
	err_save(&saved);
	known = dest_space_free(t->agent, &f) == 0;
	err_restore(&saved);
	if (enospc || (known && nospace_full(&f)))
		nospace_name(r->error, sizeof(r->error), known ? &f : NULL);
}

/* The agent's verdict on the job's destination into r (verified, verify_summary, error). */
static int verify(struct xfer_target *t, uint64_t job, struct strategy_result *r)
{
	struct agent_verify v;
	uint64_t peak;

	if (agent_client_verify(t->agent, job, r->strategy->preserves, &v) < 0)
		return -1;
	snprintf(r->verify_summary, sizeof(r->verify_summary), "%s", v.summary);
	r->verified = v.verified;
	r->authenticated = v.verified && !(r->strategy->flags & STRATEGY_OWN_TRANSPORT);
	r->unauthenticated = v.verified && !r->authenticated;
	r->tree_present = v.present;
	r->tree_kept = v.kept;
	r->content_ok = v.content_ok;
	/* the peaks of this run (prepare to verify) on both ends; the result keeps the highest run */
	if (v.peak_rss_bytes > r->agent_peak_rss_bytes)
		r->agent_peak_rss_bytes = v.peak_rss_bytes;
	if (v.lifetime_peak_rss_bytes > r->agent_lifetime_peak_rss_bytes)
		r->agent_lifetime_peak_rss_bytes = v.lifetime_peak_rss_bytes;
	peak = rss_window_peak();
	if (peak > r->client_peak_rss_bytes)
		r->client_peak_rss_bytes = peak;
	if (!r->verified) {
		size_t n;

		snprintf(r->error, sizeof(r->error), "verification failed: %s", v.summary);
		if (v.has_example) {
			n = strlen(r->error);
			snprintf(r->error + n, sizeof(r->error) - n, " (first: %s)", v.example);
		}
	}
	return 0;
}

/*
 * A null-sink run (runner_opts.null_sink): nothing was written, so nothing
 * is verified; what the sink counted must match the manifest (its whole
 * files' hashes it checked itself). Fills r; returns 0 when it matched.
 */
static int null_sink_check(const struct manifest *m, const struct recv_stats *got,
			   struct strategy_result *r)
{
	r->verified = false;
	r->stream_checked = got->files == m->count && got->bytes == m->total_bytes;
	snprintf(r->verify_summary, sizeof(r->verify_summary),
		 "null sink: %llu files, %llu bytes counted in the stream (nothing written, not a copy)",
		 (unsigned long long)got->files, (unsigned long long)got->bytes);
	if (!r->stream_checked)
		snprintf(r->error, sizeof(r->error),
			 "null sink counted %llu files of %llu bytes, the manifest has %zu of %llu",
			 (unsigned long long)got->files, (unsigned long long)got->bytes, m->count,
			 (unsigned long long)m->total_bytes);
	return r->stream_checked ? 0 : 1;
}

static int cleanup(struct xfer_target *t, uint64_t job)
{
	return agent_client_cleanup(t->agent, job, NULL);
}

static int sample_cmp(const void *a, const void *b)
{
	const struct run_sample *x = a, *y = b;
	double tx = x->transfer + x->flush, ty = y->transfer + y->flush;

	return tx < ty ? -1 : tx > ty;
}

/* Both ends' samples of one run. */
struct run_samples {
	bool have_local, have_remote;
	struct sampler_summary local, remote;
};

/*
 * A request the agent answered with an error (a failed syncfs, an unreadable
 * destination): this strategy fails with it and the next one runs. Only a lost
 * connection ends the whole run. Returns 1, or -1 when the agent is gone.
 */
static int agent_refused(struct xfer_target *t, struct strategy_result *r, uint64_t job)
{
	if (t->agent->lost)
		return -1;
	snprintf(r->error, sizeof(r->error), "%s", err_msg());
	name_out_of_space(t, r);
	if (job && cleanup(t, job) < 0)
		return -1;
	return 1;
}

/* Tells the progress what the run is doing after its bytes (runner_opts.phase). */
static void say_phase(const struct runner_opts *o, const char *what)
{
	if (o->phase)
		o->phase(o->progress_ctx, what);
}

/* One attempt; returns 0 if it ran and verified, 1 if it failed (r->error set), -1 if the agent is gone. */
static int run_once(const struct runner_opts *o, const char *src_root, const struct manifest *m,
		    struct xfer_target *t, const struct strategy *s, struct strategy_result *r,
		    struct run_sample *sample, struct run_samples *samples, struct src_stamp *stamps)
{
	struct measure meas;
	struct xfer_run run = {
		.strategy = s, .src_root = src_root, .manifest = m, .target = t, .opts = &o->strategy,
	};
	char dest[4096];
	clock_ns t0, t1, t2;
	int rc;

	/* this run's memory peak is measured from here to its verify (rss.h; the agent does the same) */
	(void)rss_window_start();
	if (agent_client_prepare(t->agent, s->name, &run.job, dest, sizeof(dest), r->dest_fs,
				 sizeof(r->dest_fs)) < 0)
		return agent_refused(t, r, 0);
	run.dest = dest;
	if (!o->warm && runner_drop_source_cache(src_root, m) < 0) {
		snprintf(r->error, sizeof(r->error), "%s", err_msg());
		cleanup(t, run.job);
		return 1;
	}
	if (stamp_source(src_root, m, stamps, 0) < 0) {
		snprintf(r->error, sizeof(r->error), "%s", err_msg());
		return cleanup(t, run.job) < 0 ? -1 : 1;
	}
	if (o->sample)
		measure_start(&meas, t->agent, src_root, run.job);
	t->agent->null_sink = o->null_sink;
	/* the first run's first byte: the moment its forecast must precede */
	if (!r->started_at[0])
		wallclock_now(r->started_at, sizeof(r->started_at));
	t0 = clock_now();
	rc = s->run(&run);
	t1 = clock_now();
	t->agent->null_sink = false;
	if (rc < 0) {
		snprintf(r->error, sizeof(r->error), "%s", err_msg());
		if (o->sample && measure_stop(&meas, t->agent, &samples->local, &samples->have_local,
					      &samples->remote, &samples->have_remote) < 0)
			return -1;
		name_out_of_space(t, r);
		return cleanup(t, run.job) < 0 ? -1 : 1;
	}
	say_phase(o, "flushing");
	rc = agent_client_flush(t->agent, run.job);
	t2 = clock_now();
	/* the sampler threads work on meas, on this stack: stopped on every way out */
	if (rc < 0) {
		struct err_saved why;

		err_save(&why);
		if (o->sample)
			(void)measure_stop(&meas, t->agent, &samples->local, &samples->have_local,
					   &samples->remote, &samples->have_remote);
		err_restore(&why);
		return agent_refused(t, r, run.job);
	}
	if (o->sample && measure_stop(&meas, t->agent, &samples->local, &samples->have_local,
				      &samples->remote, &samples->have_remote) < 0)
		return -1;
	if (stamp_source(src_root, m, stamps, 1) < 0) {
		snprintf(r->error, sizeof(r->error), "%s", err_msg());
		return cleanup(t, run.job) < 0 ? -1 : 1;
	}
	sample->transfer = clock_seconds(t0, t1);
	sample->flush = clock_seconds(t1, t2);
	sample->sender_own_s = run.sent.own_s;
	r->sent = run.sent;
	r->received = run.received;
	r->sizing = run.sizing;
	if (o->null_sink) {
		rc = null_sink_check(m, &run.received, r);
		return cleanup(t, run.job) < 0 ? -1 : rc;
	}
	say_phase(o, "verifying");
	if (verify(t, run.job, r) < 0)
		return agent_refused(t, r, run.job);
	say_phase(o, "cleaning up");
	if (cleanup(t, run.job) < 0)
		return -1;
	return r->verified ? 0 : 1;
}

/* The strategies after list[i] are skipped: the run stopped at list[i]. */
static void skip_rest(const struct strategy *const *list, size_t i, size_t n,
		      struct strategy_result *results)
{
	for (size_t j = i + 1; j < n; j++) {
		memset(&results[j], 0, sizeof(results[j]));
		results[j].strategy = list[j];
		results[j].status = RESULT_SKIPPED;
		snprintf(results[j].error, sizeof(results[j].error), "not run: the run stopped at %s",
			 list[i]->name);
	}
}

/* r's wire bytes for the report, and how they were measured (runner.h). */
static void wire_of(struct strategy_result *r)
{
	if (r->sent.wire_bytes > 0) {
		r->wire_bytes = r->sent.wire_bytes;
		r->wire_source = WIRE_SENDER;
	} else if (r->have_local && r->local.has_net) {
		r->wire_bytes = r->local.net_tx_bytes;
		r->wire_source = WIRE_LINK;
	} else {
		r->wire_bytes = 0;
		r->wire_source = WIRE_UNMEASURED;
	}
}

/*
 * r's figures from its `done` (>= 1) verified runs: every run's time in run
 * order and their statistics, the median run's times and samples, min and
 * max, the wire bytes, the verdict. Sorts samples.
 */
static void summarize(struct strategy_result *r, struct run_sample *samples, unsigned done,
		      const struct run_samples *measured, const struct forecast_input *in,
		      const struct runner_opts *o)
{
	for (unsigned k = 0; k < done; k++)
		r->run_seconds[k] = samples[k].transfer + samples[k].flush;
	stats_of(r->run_seconds, done, &r->time);
	qsort(samples, done, sizeof(samples[0]), sample_cmp);
	r->median = samples[done / 2];
	r->min_seconds = samples[0].transfer + samples[0].flush;
	r->max_seconds = samples[done - 1].transfer + samples[done - 1].flush;
	r->have_local = measured[r->median.index].have_local;
	r->local = measured[r->median.index].local;
	r->have_remote = measured[r->median.index].have_remote;
	r->remote = measured[r->median.index].remote;
	wire_of(r);
	if (in->probes) {
		struct run_record rec;

		runner_record(r, &rec);
		r->have_accounting = accounting_make(&rec, in, &r->accounting) == 0;
		for (size_t k = 0; k < o->nwhat_if && k < RUNNER_WHAT_IF_MAX; k++)
			r->have_what_if[k] = what_if_forecast(&rec, in, &o->what_if[k], &r->what_if[k]) == 0;
	}
}

void runner_record(const struct strategy_result *r, struct run_record *rec)
{
	*rec = (struct run_record){
		.strategy = r->strategy,
		.transfer_s = r->median.transfer,
		.flush_s = r->median.flush,
		.sent = r->sent,
		.have_local = r->have_local,
		.have_remote = r->have_remote,
		.local = r->local,
		.remote = r->remote,
	};
}

void runner_forecast_input(const struct runner_opts *o, const struct strategy *s,
			   const struct manifest *m, struct forecast_input *in)
{
	*in = (struct forecast_input){
		.strategy = s,
		.probes = o->probes,
		.streams = o->strategy.streams,
		.warm_source = o->warm,
	};
	workload_counts_of(m, &in->work);
}

/*
 * The forecast of s on this workload, made now: before its first run moves
 * a byte (runner_run calls it first), from nothing a run of it measured.
 */
static void forecast_before(const struct forecast_input *in, struct strategy_result *r)
{
	if (!in->probes || r->forecast_made_at[0])
		return;
	wallclock_now(r->forecast_made_at, sizeof(r->forecast_made_at));
	r->have_forecast = forecast_make(in, NULL, &r->forecast) == 0 && r->forecast.seconds > 0;
}

/* What every run of every strategy shares: the inputs and the scratch arrays. */
struct run_all {
	const struct runner_opts *o;
	unsigned repeat;
	const char *src_root;
	const struct manifest *m;
	struct xfer_target *target;
	struct run_sample samples[RUNNER_MAX_REPEAT];
	struct run_samples *measured;	/* repeat of them */
	struct src_stamp *stamps;	/* one a manifest entry */
	struct forecast_input in;	/* the strategy's forecast's: the counts are the workload's */
};

/*
 * Runs s up to `repeat` times into r (status, runs, the median's figures),
 * stopping at the first run that fails. Returns 0, or -1 (error set) when
 * the agent is gone: then r has failed with that error.
 */
static int run_strategy(struct run_all *all, const struct strategy *s, struct strategy_result *r)
{
	const struct runner_opts *o = all->o;
	unsigned done = 0;

	r->status = RESULT_OK;
	all->in.strategy = s;
	forecast_before(&all->in, r);
	for (unsigned k = 0; k < all->repeat; k++) {
		int rc;

		if (o->progress)
			o->progress(o->progress_ctx, s, k + 1, all->repeat, NULL);
		err_clear();
		all->samples[done].index = done;
		memset(&all->measured[done], 0, sizeof(all->measured[done]));
		rc = run_once(o, all->src_root, all->m, all->target, s, r, &all->samples[done],
			      &all->measured[done], all->stamps);
		if (rc < 0) {
			/* the agent is gone: this one failed, the rest cannot run */
			err_wrap("strategy %s", s->name);
			snprintf(r->error, sizeof(r->error), "%s", err_msg());
			r->status = RESULT_FAILED;
			r->verified = false;
			return -1;
		}
		if (rc > 0) {
			r->status = RESULT_FAILED;
			r->verified = false;
			break;
		}
		done++;
	}
	r->runs = done;
	if (done)
		summarize(r, all->samples, done, all->measured, &all->in, o);
	return 0;
}

/*
 * Whether s must not run: it would send the user's own files unencrypted
 * across a network, and the user did not say so is fine.
 */
static bool refuses_cleartext(const struct runner_opts *o, const struct xfer_target *t, const struct strategy *s)
{
	return (s->flags & STRATEGY_CLEARTEXT) && o->user_tree && !o->allow_cleartext &&
	       agent_client_in_clear(t->agent);
}

static const char *target_label(const struct xfer_target *t)
{
	return t->label ? t->label : t->agent->label;
}

/* refuses_cleartext, with the reason in r->error */
static bool cleartext_refused(const struct runner_opts *o, const struct xfer_target *t,
			      const struct strategy *s, struct strategy_result *r)
{
	if (!refuses_cleartext(o, t, s))
		return false;
	snprintf(r->error, sizeof(r->error),
		 "would send your files unencrypted over TCP to %s (the SSH strategies encrypt); pass --allow-cleartext to run it",
		 target_label(t));
	return true;
}

size_t runner_cleartext_notice(const struct runner_opts *o, const struct xfer_target *t,
			       const struct strategy *const *list, size_t n, char *buf, size_t len)
{
	size_t refused = 0, used = 0, total = 0;
	int k;

	for (size_t i = 0; i < n; i++)
		total += refuses_cleartext(o, t, list[i]);
	if (!total || !len)
		return 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++) {
		if (!refuses_cleartext(o, t, list[i]))
			continue;
		refused++;
		k = snprintf(buf + used, len - used, "%s%s", refused == 1 ? "" : refused == total ? " and " : ", ",
			     list[i]->name);
		used += k > 0 ? (size_t)k : 0;
	}
	if (used < len)
		snprintf(buf + used, len - used,
			 " will be skipped: %s would send your files unencrypted over TCP to %s (the SSH "
			 "strategies encrypt); pass --allow-cleartext to run %s",
			 total == 1 ? "it" : "they", target_label(t), total == 1 ? "it" : "them");
	return total;
}

int runner_run(const struct runner_opts *o, const char *src_root, const struct manifest *m,
	       struct xfer_target *target, const struct strategy *const *list, size_t n,
	       struct strategy_result *results)
{
	struct run_all all = {
		.o = o, .repeat = o->repeat ? o->repeat : 1, .src_root = src_root, .m = m,
		.target = target,
	};
	int rc = 0;

	if (all.repeat > RUNNER_MAX_REPEAT)
		return err_set("--repeat: at most %d", RUNNER_MAX_REPEAT);
	if (o->nwhat_if > RUNNER_WHAT_IF_MAX)
		return err_set("--what-if: at most %d links", RUNNER_WHAT_IF_MAX);
	runner_forecast_input(o, n ? list[0] : NULL, m, &all.in);
	all.measured = calloc(all.repeat, sizeof(*all.measured));
	all.stamps = calloc(m->count ? m->count : 1, sizeof(*all.stamps));
	if (!all.measured || !all.stamps) {
		rc = err_set("out of memory for %u runs' samples", all.repeat);
		goto out;
	}
	/* the source vouches for the large files' content when it came raw (agent_client.h) */
	agent_client_set_source(target->agent, src_root, m);
	for (size_t i = 0; i < n; i++) {
		const struct strategy *s = list[i];
		struct strategy_result *r = &results[i];

		memset(r, 0, sizeof(*r));
		r->strategy = s;
		if (o->forecasts && o->forecasts[i].forecast_made_at[0]) {
			/* the whole's forecast from the sample, made before this pass */
			r->have_forecast = o->forecasts[i].have_forecast;
			r->forecast = o->forecasts[i].forecast;
			r->forecast_from_sample = o->forecasts[i].forecast_from_sample;
			memcpy(r->forecast_made_at, o->forecasts[i].forecast_made_at, sizeof(r->forecast_made_at));
		}
		r->warm_source = o->warm;
		target->manifest = m;
		if (cleartext_refused(o, target, s, r) ||
		    (s->available && s->available(target, r->error, sizeof(r->error)) != 0)) {
			r->status = RESULT_SKIPPED;
			if (o->progress)
				o->progress(o->progress_ctx, s, 0, 0, r);
			continue;
		}
		if (run_strategy(&all, s, r) < 0) {
			skip_rest(list, i, n, results);
			rc = -1;
			break;
		}
		r->cleartext = (s->flags & STRATEGY_CLEARTEXT) && agent_client_in_clear(target->agent);
		r->agent_via_ssh = (s->flags & STRATEGY_CLEARTEXT) && target->agent->via_ssh;
		if (o->progress)
			o->progress(o->progress_ctx, s, r->runs, all.repeat, r);
	}
out:
	free(all.measured);
	free(all.stamps);
	return rc;
}
