#define _GNU_SOURCE
#include "generate.h"

#include "clock.h"
#include "err.h"
#include "fsutil.h"
#include "hash_bufs.h"
#include "parallel.h"
#include "generate_features.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t on the stack */
#include <xxhash.h>

/* Large files are written in 4 MiB pieces: big enough for the disk, a multiple of WORKLOAD_BLOCK. */
#define WRITE_CHUNK (4u * WORKLOAD_BLOCK)

/* Set by workload_generate_cancel; lock-free, so a signal handler may store to it. */
static atomic_bool cancel_requested;

void workload_generate_cancel(bool on)
{
	atomic_store(&cancel_requested, on);
}

int generate_check_cancel(void)
{
	return atomic_load(&cancel_requested) ? err_set("interrupted") : 0;
}

struct gen_job {
	const struct workload_spec *spec;
	const char *dir;
	uint64_t *hashes;
	struct hash_bufs bufs;
	uint64_t total;
	mode_t umask;
};

static int write_file(void *ctx, unsigned worker, uint64_t i)
{
	struct gen_job *job = ctx;
	unsigned char *buf = job->bufs.buf[worker];
	struct workload_entry e;
	char path[PATH_MAX];
	XXH3_state_t state;
	uint64_t off = 0;
	int fd;

	if (generate_check_cancel() < 0)
		return -1;
	workload_entry(job->spec, i, &e);
	if (fs_join(path, sizeof(path), job->dir, e.path) < 0)
		return -1;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, e.mode);
	if (fd < 0)
		return err_errno("cannot create '%s'", path);
	/* the manifest records e.mode: make the disk agree whatever the umask */
	if ((e.mode & job->umask) && fchmod(fd, e.mode) < 0) {
		err_errno("cannot set the mode of '%s'", path);
		close(fd);
		return -1;
	}
	XXH3_64bits_reset(&state);
	while (off < e.size) {
		uint64_t n = e.size - off < WRITE_CHUNK ? e.size - off : WRITE_CHUNK;

		workload_fill(job->spec, i, off, buf, n);
		XXH3_64bits_update(&state, buf, (size_t)n);
		if (fs_write_all(fd, buf, (size_t)n) < 0) {
			err_errno("cannot write '%s'", path);
			close(fd);
			return -1;
		}
		off += n;
	}
	if (e.mtime != WORKLOAD_NO_MTIME) {
		struct timespec times[2] = { { .tv_sec = e.mtime }, { .tv_sec = e.mtime } };

		if (futimens(fd, times) < 0) {
			err_errno("cannot set the mtime of '%s'", path);
			close(fd);
			return -1;
		}
	}
	if (close(fd) < 0)
		return err_errno("cannot write '%s'", path);
	job->hashes[i] = XXH3_64bits_digest(&state);
	if (job->spec->features.on && i < workload_small_count(job->spec) &&
	    generate_features_after_file(job->spec, job->dir, i, path) < 0)
		return -1;
	return 0;
}

static void draw_progress(void *ctx, uint64_t done, uint64_t total)
{
	(void)ctx;
	fprintf(stderr, "\rgenerating: %3u%% %llu/%llu files", (unsigned)(total ? done * 100 / total : 100),
		(unsigned long long)done, (unsigned long long)total);
	if (done == total)
		fputc('\n', stderr);
	fflush(stderr);
}

/* Returns 1 if it created dir, 0 if dir existed empty, -1 (error set) otherwise. */
static int prepare_dir(const char *dir)
{
	struct stat st;
	int empty;

	if (stat(dir, &st) < 0) {
		if (errno != ENOENT)
			return err_errno("cannot use '%s'", dir);
		return fs_mkdir_p(dir) < 0 ? -1 : 1;
	}
	if (!S_ISDIR(st.st_mode))
		return err_set("'%s' exists and is not a directory: give a new or empty directory", dir);
	empty = fs_dir_is_empty(dir);
	if (empty < 0)
		return -1;
	if (!empty)
		return err_set("'%s' is not empty: give a new or empty directory", dir);
	return 0;
}

/* Removes what a failed generation wrote; a directory the user gave us stays, empty. */
static void undo(const char *dir, int created)
{
	struct err_saved saved;

	err_save(&saved);
	if (created)
		fs_remove_tree(dir);
	else
		fs_clear_dir(dir);
	err_restore(&saved);
}

int workload_generate(const struct workload_spec *spec, const char *dir, unsigned threads,
		      bool progress, struct manifest *m, struct generate_stats *st)
{
	struct gen_job job = { .spec = spec, .dir = dir };
	uint64_t n = workload_count(spec), ndirs = workload_dir_count(spec);
	clock_ns start = clock_now();
	int created, rc = -1;

	memset(st, 0, sizeof(*st));
	manifest_init(m);
	job.umask = umask(022);
	umask(job.umask);
	if (spec->kind == WORKLOAD_DIR)
		return err_set("dir: workloads are the user's own data; there is nothing to generate");
	if (spec->features.on && spec->kind == WORKLOAD_LARGEFILE)
		return err_set("tree features apply to the small files of smallfiles and mixed, not to largefile");
	created = prepare_dir(dir);
	if (created < 0)
		return -1;
	job.hashes = calloc(n ? n : 1, sizeof(*job.hashes));
	if (!job.hashes) {
		err_set("out of memory for %llu files", (unsigned long long)n);
		goto out;
	}
	if (hash_bufs_init(&job.bufs, threads, WRITE_CHUNK) < 0) {
		err_set("out of memory for write buffers");
		goto out;
	}
	if (generate_check_cancel() < 0)
		goto out;
	for (uint64_t d = 0; d < ndirs; d++) {
		char rel[64], path[PATH_MAX];

		workload_dir_name(spec, d, rel, sizeof(rel));
		if (fs_join(path, sizeof(path), dir, rel) < 0 || fs_mkdir_p(path) < 0)
			goto out;
	}
	if (spec->features.on && generate_features_dirs(spec, dir) < 0)
		goto out;
	/*
	 * A chunk is one directory, so threads do not contend for the same
	 * directory lock (and generate_features_after_file can count on it).
	 */
	if (parallel_for(n, threads, WORKLOAD_FILES_PER_DIR, write_file, &job, progress ? draw_progress : NULL) < 0)
		goto out;
	if (spec->features.on) {
		if (generate_features_manifest(spec, dir, job.hashes, m) < 0)
			goto out;
	} else {
		/* the plain workload's manifest, as it always was: files, no mtimes, no directories */
		for (uint64_t i = 0; i < n; i++) {
			struct workload_entry e;

			workload_entry(spec, i, &e);
			if (manifest_add(m, e.path, e.size, e.mode, job.hashes[i]) < 0)
				goto out;
		}
	}
	manifest_sort(m);
	st->files = n;
	st->bytes = m->total_bytes;
	st->dirs = spec->features.on ? m->ndirs : ndirs;
	st->symlinks = m->nsymlinks;
	st->hardlinks = m->nhardlinks;
	st->seconds = clock_seconds(start, clock_now());
	rc = 0;
out:
	hash_bufs_release(&job.bufs);
	free(job.hashes);
	if (rc < 0) {
		manifest_release(m);
		undo(dir, created);
	}
	return rc;
}
