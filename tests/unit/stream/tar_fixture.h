/*
 * What the tar stream tests share (test_tar_stream.c, test_tar_tree.c,
 * test_tar_hostile.c): the workloads generated once per run, an in-memory
 * sink, the writer thread of a pipe transfer, GNU tar as a command and as a
 * relayed source, and clean verification.
 */
#ifndef XFERCMP_TEST_TAR_FIXTURE_H
#define XFERCMP_TEST_TAR_FIXTURE_H

#include "testutil.h"
#include "seal_testutil.h"

#include "clock.h"
#include "err.h"
#include "fsutil.h"
#include "generate.h"
#include "manifest.h"
#include "stream/tar_stream.h"
#include "verify.h"
#include "stream/zstd_sink.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#define MIB (1ull << 20)

/* ---- workloads, generated once per run and shared by the tests ---- */

/* WL_REAL: the real tree (real_tree()), made by a script, not generated */
enum { WL_SMALL, WL_LARGE, WL_MIXED, WL_TINY, WL_REAL, WL_COUNT };

struct shared_workload {
	struct workload_spec spec;
	char dir[512];
	struct manifest m;
	int ready;
};

static char shared_root[256] __attribute__((unused));
static struct shared_workload workloads[WL_COUNT] __attribute__((unused));

static inline void make_temp(char *buf, size_t len)
{
	test_mkdtemp(buf, len, "xfercmp-tartest");
}

static inline const struct shared_workload *workload(int which)
{
	struct shared_workload *w = &workloads[which];
	static const char *names[WL_COUNT] = { "small", "large", "mixed", "tiny" };
	struct generate_stats gs;

	if (w->ready)
		return w;
	if (!shared_root[0])
		make_temp(shared_root, sizeof(shared_root));
	memset(&w->spec, 0, sizeof(w->spec));
	w->spec.seed = 11 + (uint64_t)which;
	w->spec.compressibility = 0.5;
	switch (which) {
	case WL_SMALL:
		w->spec.kind = WORKLOAD_SMALLFILES;
		w->spec.files = 2000;
		break;
	case WL_TINY:
		w->spec.kind = WORKLOAD_SMALLFILES;
		w->spec.files = 60;
		break;
	case WL_LARGE:
		w->spec.kind = WORKLOAD_LARGEFILE;
		w->spec.size = 48 * MIB + 77;
		break;
	default:
		w->spec.kind = WORKLOAD_MIXED;
		w->spec.files = 300;
		w->spec.size = 16 * MIB;
		break;
	}
	workload_apply_defaults(&w->spec);
	snprintf(w->dir, sizeof(w->dir), "%s/%s", shared_root, names[which]);
	if (workload_generate(&w->spec, w->dir, 4, false, &w->m, &gs) < 0) {
		print_error("workload_generate: %s\n", err_msg());
		fail();
	}
	w->ready = 1;
	return w;
}

static inline void shared_cleanup(void)
{
	for (int i = 0; i < WL_COUNT; i++)
		if (workloads[i].ready)
			manifest_release(&workloads[i].m);
	if (shared_root[0])
		fs_remove_tree(shared_root);
}

/* ---- helpers ---- */

/* A sink collecting everything in memory; counts closes; fails past limit if set. */
struct mem_sink {
	unsigned char *data;
	size_t len, cap, limit;
	int closes;
};

static inline int mem_sink_write(void *ctx, const void *buf, size_t len)
{
	struct mem_sink *s = ctx;

	if (s->limit && s->len + len > s->limit)
		return err_set("test sink is full");
	if (s->len + len > s->cap) {
		size_t cap = s->cap ? s->cap : 1 << 16;
		unsigned char *grown;

		while (cap < s->len + len)
			cap *= 2;
		grown = realloc(s->data, cap);
		if (!grown)
			return err_set("out of memory in the test sink");
		s->data = grown;
		s->cap = cap;
	}
	memcpy(s->data + s->len, buf, len);
	s->len += len;
	return 0;
}

