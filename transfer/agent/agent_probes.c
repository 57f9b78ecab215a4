/*
 * The agent's destination probes, the requests "probe_disk" and
 * "probe_create" (see probes.h); probe_destination() in probe_net.c is the
 * client's side. Both work in a fresh directory they make beneath the
 * scratch root's descriptor (agent_root_make_temp) and reach everything in
 * it through that directory's descriptor, never by a path: a root renamed
 * away, or a link put in its place or below it, leads nowhere else. The disk
 * probe removes its directory before it answers; the create probe keeps
 * its files once it has measured (see agent_op_probe_create), and removes
 * them when it failed.
 */
#define _GNU_SOURCE
#include "agent/agent_probes.h"

#include "agent/agent.h"
#include "agent/agent_root.h"
#include "clock.h"
#include "err.h"
#include "fsutil.h"
#include "nospace.h"
#include "parallel.h"
#include "cache_behind.h"
#include "stream/beneath.h"
#include "units.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DISK_BLOCK (1u << 20)

#define CREATE_SIZE 4096u
#define CREATE_PER_DIR 1000u
/* Made whatever the budget, so that even a tiny budget on a slow disk yields a rate. */
#define CREATE_MIN_FILES 64u

/* "seconds": optional, default PROBE_DEFAULT_SECONDS, in (0, PROBE_MAX_SECONDS]. */
static int get_seconds(json_object *req, double *out)
{
	json_object *v;

	*out = PROBE_DEFAULT_SECONDS;
	if (!json_object_object_get_ex(req, "seconds", &v))
		return 0;
	if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
		return err_set("protocol error: field 'seconds' is not a number");
	*out = json_object_get_double(v);
	return probe_check_budget(*out);
}

/* An optional count field: def when absent, else 1 to max. */
static int get_cap(json_object *req, const char *key, uint64_t def, uint64_t max, uint64_t *out)
{
	*out = def;
	if (!json_object_object_get_ex(req, key, NULL))
		return 0;
	if (wire_get_u64(req, key, out) < 0)
		return -1;
	if (*out == 0 || *out > max)
		return err_set("'%s' of %llu is out of range (1 to %llu)", key,
			       (unsigned long long)*out, (unsigned long long)max);
	return 0;
}

/*
 * A fresh directory prefix.XXXXXX beneath the scratch root: its name in the
 * root into name, its path into label (for messages only). Returns its fd
 * or -1 (error set).
 */
static int make_probe_dir(const struct agent_session *s, const char *prefix, char *name,
			  size_t len, char *label, size_t label_len)
{
	int fd;

	if (!s->scratch)
		return err_set("cannot create a probe directory: the agent has no scratch root");
	fd = agent_root_make_temp(s->scratch, prefix, name, len);
	if (fd < 0)
		return err_wrap("cannot create a probe directory");
	snprintf(label, label_len, "%s/%s", s->root, name);
	return fd;
}

/*
 * Opens (with O_CREAT, creates) path beneath dirfd through no link. Kernels
 * before 5.6 have no openat2: there the last component is not followed
 * (O_NOFOLLOW, and O_EXCL for a create), and a directory on the way is one
 * the probe made a moment ago in the agent's 0700 root. Returns the fd, or
 * -1 with errno.
 */
static int probe_open(int dirfd, const char *path, int flags, mode_t mode)
{
	int fd = beneath_open(dirfd, path, (uint64_t)flags, mode);

	if (fd < 0 && errno == ENOSYS)
		fd = openat(dirfd, path, flags | O_NOFOLLOW, mode);
	return fd;
}

/* Bytes no file system can compress or deduplicate: every 4 KiB page is stamped with its offset. */
static void fill_random(unsigned char *buf, size_t len, uint64_t seed)
{
	uint64_t x = seed | 1;

	for (size_t i = 0; i + 8 <= len; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(buf + i, &x, 8);
	}
}

static void stamp_block(unsigned char *buf, uint64_t off)
{
	for (size_t p = 0; p < DISK_BLOCK; p += 4096) {
		uint64_t where = off + p;

		memcpy(buf + p, &where, sizeof(where));
	}
}

/*
 * The disk probe's write, write-back, fsync or close of path (in dirfd)
 * failed at off of max_bytes: out of space said as such (nospace.h), with
 * how far it got; any other error as it is. Returns -1 (error set).
 */
