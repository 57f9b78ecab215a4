#define _GNU_SOURCE
#include "generate.h"

#include "clock.h"
#include "err.h"
#include "fsutil.h"
#include "hash_bufs.h"
#include "parallel.h"
#include "tree_features.h"

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

static int check_cancel(void)
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

/*
 * The links small file i brings (tree features): its symbolic link, and its
 * other names, made once the file (at file_path) is complete. Their
 * directories exist already; their mtimes are set at the end.
 */
static int write_links(const struct gen_job *job, uint64_t i, const char *file_path)
{
	char names[TREE_FEATURES_MAX_HARDLINKS][64], path[PATH_MAX];
	unsigned nnames = tree_features_hardlinks(job->spec, i, names);
	struct feature_link l;

	if (tree_features_symlink(job->spec, i, &l)) {
		if (fs_join(path, sizeof(path), job->dir, l.path) < 0)
			return -1;
		if (symlink(l.target, path) < 0)
			return err_errno("cannot create symbolic link '%s'", path);
	}
	for (unsigned k = 0; k < nnames; k++) {
		if (fs_join(path, sizeof(path), job->dir, names[k]) < 0)
			return -1;
		if (link(file_path, path) < 0)
			return err_errno("cannot create hard link '%s'", path);
	}
	return 0;
}

/*
 * After small file i is written (tree features): its links, and, after the
 * last file of a read-only directory, that directory's 0555. A chunk of
 * parallel_for is one leaf, written in index order by one thread, so the
 * directory's other files are written by then; made read-only here rather
 * than at the end, a failure or an interrupt later leaves 0555 directories
 * behind, which the cleanup must and does remove.
 */
static int finish_features(const struct gen_job *job, uint64_t i, const char *file_path)
{
	uint64_t nsmall = workload_small_count(job->spec);
	char rodir[64], path[PATH_MAX];

	if (write_links(job, i, file_path) < 0)
		return -1;
	if ((i % TREE_FEATURES_RODIR_FILES == TREE_FEATURES_RODIR_FILES - 1 || i + 1 == nsmall) &&
	    tree_features_rodir(job->spec, i, rodir, sizeof(rodir))) {
		if (fs_join(path, sizeof(path), job->dir, rodir) < 0)
			return -1;
		if (chmod(path, 0555) < 0)
			return err_errno("cannot make '%s' read-only", path);
	}
	return 0;
}

static int write_file(void *ctx, unsigned worker, uint64_t i)
{
	struct gen_job *job = ctx;
	unsigned char *buf = job->bufs.buf[worker];
	struct workload_entry e;
	char path[PATH_MAX];
	XXH3_state_t state;
	uint64_t off = 0;
	int fd;

	if (check_cancel() < 0)
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
	    finish_features(job, i, path) < 0)
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

/* Every directory tree features bring (empty ones, read-only ones before they are read-only). */
static int make_feature_dirs(const struct workload_spec *spec, const char *dir)
{
	uint64_t nsmall = workload_small_count(spec);

	for (uint64_t i = 0; i < nsmall; i++) {
		struct feature_dir dirs[TREE_FEATURES_MAX_DIRS];
		unsigned n = tree_features_dirs(spec, i, dirs);

		if (i % WORKLOAD_FILES_PER_DIR == 0 && check_cancel() < 0)
			return -1;
		for (unsigned k = 0; k < n; k++) {
			char path[PATH_MAX];

			if (fs_join(path, sizeof(path), dir, dirs[k].path) < 0)
				return -1;
			if (mkdir(path, 0755) < 0)
				return err_errno("cannot create directory '%s'", path);
		}
	}
	return 0;
}

/*
 * Gives directory rel its final mode and mtime, and lists it in m. Called
 * once nothing more is created in it: a later entry would move its mtime.
 */
static int finish_dir(struct manifest *m, const char *root, const char *rel, uint32_t mode,
		      uint64_t seed)
{
	int64_t mtime = tree_features_mtime(seed, rel);
	struct timespec times[2] = { { .tv_sec = mtime }, { .tv_sec = mtime } };
	char path[PATH_MAX];

	if (fs_join(path, sizeof(path), root, rel) < 0)
		return -1;
	if (chmod(path, mode) < 0)
		return err_errno("cannot set the mode of '%s'", path);
	if (utimensat(AT_FDCWD, path, times, AT_SYMLINK_NOFOLLOW) < 0)
		return err_errno("cannot set the mtime of '%s'", path);
	return manifest_add_dir(m, rel, mode, mtime);
}