static inline int mem_sink_close(void *ctx)
{
	struct mem_sink *s = ctx;

	s->closes++;
	return 0;
}

static inline void mem_sink_init(struct mem_sink *s, struct byte_sink *sink)
{
	memset(s, 0, sizeof(*s));
	sink->write = mem_sink_write;
	sink->close = mem_sink_close;
	sink->ctx = s;
}

/* An fd reading back len bytes of data (a memfd). */
/* A file holding data as a data connection carries it: in authenticated segments. */
static inline int memfd_with(const void *data, size_t len)
{
	int fd = memfd_create("tar-stream-test", MFD_CLOEXEC);
	size_t sealed_len = 0;
	unsigned char *sealed = test_seal(data, len, 0, &sealed_len);

	assert_true(fd >= 0);
	assert_non_null(sealed);
	assert_int_equal(fs_write_all(fd, sealed, sealed_len), 0);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	free(sealed);
	return fd;
}

static inline void expect_verified(const char *dir, const struct manifest *m)
{
	struct verify_report rep;
	char summary[512];

	if (verify_tree(dir, m, 2, &rep) < 0) {
		print_error("verify_tree: %s\n", err_msg());
		fail();
	}
	if (verify_differences(&rep) != 0) {
		verify_summary(&rep, summary, sizeof(summary));
		print_error("%s: %s (first: %s)\n", dir, summary, rep.nexamples ? rep.examples[0] : "");
		fail();
	}
}

/* Names in dir, other than . and .., as a count; the first one in first. */
static inline int dir_entries(const char *dir, char *first, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			if (n++ == 0 && first)
				snprintf(first, len, "%s", de->d_name);
		}
	closedir(d);
	return n;
}

/* Distinct directories (every ancestor of every file) in the manifest. */
static inline size_t count_dirs(const struct manifest *m)
{
	char (*dirs)[512] = calloc(4096, sizeof(*dirs));
	size_t n = 0;

	assert_non_null(dirs);
	for (size_t i = 0; i < m->count; i++) {
		char path[64];

		snprintf(path, sizeof(path), "%s", m->entries[i].path);
		for (char *s = strchr(path, '/'); s; s = strchr(s + 1, '/')) {
			size_t k = 0;

			*s = '\0';
			while (k < n && strcmp(dirs[k], path))
				k++;
			if (k == n) {
				assert_true(n < 4096);
				snprintf(dirs[n++], sizeof(dirs[0]), "%s", path);
			}
			*s = '/';
		}
	}
	free(dirs);
	return n;
}

/* Bytes of tar at most: one header per file and directory, padding, end marker. */
static inline uint64_t tar_bound(const struct manifest *m)
{
	return m->total_bytes + m->count * 1023 + count_dirs(m) * 512 + 1024;
}

/* ---- the writer thread of a pipe transfer ---- */

struct writer_job {
	const char *src;
	const struct manifest *m;
	int fd;
	int zstd, level, threads;
	int rc;
	struct send_stats st;
	uint64_t zin, zout;
	uint64_t sealed;	/* bytes put on the pipe: the segments */
	struct err_saved err;	/* the writer thread's message, for the joiner */
};

static inline void *writer_main(void *arg)
{
	struct writer_job *j = arg;
	struct byte_sink fdsink, *out;
	struct seal_sink sealed;
	struct zstd_sink z;

	byte_sink_fd(&fdsink, &j->fd);
	/* as the zstd strategy sends it: in authenticated segments */
	j->rc = seal_sink_init(&sealed, &fdsink, test_key);
	out = seal_sink_as_sink(&sealed);
	if (j->rc == 0 && j->zstd) {
		j->rc = zstd_sink_init(&z, out, j->level, j->threads);
		out = zstd_sink_as_sink(&z);
	}
	if (j->rc == 0)
		j->rc = tar_stream_write(j->src, j->m, true, out, &j->st);
	if (j->rc < 0)
		err_save(&j->err);
	if (j->zstd) {
		j->zin = z.bytes_in;
		j->zout = z.bytes_out;
		zstd_sink_release(&z);
	}
	j->sealed = sealed.wire;
	seal_sink_release(&sealed);
	if (j->fd >= 0)
		close(j->fd);
	return NULL;
}