static int disk_write_failed(int dirfd, const char *what, const char *path, uint64_t off,
			     uint64_t max_bytes)
{
	char done[32], planned[32], so_far[96];

	if (errno != ENOSPC)
		return err_errno("cannot %s '%s'", what, path);
	snprintf(so_far, sizeof(so_far), "%s written of up to %s",
		 units_format_bytes(off, done, sizeof(done)),
		 units_format_bytes(max_bytes, planned, sizeof(planned)));
	return nospace_err(dirfd, so_far, "the disk probe's file '%s'", path);
}

/*
 * Writes the new file name in dirfd (path: its path, for messages) until
 * max_bytes or the budget, then fsync. Sets *bytes and *secs (write +
 * fsync). Returns 0 or -1 (error set); the caller removes the file. Written
 * with write-behind and drop-behind (common/cache_behind.c), as the
 * receivers write a large file: the rate is the disk's, not that of a page
 * cache filling with gigabytes of dirty data, and the budget holds.
 */
static int disk_write(int dirfd, const char *name, const char *path, double seconds,
		      uint64_t max_bytes, uint64_t *bytes, double *secs)
{
	unsigned char *buf;
	clock_ns start, deadline;
	struct write_behind wb;
	uint64_t off = 0;
	int fd, rc = 0;

	if (posix_memalign((void **)&buf, 4096, DISK_BLOCK) != 0)
		return err_set("out of memory for the disk probe's buffer");
	fill_random(buf, DISK_BLOCK, 0x9e3779b97f4a7c15ull);
	fd = probe_open(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		free(buf);
		return err_errno("cannot create '%s'", path);
	}
	write_behind_init(&wb, fd, 0);
	start = clock_now();
	deadline = start + (clock_ns)(seconds * 1e9);
	/* at least one block, so that even a tiny budget yields a rate */
	while (off < max_bytes && (off == 0 || clock_now() < deadline)) {
		size_t n = max_bytes - off < DISK_BLOCK ? (size_t)(max_bytes - off) : DISK_BLOCK;

		stamp_block(buf, off);
		if (fs_write_all(fd, buf, n) < 0) {
			rc = disk_write_failed(dirfd, "write", path, off, max_bytes);
			break;
		}
		off += n;
		if (write_behind_wrote(&wb, off) < 0) {
			rc = disk_write_failed(dirfd, "write back", path, off, max_bytes);
			break;
		}
	}
	if (rc == 0 && fsync(fd) < 0)
		rc = disk_write_failed(dirfd, "flush to disk", path, off, max_bytes);
	*secs = clock_seconds(start, clock_now());
	*bytes = off;
	if (close(fd) < 0 && rc == 0)
		rc = disk_write_failed(dirfd, "close", path, off, max_bytes);
	free(buf);
	return rc;
}

int agent_op_probe_disk(struct agent_session *s, json_object *req, json_object *reply)
{
	char name[64], dir[PATH_MAX], path[PATH_MAX], fstype[32] = "";
	uint64_t max_bytes, bytes = 0;
	double seconds, took = 0;
	int dirfd, rc;

	if (get_seconds(req, &seconds) < 0 ||
	    get_cap(req, "max_bytes", PROBE_DISK_DEFAULT_BYTES, PROBE_DISK_MAX_BYTES, &max_bytes) < 0)
		return -1;
	dirfd = make_probe_dir(s, "probe-disk", name, sizeof(name), dir, sizeof(dir));
	if (dirfd < 0)
		return -1;
	rc = fs_join(path, sizeof(path), dir, "write.bin");
	if (rc == 0)
		rc = disk_write(dirfd, "write.bin", path, seconds, max_bytes, &bytes, &took);
	if (rc == 0)
		rc = fs_type_name_fd(dirfd, dir, fstype, sizeof(fstype));
	close(dirfd);
	if (agent_root_remove(s->scratch, name) < 0 && rc == 0)
		rc = -1;
	if (rc < 0)
		return -1;
	json_object_object_add(reply, "bytes", json_object_new_int64((int64_t)bytes));
	json_object_object_add(reply, "seconds", json_object_new_double(took));
	json_object_object_add(reply, "bps", json_object_new_double((double)bytes / took));
	json_object_object_add(reply, "dest_fs", json_object_new_string(fstype));
	return 0;
}

struct create_job {
	int dirfd;		/* where the files go */
	const char *dir;	/* its path, for messages */
	const unsigned char *content;
	clock_ns deadline;
	uint64_t created;	/* atomic */
};

/* A create probe's file (or directory) path failed: out of space said as such (nospace.h). */
static int create_failed(const struct create_job *job, const char *what, const char *path)
{
	char so_far[48];

	if (errno == ENOSPC) {
		snprintf(so_far, sizeof(so_far), "%llu files made",
			 (unsigned long long)__atomic_load_n(&job->created, __ATOMIC_RELAXED));
		return nospace_err(job->dirfd, so_far, "the metadata probe's '%s/%s'", job->dir, path);
	}
	return err_errno("cannot %s '%s/%s'", what, job->dir, path);
}

