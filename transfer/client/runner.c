#define _GNU_SOURCE
#include "client/runner.h"

#include "clock.h"
#include "err.h"
#include "fsutil.h"
#include "client/measure.h"
#include "parallel.h"
#include "measure/verdict.h"

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
};

static int drop_one(void *ctx, unsigned worker, uint64_t i)
{
	struct drop_job *job = ctx;
	char path[PATH_MAX];
	int fd;

	(void)worker;
	if (fs_join(path, sizeof(path), job->root, job->m->entries[i].path) < 0)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return err_errno("cannot open source file '%s'", path);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	return 0;
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
 * A destination that filled up is named as such, whichever side saw it: our
 * agent's errors carry strerror's text for ENOSPC, and so does the host's tar.
 */
static void name_out_of_space(struct strategy_result *r)
{
	char msg[sizeof(r->error)];

	if (!strstr(r->error, strerror(ENOSPC)))
		return;
	/* a long message loses its tail: the cause is named first */
	if (snprintf(msg, sizeof(msg), "the destination ran out of space (ENOSPC): %s", r->error) < 0)
		return;
	snprintf(r->error, sizeof(r->error), "%s", msg);
}

static int prepare(struct xfer_target *t, const struct strategy *s, uint64_t *job, char *dest,
		   size_t len, char *fs, size_t fslen)
{
	json_object *req = json_object_new_object(), *reply = NULL;
	const char *d, *f;
	int rc;

	json_object_object_add(req, "op", json_object_new_string("prepare"));
	json_object_object_add(req, "strategy", json_object_new_string(s->name));
	rc = agent_client_call(t->agent, req, &reply);
	json_object_put(req);
	if (rc == 0 && (wire_get_u64(reply, "job", job) < 0 || wire_get_str(reply, "dest", &d) < 0 ||
			wire_get_str(reply, "dest_fs", &f) < 0))
		rc = -1;
	if (rc == 0) {
		snprintf(dest, len, "%s", d);
		snprintf(fs, fslen, "%s", f);
	}
	json_object_put(reply);
	return rc;
}

static int flush(struct xfer_target *t, uint64_t job)
{
	json_object *reply = NULL;
	int rc = agent_client_simple(t->agent, "flush", job, &reply);

	json_object_put(reply);
	return rc;
}

static int verify(struct xfer_target *t, uint64_t job, struct strategy_result *r)
{
	json_object *reply = NULL, *v;
	const char *summary = "";
	int rc = agent_client_simple(t->agent, "verify", job, &reply);

	if (rc < 0)
		return -1;
	wire_get_str(reply, "summary", &summary);
	snprintf(r->verify_summary, sizeof(r->verify_summary), "%s", summary);
	r->verified = json_object_object_get_ex(reply, "verified", &v) && json_object_get_boolean(v);
	if (!r->verified) {
		json_object *ex;
		size_t n = 0;

		snprintf(r->error, sizeof(r->error), "verification failed: %s", summary);
		if (json_object_object_get_ex(reply, "examples", &ex) && json_object_array_length(ex)) {
			n = strlen(r->error);
			snprintf(r->error + n, sizeof(r->error) - n, " (first: %s)",
				 json_object_get_string(json_object_array_get_idx(ex, 0)));
		}
	}
	json_object_put(reply);
	return 0;
}

static int cleanup(struct xfer_target *t, uint64_t job)
{
	json_object *reply = NULL;
	int rc = agent_client_simple(t->agent, "cleanup", job, &reply);

	json_object_put(reply);
	return rc;
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
	name_out_of_space(r);
	if (job && cleanup(t, job) < 0)
		return -1;
	return 1;
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

	if (prepare(t, s, &run.job, dest, sizeof(dest), r->dest_fs, sizeof(r->dest_fs)) < 0)
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
	t0 = clock_now();
	rc = s->run(&run);
	t1 = clock_now();
	if (rc < 0) {
		snprintf(r->error, sizeof(r->error), "%s", err_msg());
		name_out_of_space(r);
		if (o->sample && measure_stop(&meas, t->agent, &samples->local, &samples->have_local,
					      &samples->remote, &samples->have_remote) < 0)
			return -1;
		return cleanup(t, run.job) < 0 ? -1 : 1;
	}
	rc = flush(t, run.job);
	t2 = clock_now();
	/* the sampler threads work on meas, on this stack: stopped on every way out */
	if (rc < 0) {
		char why[ERR_MAX];

		snprintf(why, sizeof(why), "%s", err_msg());
		if (o->sample)
			(void)measure_stop(&meas, t->agent, &samples->local, &samples->have_local,
					   &samples->remote, &samples->have_remote);
		err_set("%s", why);
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
	r->sent = run.sent;
	r->received = run.received;
	if (verify(t, run.job, r) < 0)
		return agent_refused(t, r, run.job);
	if (cleanup(t, run.job) < 0)
		return -1;
	return r->verified ? 0 : 1;
}

int runner_run(const struct runner_opts *o, const char *src_root, const struct manifest *m,
	       struct xfer_target *target, const struct strategy *const *list, size_t n,
	       struct strategy_result *results)
{
	unsigned repeat = o->repeat ? o->repeat : 1;
	struct run_sample samples[RUNNER_MAX_REPEAT];
	struct run_samples *measured;
	struct src_stamp *stamps;

	if (repeat > RUNNER_MAX_REPEAT)
		return err_set("--repeat: at most %d", RUNNER_MAX_REPEAT);
	measured = calloc(repeat, sizeof(*measured));
	stamps = calloc(m->count ? m->count : 1, sizeof(*stamps));
	if (!measured || !stamps) {
		free(measured);
		free(stamps);
		return err_set("out of memory for %u runs' samples", repeat);
	}
	for (size_t i = 0; i < n; i++) {
		const struct strategy *s = list[i];
		struct strategy_result *r = &results[i];
		unsigned done = 0;

		memset(r, 0, sizeof(*r));
		r->strategy = s;
		r->warm_source = o->warm;
		if (s->available && s->available(target, r->error, sizeof(r->error)) != 0) {
			r->status = RESULT_SKIPPED;
			if (o->progress)
				o->progress(o->progress_ctx, s, 0, 0, r);
			continue;
		}
		r->status = RESULT_OK;
		for (unsigned k = 0; k < repeat; k++) {
			int rc;

			if (o->progress)
				o->progress(o->progress_ctx, s, k + 1, repeat, NULL);
			err_clear();
			samples[done].index = done;
			memset(&measured[done], 0, sizeof(measured[done]));
			rc = run_once(o, src_root, m, target, s, r, &samples[done], &measured[done], stamps);
			if (rc < 0) {
				/* the agent is gone: this one failed, the rest cannot run */
				err_wrap("strategy %s", s->name);
				snprintf(r->error, sizeof(r->error), "%s", err_msg());
				r->status = RESULT_FAILED;
				r->verified = false;
				for (size_t j = i + 1; j < n; j++) {
					memset(&results[j], 0, sizeof(results[j]));
					results[j].strategy = list[j];
					results[j].status = RESULT_SKIPPED;
					snprintf(results[j].error, sizeof(results[j].error),
						 "not run: the run stopped at %s", s->name);
				}
				free(measured);
				free(stamps);
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
		if (done) {
			qsort(samples, done, sizeof(samples[0]), sample_cmp);
			r->median = samples[done / 2];
			r->min_seconds = samples[0].transfer + samples[0].flush;
			r->max_seconds = samples[done - 1].transfer + samples[done - 1].flush;
			r->have_local = measured[r->median.index].have_local;
			r->local = measured[r->median.index].local;
			r->have_remote = measured[r->median.index].have_remote;
			r->remote = measured[r->median.index].remote;
			verdict_compute(r, o->probes);
		}
		if (o->progress)
			o->progress(o->progress_ctx, s, done, repeat, r);
	}
	free(measured);
	free(stamps);
	return 0;
}