/* Runs job (its fd set here) into tar_stream_extract to dest through a pipe; both must succeed. */
static inline void through_pipe(struct writer_job *job, const char *dest, struct recv_stats *rs)
{
	pthread_t t;
	int p[2], rc;

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	(void)fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
	job->fd = p[1];
	assert_int_equal(pthread_create(&t, NULL, writer_main, job), 0);
	err_clear();
	rc = tar_stream_extract(p[0], &test_opts, dest, rs);
	if (rc < 0)
		print_error("tar_stream_extract: %s\n", err_msg());
	/* A failed extractor must not leave the writer blocked on a full pipe. */
	close(p[0]);
	pthread_join(t, NULL);
	if (job->rc < 0)
		print_error("writer: %s\n", job->err.msg);
	assert_int_equal(job->rc, 0);
	assert_int_equal(rc, 0);
	expect_verified(dest, job->m);
}

/* ---- GNU tar as a command ---- */

/* Runs tar_stream_write (optionally through zstd) into `sh -c cmd` and checks its status. */
static inline void write_to_command(const struct shared_workload *w, const char *cmd, int zstd)
{
	struct byte_sink fdsink, *out = &fdsink;
	struct zstd_sink z;
	struct send_stats st;
	FILE *f = popen(cmd, "we");
	int fd, status, rc;

	assert_non_null(f);
	fd = fcntl(fileno(f), F_DUPFD_CLOEXEC, 0);
	assert_true(fd >= 0);
	byte_sink_fd(&fdsink, &fd);
	if (zstd) {
		assert_int_equal(zstd_sink_init(&z, &fdsink, 1, 2), 0);
		out = zstd_sink_as_sink(&z);
	}
	rc = tar_stream_write(w->dir, &w->m, true, out, &st);
	if (rc < 0)
		print_error("tar_stream_write: %s\n", err_msg());
	if (zstd)
		zstd_sink_release(&z);
	/* Only a failed stream leaves fd open; close it or the command never sees EOF. */
	if (fd >= 0)
		close(fd);
	status = pclose(f);
	assert_int_equal(rc, 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(st.files, w->m.count);
}

/*
 * What GNU tar writes, in authenticated segments as real-tar-nc's relay
 * sends it (stream/seal_stream.h): a thread reads the command's output and
 * writes the segments into a pipe, whose read end this returns (closed by
 * the caller; relay_end joins the thread and closes the command).
 */
struct relay {
	FILE *f;
	int out;
	pthread_t tid;
};

static inline void *relay_main(void *arg)
{
	struct relay *r = arg;
	struct byte_sink fdsink;
	struct seal_sink sealed;
	char buf[65536];
	size_t n;

	byte_sink_fd(&fdsink, &r->out);
	if (seal_sink_init(&sealed, &fdsink, test_key) < 0)
		abort();
	while ((n = fread(buf, 1, sizeof(buf), r->f)) > 0)
		if (seal_sink_as_sink(&sealed)->write(&sealed, buf, n) < 0)
			break;
	seal_sink_as_sink(&sealed)->close(&sealed);
	seal_sink_release(&sealed);
	if (r->out >= 0)
		close(r->out);
	return NULL;
}

static inline int relay_start(struct relay *r, const char *cmd)
{
	int p[2];

	r->f = popen(cmd, "re");
	assert_non_null(r->f);
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	r->out = p[1];
	assert_int_equal(pthread_create(&r->tid, NULL, relay_main, r), 0);
	return p[0];
}

/* Joins the relay; returns pclose's status. */
static inline int relay_end(struct relay *r)
{
	pthread_join(r->tid, NULL);
	return pclose(r->f);
}


#endif
