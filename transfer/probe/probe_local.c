/*
 * The client's local probes (see probes.h): how fast the source gives up its
 * bytes and its small files when cold, and how fast zstd compresses this
 * workload on this machine. Only reads the source.
 */
#define _GNU_SOURCE
#include "probe/probes.h"

#include "cache_behind.h"
#include "clock.h"
#include "err.h"
#include "fsutil.h"
#include "manifest.h"
#include "parallel.h"

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#define READ_BLOCK (1u << 20)
#define ZSTD_WINDOWS 64u
#define ZSTD_CHUNK (1u << 20)

static clock_ns deadline_after(clock_ns start, double seconds)
{
	return start + (clock_ns)(seconds * 1e9);
}

static int open_entry(const char *root, const struct manifest_entry *e, char *path, size_t len)
{
	int fd;

	if (fs_join(path, len, root, e->path) < 0)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return err_errno("cannot open source file '%s'", path);
	return fd;
}

/*
 * Drops the page cache of m's entries idx[0..n). Dirty pages survive
 * DONTNEED: the caller runs syncfs first when the files may be dirty.
 */
static int drop_entries(const char *root, const struct manifest *m, const size_t *idx, size_t n)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < n; i++) {
		int fd = open_entry(root, &m->entries[idx[i]], path, sizeof(path));

		if (fd < 0)
			return -1;
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		close(fd);
	}
	return 0;
}

struct sized {
	uint64_t size;
	size_t index;
};