/*
 * Lists file i of a workload with tree features in m, with its other names:
 * as manifest_from_tree reads a hard-link group, the bytewise-first name is
 * the file (a file of a read-only directory "r..." sorts after its names
 * "h..." in the leaf), the others hard links to it.
 */
static int add_file_group(struct manifest *m, const struct workload_spec *spec, uint64_t i,
			  uint64_t hash)
{
	char names[TREE_FEATURES_MAX_HARDLINKS][64];
	unsigned nnames = i < workload_small_count(spec) ? tree_features_hardlinks(spec, i, names) : 0;
	struct workload_entry e;
	const char *primary;

	workload_entry(spec, i, &e);
	primary = e.path;
	for (unsigned k = 0; k < nnames; k++)
		if (strcmp(names[k], primary) < 0)
			primary = names[k];
	if (manifest_add_file(m, primary, e.size, e.mode, e.mtime, hash) < 0)
		return -1;
	if (primary != e.path && manifest_add_hardlink(m, e.path, primary) < 0)
		return -1;
	for (unsigned k = 0; k < nnames; k++)
		if (names[k] != primary && manifest_add_hardlink(m, names[k], primary) < 0)
			return -1;
	return 0;
}

/*
 * The manifest of a workload with tree features, once every file and link
 * is written: every node, and each directory's final mode and mtime set on
 * the way (finish_dir).
 */
static int finish_tree(const struct gen_job *job, struct manifest *m)
{
	const struct workload_spec *spec = job->spec;
	uint64_t n = workload_count(spec), nsmall = workload_small_count(spec);
	uint64_t ndirs = workload_dir_count(spec), per = workload_leaves_per_parent();

	for (uint64_t d = 0; d < ndirs; d++) {
		char rel[64];

		workload_dir_name(spec, d, rel, sizeof(rel));
		if (finish_dir(m, job->dir, rel, 0755, spec->seed) < 0)
			return -1;
		/* a leaf dPPPP/dLL: its parent dPPPP, once, with its first leaf */
		if (d * WORKLOAD_FILES_PER_DIR < nsmall && d % per == 0) {
			*strchr(rel, '/') = '\0';
			if (finish_dir(m, job->dir, rel, 0755, spec->seed) < 0)
				return -1;
		}
	}
	for (uint64_t i = 0; i < n; i++) {
		struct feature_dir dirs[TREE_FEATURES_MAX_DIRS];
		struct feature_link l;
		unsigned nd;

		if (i % WORKLOAD_FILES_PER_DIR == 0 && check_cancel() < 0)
			return -1;
		if (add_file_group(m, spec, i, job->hashes[i]) < 0)
			return -1;
		if (i >= nsmall)
			continue;
		if (tree_features_symlink(spec, i, &l) && manifest_add_symlink(m, l.path, l.target) < 0)
			return -1;
		nd = tree_features_dirs(spec, i, dirs);
		for (unsigned k = 0; k < nd; k++)
			if (finish_dir(m, job->dir, dirs[k].path, dirs[k].mode, spec->seed) < 0)
				return -1;
	}
	return 0;
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
	if (check_cancel() < 0)
		goto out;
	for (uint64_t d = 0; d < ndirs; d++) {
		char rel[64], path[PATH_MAX];

		workload_dir_name(spec, d, rel, sizeof(rel));
		if (fs_join(path, sizeof(path), dir, rel) < 0 || fs_mkdir_p(path) < 0)
			goto out;
	}
	if (spec->features.on && make_feature_dirs(spec, dir) < 0)
		goto out;
	/*
	 * A chunk is one directory, so threads do not contend for the same
	 * directory lock (and finish_features can count on it).
	 */
	if (parallel_for(n, threads, WORKLOAD_FILES_PER_DIR, write_file, &job, progress ? draw_progress : NULL) < 0)
		goto out;
	if (spec->features.on) {
		if (finish_tree(&job, m) < 0)
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