/*
 * Creates file i, or nothing once the budget is spent (parallel_for cannot
 * stop early without failing). Its directory is made by the first thread
 * that misses it, so the directories count in the rate as they would in a
 * transfer and the budget holds whatever max_files is.
 */
static int create_one(void *ctx, unsigned worker, uint64_t i)
{
	struct create_job *job = ctx;
	char path[32];
	int fd;

	(void)worker;
	if (i >= CREATE_MIN_FILES && clock_now() >= job->deadline)
		return 0;
	snprintf(path, sizeof(path), "d%04llu/f%07llu", (unsigned long long)(i / CREATE_PER_DIR),
		 (unsigned long long)i);
	/* one open per file, as a receiver's: the rate is the create's, not a lookup's more */
	fd = probe_open(job->dirfd, path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 && errno == ENOENT) {
		char *slash = strchr(path, '/');

		*slash = '\0';
		if (mkdirat(job->dirfd, path, 0755) < 0 && errno != EEXIST)
			return create_failed(job, "create", path);
		*slash = '/';
		fd = probe_open(job->dirfd, path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	}
	if (fd < 0)
		return create_failed(job, "create", path);
	if (fs_write_all(fd, job->content, CREATE_SIZE) < 0) {
		create_failed(job, "write", path);
		close(fd);
		return -1;
	}
	if (close(fd) < 0)
		return create_failed(job, "close", path);
	__atomic_fetch_add(&job->created, 1, __ATOMIC_RELAXED);
	return 0;
}

/*
 * Creates files in the directory dirfd (dir: its path, for messages) on
 * `threads` threads until max_files or the deadline (at least
 * CREATE_MIN_FILES). Sets *files, *secs (the creates alone: the caller
 * times the syncfs) and *cpu (the CPU the agent spent meanwhile: a
 * receiver's creates, writes and closes are CPU in the kernel, and on one
 * machine that CPU is the sender's too).
 */
static int create_files(int dirfd, const char *dir, clock_ns deadline, uint64_t max_files,
			unsigned threads, uint64_t *files, double *secs, double *cpu)
{
	unsigned char content[CREATE_SIZE];
	struct create_job job = { .dirfd = dirfd, .dir = dir, .content = content,
				  .deadline = deadline };
	clock_ns start = clock_now(), cpu_start = clock_process_cpu();

	fill_random(content, sizeof(content), 0x2545f4914f6cdd1dull);
	if (parallel_for(max_files, threads, threads > 1 ? 16 : 1, create_one, &job, NULL) < 0)
		return -1;
	*secs = clock_seconds(start, clock_now());
	*cpu = clock_seconds(cpu_start, clock_process_cpu());
	*files = job.created;
	return 0;
}

static int sync_dir(int dirfd, const char *dir, double *secs)
{
	clock_ns start = clock_now();
	int rc = 0;

	if (syncfs(dirfd) < 0)
		rc = err_errno("cannot flush '%s' to disk", dir);
	*secs = clock_seconds(start, clock_now());
	return rc;
}

/*
 * Makes the directory at<i> in dirfd (dir: its path) and opens it, not
 * following a link. Returns the fd or -1 (error set).
 */
static int make_depth_dir(int dirfd, const char *dir, size_t i)
{
	char sub[32];
	int fd;

	snprintf(sub, sizeof(sub), "at%zu", i);
	if (mkdirat(dirfd, sub, 0755) < 0)
		return err_errno("cannot create '%s/%s'", dir, sub);
	fd = openat(dirfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return err_errno("cannot open '%s/%s'", dir, sub);
	return fd;
}

/* The optional "depths": 1 to PROBE_DEPTHS_MAX numbers of files in flight, each 1 to PROBE_MAX_DEPTH. */
static int get_depths(json_object *req, unsigned *depths, size_t *n)
{
	json_object *a;

	*n = 0;
	if (!json_object_object_get_ex(req, "depths", &a))
		return 0;
	if (!json_object_is_type(a, json_type_array) || json_object_array_length(a) == 0 ||
	    json_object_array_length(a) > PROBE_DEPTHS_MAX)
		return err_set("'depths' must be an array of 1 to %d numbers", PROBE_DEPTHS_MAX);
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *v = json_object_array_get_idx(a, i);
		int64_t d = json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : 0;

		if (d < 1 || d > (int64_t)PROBE_MAX_DEPTH)
			return err_set("'depths' holds %s: each must be 1 to %u",
				       json_object_to_json_string(v), PROBE_MAX_DEPTH);
		depths[(*n)++] = (unsigned)d;
	}
	return 0;
}

int agent_op_probe_create(struct agent_session *s, json_object *req, json_object *reply)
{
	char name[64], dir[PATH_MAX], sub[PATH_MAX + 32];
	uint64_t max_files, threads, files[PROBE_DEPTHS_MAX] = { 0 }, total = 0;
	unsigned depths[PROBE_DEPTHS_MAX];
	double seconds, took[PROBE_DEPTHS_MAX] = { 0 }, cpu[PROBE_DEPTHS_MAX] = { 0 }, sync_s = 0;
	size_t n;
	int dirfd, rc = 0;

	if (get_seconds(req, &seconds) < 0 ||
	    get_cap(req, "max_files", PROBE_CREATE_DEFAULT_FILES, PROBE_CREATE_MAX_FILES,
		    &max_files) < 0 ||
	    get_cap(req, "threads", 2 * parallel_cpus(), PROBE_MAX_DEPTH, &threads) < 0 ||
	    get_depths(req, depths, &n) < 0)
		return -1;
	if (n == 0)
		depths[n++] = (unsigned)threads;
	dirfd = make_probe_dir(s, "probe-create", name, sizeof(name), dir, sizeof(dir));
	if (dirfd < 0)
		return -1;
	/* each depth in its own directory, for its share of the budget */
	for (size_t i = 0; i < n && rc == 0; i++) {
		int subfd = make_depth_dir(dirfd, dir, i);

		snprintf(sub, sizeof(sub), "%s/at%zu", dir, i);
		if (subfd < 0)
			rc = -1;
		else
			rc = create_files(subfd, sub, clock_now() + (clock_ns)(seconds / (double)n * 1e9),
					  max_files, depths[i], &files[i], &took[i], &cpu[i]);
		if (subfd >= 0)
			close(subfd);
		total += files[i];
	}
	/*
	 * One syncfs for all, shared among the depths by the files each made, as
	 * a transfer pays one flush for all its files: timed per depth, a short
	 * probe would pay the file system's whole flush (other writers' too) on
	 * a few hundred files.
	 */
	if (rc == 0)
		rc = sync_dir(dirfd, dir, &sync_s);
	close(dirfd);
	/*
	 * The files stay until the scratch root goes at the session's end, as
	 * each strategy's verified destination does (README: ext4 without a
	 * journal passes over every inode freed in the last minute on each
	 * create). Removed here, the probe's thousands of inodes freed just
	 * before the first strategy's run slowed its creates: 20,000 creates of
	 * 4 KiB (then sync) took 1.00 and 0.92 s with 6,000 such files kept,
	 * 1.78 and 0.97 s right after removing them (system CPU 0.71/0.64 s
	 * against 1.46/0.76 s; /var/tmp here, 2026-12-04). A failed probe's are
	 * removed at once.
	 */
	if (rc < 0) {
		struct err_saved why;

		/* what a removal that fails leaves, the session's end removes or reports */
		err_save(&why);
		(void)agent_root_remove(s->scratch, name);
		return err_restore(&why);
	}
	{
		json_object *at = json_object_new_array();

		for (size_t i = 0; i < n; i++) {
			json_object *o = json_object_new_object();
			double secs = took[i] + (total ? sync_s * (double)files[i] / (double)total : 0);

			json_object_object_add(o, "depth", json_object_new_int((int)depths[i]));
			json_object_object_add(o, "files", json_object_new_int64((int64_t)files[i]));
			json_object_object_add(o, "seconds", json_object_new_double(secs));
			json_object_object_add(o, "per_s", json_object_new_double(secs > 0 ? (double)files[i] / secs : 0));
			/* the creates alone, their flush left out: what a transfer pays while it runs */
			json_object_object_add(o, "made_per_s",
					       json_object_new_double(took[i] > 0 ? (double)files[i] / took[i] : 0));
			/* each create's CPU (its write and close too), the syncfs left out */
			json_object_object_add(o, "cpu_seconds",
					       json_object_new_double(files[i] ? cpu[i] / (double)files[i] : 0));
			json_object_array_add(at, o);
			if (i == 0) {
				json_object_object_add(reply, "files", json_object_new_int64((int64_t)files[0]));
				json_object_object_add(reply, "seconds", json_object_new_double(secs));
				json_object_object_add(reply, "per_s",
						       json_object_new_double(secs > 0 ? (double)files[0] / secs : 0));
			}
		}
		json_object_object_add(reply, "at", at);
	}
	return 0;
}