static int by_size_desc(const void *a, const void *b)
{
	const struct sized *x = a, *y = b;

	if (x->size != y->size)
		return x->size < y->size ? 1 : -1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/*
 * The largest files, at least PROBE_READ_MIN_FILE each, biggest first, until
 * they hold cap bytes. *idx is malloc'd (the caller frees it).
 */
static int pick_large(const struct manifest *m, uint64_t cap, size_t **idx, size_t *n)
{
	struct sized *big = malloc((m->count ? m->count : 1) * sizeof(*big));
	size_t k = 0, take = 0;
	uint64_t sum = 0;

	*idx = malloc((m->count ? m->count : 1) * sizeof(**idx));
	if (!big || !*idx) {
		free(big);
		return err_set("out of memory for %zu files", m->count);
	}
	for (size_t i = 0; i < m->count; i++)
		if (m->entries[i].size >= PROBE_READ_MIN_FILE)
			big[k++] = (struct sized){ .size = m->entries[i].size, .index = i };
	qsort(big, k, sizeof(*big), by_size_desc);
	while (take < k && sum < cap) {
		sum += big[take].size;
		(*idx)[take] = big[take].index;
		take++;
	}
	free(big);
	*n = take;
	return 0;
}

/*
 * Up to PROBE_OPEN_MAX_FILES files of at most PROBE_OPEN_MAX_SIZE, one after
 * another in path order from the middle of the tree: a strategy walks the
 * tree in that order, reading files whose blocks lie one after another, and
 * so does the probe (files picked far apart read as scattered blocks, which
 * a walk never does). *idx is malloc'd (the caller frees it).
 */
static int pick_small(const struct manifest *m, size_t **idx, size_t *n)
{
	size_t k = 0, want, seen = 0, j = 0, from;

	for (size_t i = 0; i < m->count; i++)
		k += m->entries[i].size <= PROBE_OPEN_MAX_SIZE;
	want = k < PROBE_OPEN_MAX_FILES ? k : PROBE_OPEN_MAX_FILES;
	from = (k - want) / 2;
	*idx = malloc((want ? want : 1) * sizeof(**idx));
	if (!*idx)
		return err_set("out of memory for %zu files", want);
	for (size_t i = 0; i < m->count && j < want; i++) {
		if (m->entries[i].size > PROBE_OPEN_MAX_SIZE)
			continue;
		if (seen++ >= from)
			(*idx)[j++] = i;
	}
	*n = want;
	return 0;
}

/* Sequential reads of the picked files until cap bytes or the deadline. Sets *bytes. */
static int read_large(const char *root, const struct manifest *m, const size_t *idx, size_t n,
		      clock_ns deadline, uint64_t cap, uint64_t *bytes)
{
	char path[PATH_MAX];
	unsigned char *buf = malloc(READ_BLOCK);
	int rc = 0;

	if (!buf)
		return err_set("out of memory for a read buffer");
	*bytes = 0;
	for (size_t i = 0; i < n && rc == 0 && *bytes < cap && clock_now() < deadline; i++) {
		int fd = open_entry(root, &m->entries[idx[i]], path, sizeof(path));

		if (fd < 0) {
			rc = -1;
			break;
		}
		uint64_t done = 0;
		struct read_behind rb;

		/* as the strategies read a large file: dropping behind, not filling the cache */
		read_behind_init(&rb, fd, 0);
		while (*bytes < cap && clock_now() < deadline) {
			ssize_t got = read(fd, buf, READ_BLOCK);

			if (got == 0)
				break;
			if (got < 0) {
				rc = err_errno("cannot read '%s'", path);
				break;
			}
			*bytes += (uint64_t)got;
			done += (uint64_t)got;
			read_behind_done(&rb, done);
		}
		close(fd);
	}
	free(buf);
	return rc;
}

/*
 * Cold reads with several streams at once, as parallel reads the ranges of a
 * large file: CHUNK_BYTES pieces of the picked files' bytes from `skip` on
 * (what the one-stream read left cold), each piece read whole by one of
 * `depth` threads, dropped behind as read.
 */
#define CHUNK_BYTES (8u << 20)

struct read_job {
	const char *root;
	const struct manifest *m;
	const size_t *idx;
	size_t n;
	uint64_t skip;
	clock_ns deadline;
	uint64_t bytes;		/* atomic */
};

static int read_chunk(void *ctx, unsigned worker, uint64_t k)
{
	struct read_job *job = ctx;
	uint64_t off = job->skip + k * CHUNK_BYTES, start = 0, left;
	char path[PATH_MAX];
	unsigned char *buf;
	size_t i = 0;
	int fd, rc = 0;

	(void)worker;
	if (clock_now() >= job->deadline)
		return 0;
	while (i < job->n && start + job->m->entries[job->idx[i]].size <= off)
		start += job->m->entries[job->idx[i++]].size;
	if (i == job->n)
		return 0;
	off -= start;	/* within file i now; a piece stops at its file's end */
	left = job->m->entries[job->idx[i]].size - off;
	if (left > CHUNK_BYTES)
		left = CHUNK_BYTES;
	buf = malloc(READ_BLOCK);
	if (!buf)
		return err_set("out of memory for a read buffer");
	fd = open_entry(job->root, &job->m->entries[job->idx[i]], path, sizeof(path));
	if (fd < 0) {
		free(buf);
		return -1;
	}
	for (uint64_t done = 0; done < left && clock_now() < job->deadline;) {
		ssize_t got = pread(fd, buf, left - done < READ_BLOCK ? (size_t)(left - done) : READ_BLOCK,
				    (off_t)(off + done));

		if (got < 0)
			rc = err_errno("cannot read '%s'", path);
		if (got <= 0)
			break;
		done += (uint64_t)got;
		__atomic_fetch_add(&job->bytes, (uint64_t)got, __ATOMIC_RELAXED);
	}
	posix_fadvise(fd, (off_t)off, (off_t)left, POSIX_FADV_DONTNEED);
	close(fd);
	free(buf);
	return rc;
}

/*
 * The cold read at depth 1 (read_large, in order) and then at each deeper
 * depth, each in its share of the budget and of the bytes, each on bytes the
 * ones before left cold. Fills r->read_at and r->disk_read_bps (depth 1).
 * The shares of the bytes keep the first depth from reading them all: with
 * the whole cap its own, depth 1 read the 1 GiB of a 4 GiB file in 0.4 s of
 * its 1 s, and parallel's 8 streams went unmeasured (read_at held depth 1
 * alone; docs/MODEL.md, Inputs: the read depths).
 */
static int read_large_at(const char *root, const struct manifest *m, const size_t *idx, size_t n,
			 double seconds, const struct probe_depths *d, struct probe_results *r)
{
	uint64_t total = 0, skip = 0, share;
	int rc = 0;

	for (size_t i = 0; i < n; i++)
		total += m->entries[idx[i]].size;
	if (total > PROBE_READ_MAX_BYTES * d->n)
		total = PROBE_READ_MAX_BYTES * d->n;
	share = (total / d->n + CHUNK_BYTES - 1) / CHUNK_BYTES * CHUNK_BYTES;
	r->nread_at = 0;
	for (unsigned k = 0; k < d->n && rc == 0 && skip < total; k++) {
		clock_ns start = clock_now();
		uint64_t bytes = 0, cap = total - skip < share ? total - skip : share;
		double took;

		if (d->depth[k] == 1) {
			rc = read_large(root, m, idx, n, deadline_after(start, seconds / d->n), cap, &bytes);
		} else {
			struct read_job job = { .root = root, .m = m, .idx = idx, .n = n, .skip = skip,
						.deadline = deadline_after(start, seconds / d->n) };

			rc = parallel_for((cap + CHUNK_BYTES - 1) / CHUNK_BYTES, d->depth[k], 1, read_chunk,
					  &job, NULL);
			bytes = job.bytes;
		}
		took = clock_seconds(start, clock_now());
		if (rc == 0 && bytes > 0 && took > 0)
			r->read_at[r->nread_at++] = (struct probe_rate){ .depth = d->depth[k],
									 .per_s = (double)bytes / took };
		/* the next depth starts past whole pieces: what this one touched is not cold */
		skip += (bytes + CHUNK_BYTES - 1) / CHUNK_BYTES * CHUNK_BYTES;
	}
	r->disk_read_bps = probe_rate_at(r->read_at, r->nread_at, 1);
	return rc;
}

/*
 * The cold reader (probes.h): read_chunk's pieces of the picked bytes, once,
 * on a thread of its own, the time to its last byte kept.
 */
struct probe_cold_reader {
	struct read_job job;
	size_t *idx;
	uint64_t pieces;
	unsigned depth;
	clock_ns end;
	pthread_t thread;
	int rc;
	struct err_saved err;
};

static void *cold_reader_main(void *arg)
{
	struct probe_cold_reader *rd = arg;

	rd->rc = parallel_for(rd->pieces, rd->depth, 1, read_chunk, &rd->job, NULL);
	rd->end = clock_now();
	if (rd->rc < 0)
		err_save(&rd->err);
	return NULL;
}

int probe_cold_reader_start(const char *src_root, const struct manifest *m, unsigned depth,
			    uint64_t *bytes, struct probe_cold_reader **out)
{
	struct probe_cold_reader *rd = calloc(1, sizeof(*rd));
	uint64_t total = 0;
	size_t n = 0;
	int rc;

	*out = NULL;
	if (!rd)
		return err_set("out of memory for the cold reader");
	rc = pick_large(m, *bytes, &rd->idx, &n);
	for (size_t i = 0; rc == 0 && i < n; i++)
		total += m->entries[rd->idx[i]].size;
	if (total > *bytes)
		total = *bytes;
	*bytes = total / CHUNK_BYTES * CHUNK_BYTES;
	if (rc == 0 && *bytes > 0)
		rc = drop_entries(src_root, m, rd->idx, n);
	if (rc < 0 || *bytes == 0) {
		free(rd->idx);
		free(rd);
		return rc;
	}
	rd->depth = depth ? depth : 1;
	rd->pieces = *bytes / CHUNK_BYTES;
	rd->job = (struct read_job){ .root = src_root, .m = m, .idx = rd->idx, .n = n,
				     .deadline = deadline_after(clock_now(), PROBE_MAX_SECONDS) };
	if (pthread_create(&rd->thread, NULL, cold_reader_main, rd) != 0) {
		free(rd->idx);
		free(rd);
		return err_set("cannot start the cold reader's thread");
	}
	*out = rd;
	return 0;
}

int probe_cold_reader_wait(struct probe_cold_reader *rd, clock_ns *end, uint64_t *bytes)
{
	int rc;

	pthread_join(rd->thread, NULL);
	*end = rd->end;
	*bytes = rd->job.bytes;
	rc = rd->rc < 0 ? err_restore(&rd->err) : 0;
	/*
	 * Leave the source as cold as it was found. A readahead the last reads
	 * started may still be in flight, and DONTNEED passes over pages under
	 * I/O: in a fresh-clone CI run 256 pages (1 MiB past what was read) were
	 * resident after the drop. Dropped again once such a read has had time
	 * to end (1 MiB takes about 1 ms on this disk).
	 */
	if (drop_entries(rd->job.root, rd->job.m, rd->idx, rd->job.n) < 0 && rc == 0)
		rc = -1;
	if (rc == 0) {
		struct timespec pause = { 0, 20 * 1000 * 1000 };

		nanosleep(&pause, NULL);
		if (drop_entries(rd->job.root, rd->job.m, rd->idx, rd->job.n) < 0)
			rc = -1;
	}
	free(rd->idx);
	free(rd);
	return rc;
}

/* The opens of one depth: the picked files from `first` on, one after another, on `depth` threads. */
struct open_job {
	const char *root;
	const struct manifest *m;
	const size_t *idx;
	size_t first;
	clock_ns deadline;
	size_t files;		/* atomic */
	uint64_t cpu_ns;	/* atomic: the CPU the opens took, their threads' */
};

/* open+fstat+read+close of one picked file, or nothing once the deadline has passed. */
static int open_one(void *ctx, unsigned worker, uint64_t k)
{
	struct open_job *job = ctx;
	unsigned char buf[4096];
	char path[PATH_MAX];
	struct stat st;
	int fd, rc = 0;
	clock_ns cpu = clock_thread_cpu();

	(void)worker;
	if (clock_now() >= job->deadline)
		return 0;
	fd = open_entry(job->root, &job->m->entries[job->idx[job->first + k]], path, sizeof(path));
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		rc = err_errno("cannot stat '%s'", path);
	/* read it all, as a sender does, in a buffer small enough for any thread's stack */
	for (off_t done = 0; rc == 0 && done < st.st_size && done < (off_t)PROBE_OPEN_MAX_SIZE;) {
		ssize_t got = read(fd, buf, sizeof(buf));

		if (got < 0)
			rc = err_errno("cannot read '%s'", path);
		if (got <= 0)
			break;
		done += got;
	}
	close(fd);
	if (rc == 0) {
		__atomic_fetch_add(&job->files, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&job->cpu_ns, clock_thread_cpu() - cpu, __ATOMIC_RELAXED);
	}
	return rc;
}

/*
 * The opens at each depth: depth i reads its own cold share of the picked
 * files, the i-th of d->n runs of them one after another, for seconds / n.
 * Fills r->open_at and r->src_open_per_s.
 */
static int read_small_at(const char *root, const struct manifest *m, const size_t *idx, size_t n,
			 double seconds, const struct probe_depths *d, struct probe_results *r)
{
	r->nopen_at = 0;
	for (unsigned i = 0; i < d->n && i < n; i++) {
		struct open_job job = { .root = root, .m = m, .idx = idx, .first = i * n / d->n };
		size_t count = (i + 1) * n / d->n - job.first;
		clock_ns start = clock_now();
		double took;

		job.deadline = deadline_after(start, seconds / d->n);
		if (parallel_for(count, d->depth[i], 1, open_one, &job, NULL) < 0)
			return -1;
		took = clock_seconds(start, clock_now());
		if (job.files > 0 && took > 0)
			r->open_at[r->nopen_at++] = (struct probe_rate){ .depth = d->depth[i],
									 .per_s = (double)job.files / took };
		/* one at a time: the part of each open a sender's thread spends in CPU */
		if (d->depth[i] == 1 && job.files > 0)
			r->src_open_cpu_s = (double)job.cpu_ns / 1e9 / (double)job.files;
	}
	r->src_open_per_s = probe_rate_at(r->open_at, r->nopen_at, 1);
	return 0;
}

int probe_source(const char *src_root, const struct manifest *m, double seconds,
		 struct probe_results *r)
{
	return probe_source_at(src_root, m, seconds, NULL, NULL, r);
}

int probe_source_at(const char *src_root, const struct manifest *m, double seconds,
		    const struct probe_depths *opens, const struct probe_depths *reads,
		    struct probe_results *r)
{
	struct probe_depths one = { .n = 1, .depth = { 1 } };
	size_t *large = NULL, *small = NULL, nlarge = 0, nsmall = 0;
	int rc;

	if (!reads || !reads->n)
		reads = &one;
	if (!opens || !opens->n)
		opens = &one;
	if (probe_check_budget(seconds) < 0)
		return -1;
	rc = pick_large(m, PROBE_READ_MAX_BYTES * reads->n, &large, &nlarge);
	if (rc == 0)
		rc = pick_small(m, &small, &nsmall);
	if (rc == 0 && nlarge + nsmall > 0)
		rc = fs_sync_dir_fs(src_root);
	if (rc == 0)
		rc = drop_entries(src_root, m, large, nlarge);
	if (rc == 0)
		rc = drop_entries(src_root, m, small, nsmall);
	if (rc == 0 && nlarge > 0)
		rc = read_large_at(src_root, m, large, nlarge, seconds, reads, r);
	if (rc == 0 && nsmall > 0)
		rc = read_small_at(src_root, m, small, nsmall, seconds, opens, r);
	/* leave the source as cold as it was found; clean pages need no syncfs */
	if (rc == 0)
		rc = drop_entries(src_root, m, large, nlarge);
	if (rc == 0)
		rc = drop_entries(src_root, m, small, nsmall);
	free(large);
	free(small);
	return rc;
}

/* A position in the workload's content, concatenated in manifest order. */
struct cursor {
	size_t entry;		/* the entry holding the position, or m->count at the end */
	uint64_t start;		/* logical offset of that entry's first byte */
};

/*
 * Copies up to len bytes of the concatenated content from logical offset off
 * (at or after c's entry) into dst, file by file, and stops early once the
 * deadline has passed and something was copied. Returns the bytes copied or
 * -1 (error set).
 */
static long long read_span(const char *root, const struct manifest *m, struct cursor *c,
			   uint64_t off, size_t len, clock_ns deadline, unsigned char *dst)
{
	char path[PATH_MAX];
	size_t done = 0;

	while (c->entry < m->count && c->start + m->entries[c->entry].size <= off) {
		c->start += m->entries[c->entry].size;
		c->entry++;
	}
	while (done < len && c->entry < m->count) {
		const struct manifest_entry *e = &m->entries[c->entry];
		uint64_t in = off + done - c->start;
		size_t n = e->size - in < len - done ? (size_t)(e->size - in) : len - done;
		ssize_t got;
		int fd;

		if (done > 0 && clock_now() >= deadline)
			break;
		fd = open_entry(root, e, path, sizeof(path));
		if (fd < 0)
			return -1;
		got = pread(fd, dst + done, n, (off_t)in);
		close(fd);
		if (got < 0)
			return err_errno("cannot read '%s'", path);
		if ((size_t)got != n)
			return err_set("'%s' is shorter than its manifest says", path);
		done += n;
		if (in + n == e->size) {
			c->start += e->size;
			c->entry++;
		}
	}
	return (long long)done;
}

/*
 * Reads the sample: the whole workload when it fits, else ZSTD_WINDOWS
 * windows evenly spaced through it, until the deadline (something is always
 * read). *buf is malloc'd (the caller frees it); *len is what was read.
 */
static int read_sample(const char *root, const struct manifest *m, clock_ns deadline,
		       unsigned char **buf, size_t *len)
{
	uint64_t total = m->total_bytes;
	unsigned nwin = total <= PROBE_ZSTD_SAMPLE_BYTES ? 1 : ZSTD_WINDOWS;
	size_t win = nwin == 1 ? (size_t)total : PROBE_ZSTD_SAMPLE_BYTES / ZSTD_WINDOWS;
	struct cursor c = { 0, 0 };

	*len = 0;
	*buf = malloc(win * nwin);
	if (!*buf)
		return err_set("out of memory for a %zu-byte sample", win * nwin);
	for (unsigned w = 0; w < nwin; w++) {
		long long got;

		if (*len > 0 && clock_now() >= deadline)
			break;
		got = read_span(root, m, &c, w * (total / nwin), win, deadline, *buf + *len);
		if (got < 0)
			return -1;
		*len += (size_t)got;
	}
	return 0;
}

static int zstd_check(size_t ret, const char *what)
{
	if (ZSTD_isError(ret))
		return err_set("zstd: cannot %s: %s", what, ZSTD_getErrorName(ret));
	return 0;
}

/*
 * Compresses buf[0..len) in frames, pass after pass, until the deadline or
 * PROBE_ZSTD_MAX_INPUT. Sets *in and *out (bytes) and *secs.
 */
static int compress_passes(ZSTD_CCtx *c, const unsigned char *buf, size_t len, double seconds,
			   uint64_t *in, uint64_t *out, double *secs, double *cpu)
{
	size_t ocap = ZSTD_CStreamOutSize();
	unsigned char *obuf = malloc(ocap);
	clock_ns start = clock_now(), deadline = deadline_after(start, seconds);
	clock_ns cpu_start = clock_process_cpu();
	int rc = 0, more = 1;

	if (!obuf)
		return err_set("out of memory for zstd's output");
	*in = *out = 0;
	while (rc == 0 && more) {
		size_t pos = 0, left;

		rc = zstd_check(ZSTD_CCtx_reset(c, ZSTD_reset_session_only), "reset the stream");
		while (rc == 0 && pos < len && more) {
			ZSTD_inBuffer ib = { buf + pos, len - pos < ZSTD_CHUNK ? len - pos : ZSTD_CHUNK, 0 };

			while (rc == 0 && ib.pos < ib.size) {
				ZSTD_outBuffer ob = { obuf, ocap, 0 };

				rc = zstd_check(ZSTD_compressStream2(c, &ob, &ib, ZSTD_e_continue),
						"compress");
				*out += ob.pos;
			}
			pos += ib.size;
			*in += ib.size;
			more = clock_now() < deadline && *in < PROBE_ZSTD_MAX_INPUT;
		}
		do {
			ZSTD_inBuffer ib = { NULL, 0, 0 };
			ZSTD_outBuffer ob = { obuf, ocap, 0 };

			if (rc < 0)
				break;
			left = ZSTD_compressStream2(c, &ob, &ib, ZSTD_e_end);
			rc = zstd_check(left, "end the frame");
			*out += ob.pos;
		} while (rc == 0 && left != 0);
	}
	*secs = clock_seconds(start, clock_now());
	/* zstd's workers are this process's threads; nothing else of it works meanwhile */
	*cpu = clock_seconds(cpu_start, clock_process_cpu());
	free(obuf);
	return rc;
}

int probe_zstd(const char *src_root, const struct manifest *m, int level, unsigned threads,
	       double seconds, struct probe_results *r)
{
	unsigned char *sample = NULL;
	size_t len = 0;
	uint64_t in = 0, out = 0;
	double took = 0, cpu = 0;
	ZSTD_CCtx *c;
	int rc;

	if (probe_check_budget(seconds) < 0)
		return -1;
	if (m->total_bytes == 0)
		return 0;
	if (read_sample(src_root, m, deadline_after(clock_now(), seconds), &sample, &len) < 0) {
		free(sample);
		return -1;
	}
	c = ZSTD_createCCtx();
	if (!c) {
		free(sample);
		return err_set("zstd: cannot create a compression context");
	}
	rc = zstd_check(ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level), "set the level");
	if (rc == 0)
		rc = zstd_check(ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1), "turn the checksum on");
	if (rc == 0 && threads > 0)
		rc = zstd_check(ZSTD_CCtx_setParameter(c, ZSTD_c_nbWorkers, (int)threads),
				"use worker threads (is libzstd built without threads?)");
	if (rc == 0)
		rc = compress_passes(c, sample, len, seconds, &in, &out, &took, &cpu);
	ZSTD_freeCCtx(c);
	if (rc == 0)
		rc = probe_unzstd(sample, len, level, seconds, &r->unzstd_bps);
	free(sample);
	if (rc < 0)
		return -1;
	if (in > 0 && out > 0 && took > 0) {
		r->zstd_bps = (double)in / took;
		r->zstd_ratio = (double)in / (double)out;
		r->zstd_cpu_per_byte = cpu > 0 ? cpu / (double)in : 0;
	}
	return 0;
}
