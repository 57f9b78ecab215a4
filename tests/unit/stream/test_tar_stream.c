/*
 * Unit tests for transfer/stream/tar_writer.c, tar_extract.c and zstd_sink.c: trees
 * go through a pipe (plain and zstd) into the extractor, into GNU tar, and
 * from GNU tar into the extractor, each ending in verify_tree; hostile
 * streams must fail without writing outside the destination.
 */
#define _GNU_SOURCE
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

static char shared_root[256];
static struct shared_workload workloads[WL_COUNT];

static void make_temp(char *buf, size_t len)
{
	test_mkdtemp(buf, len, "xfercmp-tartest");
}

static const struct shared_workload *workload(int which)
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

static void shared_cleanup(void)
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

static int mem_sink_write(void *ctx, const void *buf, size_t len)
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

static int mem_sink_close(void *ctx)
{
	struct mem_sink *s = ctx;

	s->closes++;
	return 0;
}

static void mem_sink_init(struct mem_sink *s, struct byte_sink *sink)
{
	memset(s, 0, sizeof(*s));
	sink->write = mem_sink_write;
	sink->close = mem_sink_close;
	sink->ctx = s;
}

/* An fd reading back len bytes of data (a memfd). */
/* A file holding data as a data connection carries it: in authenticated segments. */
static int memfd_with(const void *data, size_t len)
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

static void expect_verified(const char *dir, const struct manifest *m)
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
static int dir_entries(const char *dir, char *first, size_t len)
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
static size_t count_dirs(const struct manifest *m)
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
static uint64_t tar_bound(const struct manifest *m)
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

static void *writer_main(void *arg)
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

/*
 * Sends workload `which` through a pipe (plain, or zstd at level/threads)
 * into tar_stream_extract and checks the tree and the counts.
 */
/* Runs job (its fd set here) into tar_stream_extract to dest through a pipe; both must succeed. */
static void through_pipe(struct writer_job *job, const char *dest, struct recv_stats *rs)
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

static void pipe_transfer(int which, int zstd, int level, int threads)
{
	const struct shared_workload *w = workload(which);
	struct writer_job job = { .src = w->dir, .m = &w->m, .zstd = zstd, .level = level,
				  .threads = threads };
	struct recv_stats rs;
	char dest[512];

	make_temp(dest, sizeof(dest));
	through_pipe(&job, dest, &rs);

	assert_int_equal(job.st.files, w->m.count);
	assert_int_equal(rs.files, w->m.count);
	assert_int_equal(job.st.bytes_read, w->m.total_bytes);
	assert_int_equal(rs.bytes, w->m.total_bytes);
	/* pax-restricted: no extended header per file, so at most one 512-byte header each. */
	assert_true(job.st.wire_bytes > w->m.total_bytes);
	assert_true(job.st.wire_bytes <= tar_bound(&w->m));
	/* the extractor read every segment the writer sent */
	assert_int_equal(rs.wire_bytes, job.sealed);
	if (zstd) {
		assert_int_equal(job.zin, job.st.wire_bytes);
		assert_true(job.sealed > job.zout && job.sealed <= test_sealed_len(job.zout, 0) + SEAL_SEG_HEADER + SEAL_TAG_BYTES);
		assert_true(job.zout < job.zin);
	} else {
		assert_true(job.sealed > job.st.wire_bytes &&
			    job.sealed <= test_sealed_len(job.st.wire_bytes, 0) + SEAL_SEG_HEADER + SEAL_TAG_BYTES);
	}
	assert_int_equal(fs_remove_tree(dest), 0);
}

static void test_plain_smallfiles(void **state)
{
	(void)state;
	pipe_transfer(WL_SMALL, 0, 0, 0);
}

static void test_plain_largefile(void **state)
{
	(void)state;
	pipe_transfer(WL_LARGE, 0, 0, 0);
}

static void test_plain_mixed(void **state)
{
	(void)state;
	pipe_transfer(WL_MIXED, 0, 0, 0);
}

static void test_zstd_level1(void **state)
{
	(void)state;
	pipe_transfer(WL_MIXED, 1, 1, 0);
	pipe_transfer(WL_LARGE, 1, 1, 2);
}

static void test_zstd_fast(void **state)
{
	(void)state;
	pipe_transfer(WL_SMALL, 1, -3, 0);
	pipe_transfer(WL_MIXED, 1, -3, 2);
}

/* Level 19 compresses at a few MB/s here: a small tree keeps the test fast. */
static void test_zstd_level19(void **state)
{
	(void)state;
	pipe_transfer(WL_TINY, 1, 19, 2);
	pipe_transfer(WL_TINY, 1, 19, 0);
}

/* A sink that takes SLOW_SINK_NS of the writer's time on every write: a slow next stage. */
#define SLOW_SINK_NS 30000000ull

static int slow_sink_write(void *ctx, const void *buf, size_t len)
{
	struct timespec ts = { 0, (long)SLOW_SINK_NS };

	nanosleep(&ts, NULL);
	return mem_sink_write(ctx, buf, len);
}

/*
 * The sender's own stage (send_stats.own_s): its time less what the next
 * stage took to take its bytes. Behind a sink that sleeps on every write it
 * is no longer than the whole write less those sleeps; never 0 or more than
 * the whole.
 */
static void test_own_stage_leaves_out_the_next(void **state)
{
	const struct shared_workload *w = workload(WL_TINY);
	struct byte_sink sink;
	struct mem_sink mem;
	struct send_stats st;
	clock_ns t0;
	double took;
	size_t writes;

	(void)state;
	mem_sink_init(&mem, &sink);
	t0 = clock_now();
	assert_int_equal(tar_stream_write(w->dir, &w->m, false, &sink, &st), 0);
	took = clock_seconds(t0, clock_now());
	assert_true(st.own_s > 0 && st.own_s <= took);
	/* libarchive hands whole 1 MiB blocks, the last one padded */
	writes = (mem.len + (1u << 20) - 1) / (1u << 20);
	free(mem.data);

	mem_sink_init(&mem, &sink);
	sink.write = slow_sink_write;
	t0 = clock_now();
	assert_int_equal(tar_stream_write(w->dir, &w->m, false, &sink, &st), 0);
	took = clock_seconds(t0, clock_now());
	free(mem.data);
	assert_true(writes >= 1);
	assert_true(st.own_s > 0);
	assert_true(st.own_s <= took - (double)writes * SLOW_SINK_NS / 1e9);
}

/* ---- GNU tar in both directions ---- */

/* Runs tar_stream_write (optionally through zstd) into `sh -c cmd` and checks its status. */
static void write_to_command(const struct shared_workload *w, const char *cmd, int zstd)
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

static void gnu_tar_extract_of(const struct shared_workload *w, int zstd)
{
	char dest[512], cmd[2048], errfile[600], errbuf[256] = "";
	FILE *ef;
	size_t n;

	make_temp(dest, sizeof(dest));
	snprintf(errfile, sizeof(errfile), "%s.err", dest);
	snprintf(cmd, sizeof(cmd), "%star -xf - -C '%s' --warning=no-unknown-keyword 2>'%s'",
		 zstd ? "zstd -d -q 2>/dev/null | " : "", dest, errfile);
	write_to_command(w, cmd, zstd);
	ef = fopen(errfile, "r");
	assert_non_null(ef);
	n = fread(errbuf, 1, sizeof(errbuf) - 1, ef);
	fclose(ef);
	unlink(errfile);
	errbuf[n] = '\0';
	/* GNU tar has nothing to say about our stream, not even a warning. */
	assert_string_equal(errbuf, "");
	expect_verified(dest, &w->m);
	assert_int_equal(fs_remove_tree(dest), 0);
}

static void gnu_tar_extract(int which, int zstd)
{
	gnu_tar_extract_of(workload(which), zstd);
}

static void test_gnu_tar_extracts_plain(void **state)
{
	(void)state;
	gnu_tar_extract(WL_SMALL, 0);
}

static void test_gnu_tar_extracts_zstd(void **state)
{
	(void)state;
	gnu_tar_extract(WL_MIXED, 1);
}

/*
 * Names are bytes: UTF-8 beyond ASCII and bytes that are no UTF-8 at all go
 * through the stream as they are (we run in the C locale, where the pax
 * writer's default conversion to UTF-8 refuses them), to our extractor and
 * to GNU tar's.
 */
static void test_names_of_any_bytes(void **state)
{
	static const char *names[] = { "caf\xc3\xa9.txt", "\xff\xfe-not-utf8.bin",
				       "d\xc3\xafr/x.txt", "plain.txt" };
	struct shared_workload w = { 0 };
	struct writer_job job;
	struct recv_stats rs;
	char dest[512], path[1024];

	(void)state;
	make_temp(w.dir, sizeof(w.dir));
	for (size_t i = 0; i < ARRAY_LEN(names); i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", w.dir, names[i]);
		if (strchr(names[i], '/')) {
			char dir[1024];

			snprintf(dir, sizeof(dir), "%s", path);
			*strrchr(dir, '/') = '\0';
			assert_int_equal(mkdir(dir, 0755), 0);
		}
		f = fopen(path, "w");
		assert_non_null(f);
		fprintf(f, "content of %zu\n", i);
		fclose(f);
	}
	assert_int_equal(manifest_from_tree(&w.m, w.dir, 2), 0);
	assert_int_equal(w.m.count, ARRAY_LEN(names));
	make_temp(dest, sizeof(dest));
	job = (struct writer_job){ .src = w.dir, .m = &w.m };
	through_pipe(&job, dest, &rs);
	assert_int_equal(rs.files, ARRAY_LEN(names));
	assert_int_equal(fs_remove_tree(dest), 0);
	gnu_tar_extract_of(&w, 0);
	manifest_release(&w.m);
	assert_int_equal(fs_remove_tree(w.dir), 0);
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

static void *relay_main(void *arg)
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

static int relay_start(struct relay *r, const char *cmd)
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
static int relay_end(struct relay *r)
{
	pthread_join(r->tid, NULL);
	return pclose(r->f);
}

/* `tar -cf - -C src .` (names start with "./") and `tar -I zstd` both extract. */
static void test_extract_gnu_tar_stream(void **state)
{
	static const char *tools[] = { "", "-I 'zstd -1'" };
	const struct shared_workload *w = workload(WL_MIXED);

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(tools); i++) {
		char dest[512], cmd[1024];
		struct recv_stats rs;
		struct relay r;
		int rc, status, fd;

		make_temp(dest, sizeof(dest));
		snprintf(cmd, sizeof(cmd), "tar %s -cf - -C '%s' .", tools[i], w->dir);
		fd = relay_start(&r, cmd);
		rc = tar_stream_extract(fd, &test_opts, dest, &rs);
		if (rc < 0)
			print_error("tar_stream_extract: %s\n", err_msg());
		close(fd);
		status = relay_end(&r);
		assert_int_equal(rc, 0);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		expect_verified(dest, &w->m);
		assert_int_equal(rs.files, w->m.count);
		assert_int_equal(rs.bytes, w->m.total_bytes);
		assert_int_equal(fs_remove_tree(dest), 0);
	}
}

/* ---- a real tree: links, hard links, directories, modes, mtimes ---- */

/*
 * Builds the tree every strategy on the tar path must carry whole: symbolic
 * links (relative, absolute, dangling, to a directory, text
 * ../../etc/passwd), hard links in groups of 2 and 3 (across directories),
 * empty directories at several depths, a 0555 directory with files (and
 * names sorting between it and its contents: "ro" < "ro.txt" < "ro/a"),
 * 0444/0600/0755 files and a 0000 one when root, names with a space, a
 * newline and bytes >= 0x80, a 0-byte file, mtimes set everywhere.
 */
static void make_real_tree(const char *dir)
{
	static const char script[] =
		"set -e; cd \"$1\"\n"
		"mkdir -p d/sub ro e1 d/e2/e3 'sp ace'\n"
		"printf alpha >d/a; printf beta >f644; printf ro >ro/a; printf ro2 >ro/b\n"
		"printf x >ro.txt; printf y >ro-1; : >zero\n"
		"printf 'new' >\"$(printf 'new\\nline')\"; printf hi >\"$(printf 'caf\\303\\251')\"\n"
		"printf raw >\"$(printf '\\377\\376bytes')\"; printf s >'sp ace/in file'\n"
		"printf ro >r444; chmod 0444 r444; printf p >p600; chmod 0600 p600\n"
		"printf '#!/bin/sh\\n' >x755; chmod 0755 x755\n"
		"if [ \"$(id -u)\" = 0 ]; then printf secret >z000; chmod 0000 z000; fi\n"
		"ln d/a d/sub/a2; ln f644 g644; ln f644 d/sub/g3\n"
		"ln -s ../f644 d/rel; ln -s /etc/hostname abs; ln -s nowhere/at/all dangling\n"
		"ln -s d todir; ln -s ../../etc/passwd up\n"
		"find . -mindepth 1 ! -type l -exec touch -h -d @1600000000 {} +\n"
		"touch -h -d @1500000000 d/rel abs up\n"
		"touch -d @1400000001 ro e1 d/e2/e3 d/e2 d/sub d 'sp ace'\n"
		"chmod 0555 ro; chmod 0700 e1; chmod 0750 d/e2/e3\n";
	char cmd[sizeof(script) + 600];
	int status;

	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(cmd, sizeof(cmd), "bash -c '%s' fixture '%s'", "eval \"$FIXTURE\"", dir);
	assert_int_equal(setenv("FIXTURE", script, 1), 0);
	status = system(cmd);
	unsetenv("FIXTURE");
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* A copy that failed nothing any claim could fail, and kept every kind the tree has. */
static void expect_all_kept(const char *dir, const struct manifest *m)
{
	struct verify_report rep;
	char summary[512];
	unsigned present, kept;

	assert_int_equal(verify_tree(dir, m, 2, &rep), 0);
	kept = verify_preserved(m, &rep, &present);
	if (verify_failures(&rep, PRESERVE_ALL) != 0 || kept != present) {
		verify_summary(&rep, summary, sizeof(summary));
		print_error("%s: %s (first: %s); kept %#x of %#x\n", dir, summary,
			    rep.nexamples ? rep.examples[0] : "", kept, present);
		fail();
	}
	assert_int_equal(present, PRESERVE_ALL);
}

/*
 * The real tree, made on first use and shared, as the workloads are, by the
 * tests that only read it (its script's forks were most of their time).
 */
static const struct shared_workload *real_tree(void)
{
	struct shared_workload *w = &workloads[WL_REAL];

	if (w->ready)
		return w;
	if (!shared_root[0])
		make_temp(shared_root, sizeof(shared_root));
	snprintf(w->dir, sizeof(w->dir), "%s/real", shared_root);
	make_real_tree(w->dir);
	assert_int_equal(manifest_from_tree(&w->m, w->dir, 2), 0);
	assert_int_equal(w->m.nhardlinks, 3);
	assert_int_equal(w->m.nsymlinks, 5);
	assert_int_equal(w->m.ndirs, 7);
	w->ready = 1;
	return w;
}

/*
 * The order of our stream of a tree: every directory of the manifest once,
 * right before what is in it, its subtree one run (nothing comes into a
 * directory after the stream left it: GNU tar would have made a 0555 one
 * read-only by then); symbolic links with the manifest's text; each inode's
 * content once, its other names hard links to a name that came before.
 */
static void check_tree_order(const char *src, const struct manifest *m)
{
	struct byte_sink sink;
	struct mem_sink mem;
	struct send_stats st;
	struct archive *a;
	struct archive_entry *e;
	char (*names)[256] = calloc(256, sizeof(*names));
	char kinds[256];
	size_t n = 0, links = 0;

	assert_non_null(names);
	mem_sink_init(&mem, &sink);
	assert_int_equal(tar_stream_write(src, m, true, &sink, &st), 0);
	a = archive_read_new();
	archive_read_support_format_tar(a);
	assert_int_equal(archive_read_open_memory(a, mem.data, mem.len), ARCHIVE_OK);
	while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
		const char *hard = archive_entry_hardlink(e);
		size_t len;

		assert_true(n < 256);
		snprintf(names[n], sizeof(names[0]), "%s", archive_entry_pathname(e));
		len = strlen(names[n]);
		if (len && names[n][len - 1] == '/')
			names[n][len - 1] = '\0';
		if (hard) {
			size_t k = 0;

			/* to a regular file with content, earlier in the stream */
			while (k < n && strcmp(names[k], hard))
				k++;
			assert_true(k < n);
			assert_int_equal(kinds[k], 'f');
			kinds[n] = 'h';
			links++;
		} else if (archive_entry_filetype(e) == AE_IFLNK) {
			const struct manifest_symlink *ms = manifest_find_symlink(m, names[n]);

			assert_non_null(ms);
			assert_string_equal(archive_entry_symlink(e), ms->target);
			kinds[n] = 'l';
		} else {
			kinds[n] = archive_entry_filetype(e) == AE_IFDIR ? 'd' : 'f';
		}
		n++;
	}
	archive_read_free(a);
	assert_int_equal(n, manifest_nodes(m));
	assert_int_equal(links, m->nhardlinks);
	for (size_t i = 0; i < n; i++) {
		char prefix[260];
		size_t plen, first = n, last = 0, inside = 0;

		if (kinds[i] != 'd')
			continue;
		plen = (size_t)snprintf(prefix, sizeof(prefix), "%s/", names[i]);
		for (size_t k = 0; k < n; k++) {
			if (k != i)
				assert_string_not_equal(names[k], names[i]);
			if (!strncmp(names[k], prefix, plen)) {
				first = k < first ? k : first;
				last = k > last ? k : last;
				inside++;
			}
		}
		if (!inside)
			continue;
		if (first != i + 1 || last - first + 1 != inside)
			print_error("'%s' (entry %zu): its %zu entries are at %zu..%zu\n", names[i], i,
				    inside, first, last);
		assert_int_equal(first, i + 1);
		assert_int_equal(last - first + 1, inside);
	}
	free(names);
	free(mem.data);
}

static void test_real_tree_stream_order(void **state)
{
	const struct shared_workload *w = real_tree();

	(void)state;
	check_tree_order(w->dir, &w->m);
}

/* Our stream, our extractor (plain and zstd): everything kept. */
static void test_real_tree_to_extractor(void **state)
{
	const struct shared_workload *w = real_tree();

	(void)state;
	for (int zstd = 0; zstd <= 1; zstd++) {
		struct writer_job job = { .src = w->dir, .m = &w->m, .zstd = zstd, .level = 1 };
		struct recv_stats rs;
		char dest[512];

		make_temp(dest, sizeof(dest));
		through_pipe(&job, dest, &rs);
		expect_all_kept(dest, &w->m);
		/* each inode's content once: the other names are links */
		assert_int_equal(job.st.files, w->m.count);
		assert_int_equal(rs.files, w->m.count);
		assert_int_equal(rs.bytes, w->m.total_bytes);
		assert_int_equal(fs_remove_tree(dest), 0);
	}
}

/* Our stream into GNU tar -xp (what tar-ssh runs on the host): everything kept, no warning. */
static void test_real_tree_to_gnu_tar(void **state)
{
	const struct shared_workload *w = real_tree();
	char dest[512], cmd[2048], errfile[600], errbuf[256] = "";
	FILE *ef;
	size_t n;

	(void)state;
	make_temp(dest, sizeof(dest));
	snprintf(errfile, sizeof(errfile), "%s.err", dest);
	snprintf(cmd, sizeof(cmd), "tar -xpf - -C '%s' --warning=no-unknown-keyword 2>'%s'", dest,
		 errfile);
	write_to_command(w, cmd, 0);
	ef = fopen(errfile, "r");
	assert_non_null(ef);
	n = fread(errbuf, 1, sizeof(errbuf) - 1, ef);
	fclose(ef);
	unlink(errfile);
	errbuf[n] = '\0';
	assert_string_equal(errbuf, "");
	expect_all_kept(dest, &w->m);
	assert_int_equal(fs_remove_tree(dest), 0);
}

/* GNU tar's own stream of the tree (real-tar-nc), gnu and pax formats: everything kept. */
static void test_gnu_tar_real_tree_to_extractor(void **state)
{
	static const char *formats[] = { "", "--format=pax" };
	const struct shared_workload *w = real_tree();

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(formats); i++) {
		char dest[512], cmd[1024];
		struct recv_stats rs;
		struct relay r;
		int rc, status, fd;

		make_temp(dest, sizeof(dest));
		snprintf(cmd, sizeof(cmd), "tar %s -cf - -C '%s' .", formats[i], w->dir);
		fd = relay_start(&r, cmd);
		rc = tar_stream_extract(fd, &test_opts, dest, &rs);
		if (rc < 0)
			print_error("tar_stream_extract: %s\n", err_msg());
		close(fd);
		status = relay_end(&r);
		assert_int_equal(rc, 0);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		expect_all_kept(dest, &w->m);
		assert_int_equal(rs.files, w->m.count);
		assert_int_equal(fs_remove_tree(dest), 0);
	}
}

/* ---- the stream itself ---- */

/*
 * A file that changed after the manifest was made is an error naming it,
 * and what reached the sink is not a valid (short) archive.
 */
static void test_changed_file(void **state)
{
	struct workload_spec spec = { .kind = WORKLOAD_SMALLFILES, .files = 400, .seed = 5,
				      .compressibility = 0.5 };
	struct generate_stats gs;
	struct manifest m;
	struct byte_sink sink;
	struct mem_sink mem;
	struct send_stats st;
	struct recv_stats rs;
	char base[512], src[600], dest[600], victim[1200];
	int fd;

	(void)state;
	make_temp(base, sizeof(base));
	snprintf(src, sizeof(src), "%s/src", base);
	snprintf(dest, sizeof(dest), "%s/dest", base);
	assert_int_equal(mkdir(dest, 0755), 0);
	workload_apply_defaults(&spec);
	assert_int_equal(workload_generate(&spec, src, 2, false, &m, &gs), 0);
	snprintf(victim, sizeof(victim), "%s/%s", src, m.entries[350].path);
	assert_int_equal(truncate(victim, (off_t)m.entries[350].size + 1), 0);

	mem_sink_init(&mem, &sink);
	err_clear();
	assert_int_equal(tar_stream_write(src, &m, true, &sink, &st), -1);
	assert_contains(err_msg(), m.entries[350].path);
	assert_contains(err_msg(), "changed");
	assert_int_equal(mem.closes, 0);
	assert_int_equal(st.files, 350);
	/* More than a block went out before the error: it must not read as an archive. */
	assert_true(mem.len >= MIB);
	fd = memfd_with(mem.data, mem.len);
	err_clear();
	assert_int_equal(tar_stream_extract(fd, &test_opts, dest, &rs), -1);
	assert_contains(err_msg(), "tar stream: ");
	close(fd);

	/* A missing file is named too. */
	assert_int_equal(unlink(victim), 0);
	mem.len = 0;
	err_clear();
	assert_int_equal(tar_stream_write(src, &m, true, &sink, &st), -1);
	assert_contains(err_msg(), m.entries[350].path);

	free(mem.data);
	manifest_release(&m);
	assert_int_equal(fs_remove_tree(base), 0);
}

/* A sink that fails stops the stream with its error; the sink is not closed. */
static void test_sink_failure(void **state)
{
	const struct shared_workload *w = workload(WL_SMALL);
	struct byte_sink sink;
	struct mem_sink mem;
	struct send_stats st;

	(void)state;
	mem_sink_init(&mem, &sink);
	mem.limit = 3 * MIB;
	err_clear();
	assert_int_equal(tar_stream_write(w->dir, &w->m, true, &sink, &st), -1);
	assert_contains(err_msg(), "test sink is full");
	assert_int_equal(mem.closes, 0);
	assert_int_equal(mem.len, 3 * MIB);
	assert_int_equal(st.wire_bytes, 3 * MIB);
	assert_true(st.files > 0 && st.files < w->m.count);
	free(mem.data);
}

/* ---- hostile streams ---- */

struct hostile_entry {
	const char *name;	/* "@" is replaced by the test's base directory */
	mode_t type;
	unsigned perm;
	const char *link;	/* symlink target or hardlink name */
	int hardlink;
	size_t size;
};

/* Builds a pax-restricted archive of the entries in memory with libarchive. */
static void build_archive(const struct hostile_entry *es, size_t n, const char *base,
			  struct mem_sink *mem)
{
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();
	static unsigned char content[300000];

	memset(content, 'x', sizeof(content));
	memset(mem, 0, sizeof(*mem));
	mem->cap = 64 << 20;
	mem->data = malloc(mem->cap);
	assert_non_null(mem->data);
	assert_int_equal(archive_write_set_format_pax_restricted(a), ARCHIVE_OK);
	assert_int_equal(archive_write_open_memory(a, mem->data, mem->cap, &mem->len), ARCHIVE_OK);
	for (size_t i = 0; i < n; i++) {
		char name[1024];

		if (es[i].name[0] == '@')
			snprintf(name, sizeof(name), "%s%s", base, es[i].name + 1);
		else
			snprintf(name, sizeof(name), "%s", es[i].name);
		archive_entry_clear(e);
		archive_entry_set_pathname(e, name);
		archive_entry_set_filetype(e, es[i].type);
		archive_entry_set_perm(e, es[i].perm);
		archive_entry_set_mtime(e, 1700000000, 0);
		if (es[i].link && es[i].hardlink)
			archive_entry_set_hardlink(e, es[i].link);
		else if (es[i].link)
			archive_entry_set_symlink(e, es[i].link);
		archive_entry_set_size(e, es[i].type == AE_IFREG && !es[i].hardlink ?
					   (la_int64_t)es[i].size : 0);
		assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
		if (es[i].type == AE_IFREG && es[i].size)
			assert_int_equal(archive_write_data(a, content, es[i].size),
					 (la_ssize_t)es[i].size);
	}
	assert_int_equal(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
	archive_entry_free(e);
}

/* A fresh base directory holding an empty dest/, and es as an archive in mem. */
static void archive_beside_dest(const struct hostile_entry *es, size_t n, char *base, size_t blen,
				char *dest, size_t dlen, struct mem_sink *mem)
{
	make_temp(base, blen);
	snprintf(dest, dlen, "%s/dest", base);
	assert_int_equal(mkdir(dest, 0755), 0);
	build_archive(es, n, base, mem);
}

/*
 * Extracts data into base/dest; expects -1, an error containing `expect`,
 * and nothing in base but dest. Returns the number of names in dest.
 */
static int extract_hostile(const char *base, const void *data, size_t len, const char *expect)
{
	char dest[600], first[256] = "";
	struct recv_stats rs;
	int fd = memfd_with(data, len), rc, n;

	snprintf(dest, sizeof(dest), "%s/dest", base);
	err_clear();
	rc = tar_stream_extract(fd, &test_opts, dest, &rs);
	close(fd);
	if (rc != -1)
		print_error("hostile stream accepted (expected '%s')\n", expect);
	assert_int_equal(rc, -1);
	assert_true(err_msg()[0] != '\0');
	assert_contains(err_msg(), "tar stream: ");
	assert_contains(err_msg(), expect);
	n = dir_entries(base, first, sizeof(first));
	if (n != 1 || strcmp(first, "dest"))
		print_error("'%s' holds %d names, first '%s'\n", base, n, first);
	assert_int_equal(n, 1);
	assert_string_equal(first, "dest");
	return dir_entries(dest, NULL, 0);
}

static void hostile_case(const struct hostile_entry *es, size_t n, const char *expect,
			 int max_in_dest)
{
	char base[512], dest[600];
	struct mem_sink mem;

	archive_beside_dest(es, n, base, sizeof(base), dest, sizeof(dest), &mem);
	assert_true(extract_hostile(base, mem.data, mem.len, expect) <= max_in_dest);
	free(mem.data);
	assert_int_equal(fs_remove_tree(base), 0);
}

static void test_hostile_dotdot(void **state)
{
	const struct hostile_entry es[] = {
		{ .name = "ok", .type = AE_IFREG, .perm = 0644, .size = 10 },
		{ .name = "../evil", .type = AE_IFREG, .perm = 0644, .size = 10 },
	};
	const struct hostile_entry hidden[] = {
		{ .name = "sub/../../evil", .type = AE_IFREG, .perm = 0644, .size = 10 },
	};
	const struct hostile_entry dir[] = {
		{ .name = "../evil/", .type = AE_IFDIR, .perm = 0755 },
	};

	(void)state;
	hostile_case(es, ARRAY_LEN(es), "'../evil'", 1);
	hostile_case(hidden, ARRAY_LEN(hidden), "'sub/../../evil'", 0);
	hostile_case(dir, ARRAY_LEN(dir), "'../evil", 0);
}

static void test_hostile_absolute(void **state)
{
	const struct hostile_entry es[] = {
		{ .name = "@/abs-evil", .type = AE_IFREG, .perm = 0644, .size = 10 },
	};

	(void)state;
	hostile_case(es, ARRAY_LEN(es), "abs-evil", 0);
}

static void test_hostile_devices(void **state)
{
	const struct hostile_entry fifo[] = {
		{ .name = "f", .type = AE_IFIFO, .perm = 0644 },
	};
	const struct hostile_entry chr[] = {
		{ .name = "c", .type = AE_IFCHR, .perm = 0644 },
	};

	(void)state;
	hostile_case(fifo, ARRAY_LEN(fifo), "'f' is a fifo", 0);
	hostile_case(chr, ARRAY_LEN(chr), "'c' is a character device", 0);
}

/*
 * Links from a hostile stream: a symbolic link may say anything (its text
 * is data), but nothing is written through one, and a hard link is made
 * only to a regular file already inside the destination. Each case writes
 * nothing outside dest (extract_hostile checks base holds only dest).
 */
static void test_hostile_symlink_escape(void **state)
{
	/* a -> .. is base: a/evil would land beside dest */
	const struct hostile_entry up[] = {
		{ .name = "a", .type = AE_IFLNK, .perm = 0777, .link = ".." },
		{ .name = "a/evil", .type = AE_IFREG, .perm = 0644, .size = 10 },
	};
	/* the same through a deeper directory and a link to an absolute path */
	const struct hostile_entry abs[] = {
		{ .name = "d/", .type = AE_IFDIR, .perm = 0755 },
		{ .name = "d/l", .type = AE_IFLNK, .perm = 0777, .link = "@" },
		{ .name = "d/l/evil", .type = AE_IFREG, .perm = 0644, .size = 10 },
	};
	/* a directory entry through the link, then a file in it */
	const struct hostile_entry dir[] = {
		{ .name = "a", .type = AE_IFLNK, .perm = 0777, .link = "../" },
		{ .name = "a/sub/", .type = AE_IFDIR, .perm = 0755 },
		{ .name = "a/sub/evil", .type = AE_IFREG, .perm = 0644, .size = 10 },
	};
	/* a link, then a hard link and a symlink placed through it */
	const struct hostile_entry via[] = {
		{ .name = "f", .type = AE_IFREG, .perm = 0644, .size = 10 },
		{ .name = "a", .type = AE_IFLNK, .perm = 0777, .link = ".." },
		{ .name = "a/evil", .type = AE_IFREG, .perm = 0644, .link = "f", .hardlink = 1 },
	};
	const struct hostile_entry via_sym[] = {
		{ .name = "a", .type = AE_IFLNK, .perm = 0777, .link = ".." },
		{ .name = "a/evil", .type = AE_IFLNK, .perm = 0777, .link = "x" },
	};

	(void)state;
	hostile_case(up, ARRAY_LEN(up), "'a/evil' would be written through a symbolic link", 1);
	hostile_case(abs, ARRAY_LEN(abs), "'d/l/evil' would be written through a symbolic link", 1);
	hostile_case(dir, ARRAY_LEN(dir), "'a/sub/' would be written through a symbolic link", 1);
	hostile_case(via, ARRAY_LEN(via), "'a/evil' would be written through a symbolic link", 2);
	hostile_case(via_sym, ARRAY_LEN(via_sym), "'a/evil' would be written through", 1);
}

/* lstat of dir/name, which must exist. */
static void lstat_in(const char *dir, const char *name, struct stat *sb)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (lstat(path, sb) < 0)
		print_error("lstat '%s': %s\n", path, strerror(errno));
	assert_int_equal(lstat(path, sb), 0);
}

/* Creates the empty file dir/name. */
static void create_in(const char *dir, const char *name)
{
	char path[1024];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	close(fd);
}

static void test_hostile_hardlinks(void **state)
{
	const struct hostile_entry up[] = {
		{ .name = "hl", .type = AE_IFREG, .perm = 0644, .link = "../x", .hardlink = 1 },
	};
	const struct hostile_entry abs[] = {
		{ .name = "hl", .type = AE_IFREG, .perm = 0644, .link = "/etc/passwd", .hardlink = 1 },
	};
	/* the hard link's target through a link that leads out */
	const struct hostile_entry through[] = {
		{ .name = "a", .type = AE_IFLNK, .perm = 0777, .link = ".." },
		{ .name = "hl", .type = AE_IFREG, .perm = 0644, .link = "a/x", .hardlink = 1 },
	};
	/* to a symbolic link (link(2) would link the link itself) and to a directory */
	const struct hostile_entry to_sym[] = {
		{ .name = "s", .type = AE_IFLNK, .perm = 0777, .link = "/etc/passwd" },
		{ .name = "hl", .type = AE_IFREG, .perm = 0644, .link = "s", .hardlink = 1 },
	};
	const struct hostile_entry to_dir[] = {
		{ .name = "d/", .type = AE_IFDIR, .perm = 0755 },
		{ .name = "hl", .type = AE_IFREG, .perm = 0644, .link = "d", .hardlink = 1 },
	};
	/* to nothing yet extracted */
	const struct hostile_entry ahead[] = {
		{ .name = "hl", .type = AE_IFREG, .perm = 0644, .link = "later", .hardlink = 1 },
		{ .name = "later", .type = AE_IFREG, .perm = 0644, .size = 10 },
	};
	char base[512], dest[600];
	struct mem_sink mem;
	struct stat sb;
	int fd;

	(void)state;
	hostile_case(up, ARRAY_LEN(up), "'hl' is a hard link to '../x'", 0);
	hostile_case(abs, ARRAY_LEN(abs), "'hl' is a hard link to '/etc/passwd'", 0);
	hostile_case(to_sym, ARRAY_LEN(to_sym), "'hl' is a hard link to 's', which is not a regular file", 1);
	hostile_case(to_dir, ARRAY_LEN(to_dir), "'hl' is a hard link to 'd', which is not a regular file", 1);
	hostile_case(ahead, ARRAY_LEN(ahead), "'hl' is a hard link to 'later', not a file extracted", 0);

	/* base/x exists: a link through "a" would reach it, and must not. */
	archive_beside_dest(through, ARRAY_LEN(through), base, sizeof(base), dest, sizeof(dest), &mem);
	create_in(base, "x");
	fd = memfd_with(mem.data, mem.len);
	err_clear();
	assert_int_equal(tar_stream_extract(fd, &test_opts, dest, &(struct recv_stats){ 0 }), -1);
	close(fd);
	assert_contains(err_msg(), "'hl' is a hard link to 'a/x'");
	lstat_in(base, "x", &sb);
	assert_int_equal(sb.st_nlink, 1);
	free(mem.data);
	assert_int_equal(fs_remove_tree(base), 0);
}

/*
 * An entry in the place of a symbolic link replaces the link and does not
 * write through it: a file, a directory, a hard link, another link. The
 * stream succeeds; base (outside dest) is left as it was.
 */
static void test_entry_replaces_symlink(void **state)
{
	const struct hostile_entry es[] = {
		{ .name = "f", .type = AE_IFREG, .perm = 0644, .size = 10 },
		{ .name = "s1", .type = AE_IFLNK, .perm = 0777, .link = "../victim" },
		{ .name = "s1", .type = AE_IFREG, .perm = 0600, .size = 20 },
		{ .name = "s2", .type = AE_IFLNK, .perm = 0777, .link = "../victimdir" },
		{ .name = "s2/", .type = AE_IFDIR, .perm = 0700 },
		{ .name = "s2/in", .type = AE_IFREG, .perm = 0644, .size = 5 },
		{ .name = "s3", .type = AE_IFLNK, .perm = 0777, .link = "../victim" },
		{ .name = "s3", .type = AE_IFREG, .perm = 0644, .link = "f", .hardlink = 1 },
		{ .name = "s4", .type = AE_IFLNK, .perm = 0777, .link = "../victim" },
		{ .name = "s4", .type = AE_IFLNK, .perm = 0777, .link = "../../etc/passwd" },
	};
	char base[512], dest[600], path[700], text[64];
	struct mem_sink mem;
	struct recv_stats rs;
	struct stat sb, fsb;
	ssize_t n;
	int fd;

	(void)state;
	archive_beside_dest(es, ARRAY_LEN(es), base, sizeof(base), dest, sizeof(dest), &mem);
	create_in(base, "victim");
	snprintf(path, sizeof(path), "%s/victimdir", base);
	assert_int_equal(mkdir(path, 0755), 0);
	fd = memfd_with(mem.data, mem.len);
	err_clear();
	if (tar_stream_extract(fd, &test_opts, dest, &rs) < 0)
		print_error("tar_stream_extract: %s\n", err_msg());
	close(fd);
	/* nothing changed outside: victim empty with one link, victimdir empty */
	lstat_in(base, "victim", &sb);
	assert_true(S_ISREG(sb.st_mode) && sb.st_size == 0 && sb.st_nlink == 1);
	assert_int_equal(dir_entries(path, NULL, 0), 0);
	assert_int_equal(dir_entries(base, NULL, 0), 3);
	/* and inside, each entry took the link's place */
	lstat_in(dest, "s1", &sb);
	assert_true(S_ISREG(sb.st_mode) && sb.st_size == 20 && (sb.st_mode & 07777) == 0600);
	lstat_in(dest, "s2", &sb);
	assert_true(S_ISDIR(sb.st_mode) && (sb.st_mode & 07777) == 0700);
	lstat_in(dest, "s3", &sb);
	lstat_in(dest, "f", &fsb);
	assert_true(S_ISREG(sb.st_mode) && sb.st_ino == fsb.st_ino && sb.st_nlink == 2);
	snprintf(path, sizeof(path), "%s/s4", dest);
	n = readlink(path, text, sizeof(text) - 1);
	assert_true(n > 0);
	text[n] = '\0';
	assert_string_equal(text, "../../etc/passwd");
	assert_int_equal(rs.files, 3);
	free(mem.data);
	assert_int_equal(fs_remove_tree(base), 0);
}

static void test_hostile_truncated_and_garbage(void **state)
{
	const struct hostile_entry es[] = {
		{ .name = "a", .type = AE_IFREG, .perm = 0644, .size = 300000 },
		{ .name = "b", .type = AE_IFREG, .perm = 0644, .size = 300000 },
		{ .name = "c", .type = AE_IFREG, .perm = 0644, .size = 300000 },
	};
	char base[512], dest[600];
	struct mem_sink mem;
	unsigned char *garbage = malloc(1 << 16);
	uint64_t x = 0x9e3779b97f4a7c15ull;

	(void)state;
	assert_non_null(garbage);
	archive_beside_dest(es, ARRAY_LEN(es), base, sizeof(base), dest, sizeof(dest), &mem);
	/* Cut inside b's content, then inside b's header, then right after a. */
	extract_hostile(base, mem.data, 512 + 300000 + 512 + 1000, "runcated");
	assert_int_equal(fs_clear_dir(dest), 0);
	extract_hostile(base, mem.data, 512 + 300032 + 100, "runcated");
	assert_int_equal(fs_clear_dir(dest), 0);
	extract_hostile(base, mem.data, 512 + 300032, "");
	assert_int_equal(fs_clear_dir(dest), 0);
	for (size_t i = 0; i < (1 << 16); i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		garbage[i] = (unsigned char)x;
	}
	assert_int_equal(extract_hostile(base, garbage, 1 << 16, ""), 0);
	/* Garbage behind a zstd magic number. */
	memcpy(garbage, "\x28\xb5\x2f\xfd", 4);
	assert_int_equal(extract_hostile(base, garbage, 1 << 16, ""), 0);
	free(garbage);
	free(mem.data);
	assert_int_equal(fs_remove_tree(base), 0);
}

/* Counts this process's open file descriptors. */
static int open_fds(void)
{
	return dir_entries("/proc/self/fd", NULL, 0);
}

/*
 * An entry larger than `ulimit -f` is refused before any file exists: libarchive
 * 3.6.2 would fail at the end of that entry and leave its file open (the
 * fuzzer's find, tests/fuzz/crashes/fuzz_tar_extract/).
 */
static void test_entry_over_file_size_limit(void **state)
{
	const struct hostile_entry es[] = {
		{ .name = "small", .type = AE_IFREG, .perm = 0644, .size = 1000 },
		{ .name = "big", .type = AE_IFREG, .perm = 0644, .size = 200000 },
	};
	char base[512], dest[600];
	struct mem_sink mem;
	struct rlimit saved, capped;
	void (*xfsz)(int) = signal(SIGXFSZ, SIG_IGN);
	int fds;

	(void)state;
	archive_beside_dest(es, ARRAY_LEN(es), base, sizeof(base), dest, sizeof(dest), &mem);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &saved), 0);
	capped = saved;
	capped.rlim_cur = 65536;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &capped), 0);
	fds = open_fds();
	/* The stream as far as 10,000 bytes into big: the copy in a memfd is under the cap too. */
	assert_int_equal(extract_hostile(base, mem.data, 512 + 1024 + 512 + 10000,
					 "entry 'big' declares 200000 bytes, more than this "
					 "process may write (ulimit -f: 65536 bytes)"),
			 1);
	assert_int_equal(open_fds(), fds);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &saved), 0);
	signal(SIGXFSZ, xfsz);
	free(mem.data);
	assert_int_equal(fs_remove_tree(base), 0);
}

/* A symlink already in the destination is not written through. */
static void test_planted_symlink(void **state)
{
	const struct hostile_entry es[] = {
		{ .name = "sub/file", .type = AE_IFREG, .perm = 0644, .size = 10 },
	};
	char base[512], dest[600], outside[600], link[700], target[700];
	struct mem_sink mem;
	struct recv_stats rs;
	int fd, rc;

	(void)state;
	make_temp(base, sizeof(base));
	snprintf(dest, sizeof(dest), "%s/dest", base);
	snprintf(outside, sizeof(outside), "%s/outside", base);
	snprintf(link, sizeof(link), "%s/sub", dest);
	snprintf(target, sizeof(target), "%s/file", outside);
	assert_int_equal(mkdir(dest, 0755), 0);
	assert_int_equal(mkdir(outside, 0755), 0);
	assert_int_equal(symlink(outside, link), 0);
	build_archive(es, ARRAY_LEN(es), base, &mem);
	fd = memfd_with(mem.data, mem.len);
	err_clear();
	rc = tar_stream_extract(fd, &test_opts, dest, &rs);
	close(fd);
	assert_int_equal(rc, -1);
	assert_contains(err_msg(), "sub/file");
	assert_int_equal(access(target, F_OK), -1);
	assert_int_equal(dir_entries(outside, NULL, 0), 0);
	free(mem.data);
	assert_int_equal(fs_remove_tree(base), 0);
}

/* Set-id bits from the stream are dropped; other permissions are kept. */
static void test_setid_dropped(void **state)
{
	const struct hostile_entry es[] = {
		{ .name = "suid", .type = AE_IFREG, .perm = 06755, .size = 10 },
		{ .name = "plain", .type = AE_IFREG, .perm = 0640, .size = 10 },
	};
	char base[512], dest[600], path[700];
	struct mem_sink mem;
	struct recv_stats rs;
	struct stat sb;
	int fd;

	(void)state;
	archive_beside_dest(es, ARRAY_LEN(es), base, sizeof(base), dest, sizeof(dest), &mem);
	fd = memfd_with(mem.data, mem.len);
	assert_int_equal(tar_stream_extract(fd, &test_opts, dest, &rs), 0);
	close(fd);
	assert_int_equal(rs.files, 2);
	assert_int_equal(rs.bytes, 20);
	assert_int_equal(rs.wire_bytes, test_sealed_len(mem.len, 0));
	snprintf(path, sizeof(path), "%s/suid", dest);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0755);
	snprintf(path, sizeof(path), "%s/plain", dest);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0640);
	assert_int_equal(sb.st_mtime, 1700000000);
	free(mem.data);
	assert_int_equal(fs_remove_tree(base), 0);
}

/*
 * Writes src into memory and checks the stream: files in manifest order,
 * each preceded by an entry for every ancestor directory, each directory
 * once with the manifest's mode (0755 for one it does not list).
 */
static void check_directory_entries(const char *src, const struct manifest *m)
{
	struct byte_sink sink;
	struct mem_sink mem;
	struct send_stats st;
	struct archive *a;
	struct archive_entry *e;
	char (*dirs)[512] = calloc(4096, sizeof(*dirs));
	size_t ndirs = 0, files = 0;

	assert_non_null(dirs);
	mem_sink_init(&mem, &sink);
	assert_int_equal(tar_stream_write(src, m, true, &sink, &st), 0);
	assert_int_equal(mem.closes, 1);
	assert_int_equal(mem.len, st.wire_bytes);
	a = archive_read_new();
	archive_read_support_format_tar(a);
	assert_int_equal(archive_read_open_memory(a, mem.data, mem.len), ARCHIVE_OK);
	while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
		char name[512];
		size_t len;

		snprintf(name, sizeof(name), "%s", archive_entry_pathname(e));
		len = strlen(name);
		if (archive_entry_filetype(e) == AE_IFDIR) {
			if (len && name[len - 1] == '/')
				name[--len] = '\0';
			{
				const struct manifest_dir *md = manifest_find_dir(m, name);

				assert_int_equal(archive_entry_perm(e), md ? md->mode : 0755);
			}
			for (size_t i = 0; i < ndirs; i++)
				assert_string_not_equal(dirs[i], name);
			assert_true(ndirs < 4096);
			snprintf(dirs[ndirs++], sizeof(dirs[0]), "%s", name);
			continue;
		}
		assert_int_equal(archive_entry_filetype(e), AE_IFREG);
		assert_true(files < m->count);
		assert_string_equal(name, m->entries[files].path);
		for (char *s = strchr(name, '/'); s; s = strchr(s + 1, '/')) {
			int seen = 0;

			*s = '\0';
			for (size_t i = 0; i < ndirs && !seen; i++)
				seen = !strcmp(dirs[i], name);
			if (!seen)
				print_error("no directory entry for '%s' before its file\n", name);
			assert_true(seen);
			*s = '/';
		}
		files++;
	}
	assert_int_equal(files, m->count);
	assert_int_equal(ndirs, count_dirs(m));
	archive_read_free(a);
	free(mem.data);
	free(dirs);
}

static void test_directory_entries(void **state)
{
	const struct shared_workload *w = workload(WL_MIXED);

	(void)state;
	check_directory_entries(w->dir, &w->m);
}

/*
 * Directory names that share a prefix ("a/b!" sorts before "a/b", "a/b"
 * before "a/bc") each get their entry, and the tree extracts.
 */
static void test_directory_names_sharing_a_prefix(void **state)
{
	static const char *files[] = { "a/b!/f", "a/b/g", "a/b/h/i", "a/bc/j", "a/bc/k/l/m",
				       "a/x", "top", "z/y" };
	char base[512], src[600], dest[600], path[700];
	struct manifest m;
	struct recv_stats rs;
	struct send_stats st;
	struct byte_sink sink;
	struct seal_sink sealed;
	int p[2];

	(void)state;
	make_temp(base, sizeof(base));
	snprintf(src, sizeof(src), "%s/src", base);
	snprintf(dest, sizeof(dest), "%s/dest", base);
	assert_int_equal(mkdir(dest, 0755), 0);
	for (size_t i = 0; i < ARRAY_LEN(files); i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/%s", src, files[i]);
		*strrchr(path, '/') = '\0';
		assert_int_equal(fs_mkdir_p(path), 0);
		snprintf(path, sizeof(path), "%s/%s", src, files[i]);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		assert_true(fd >= 0);
		assert_int_equal(fs_write_all(fd, files[i], strlen(files[i])), 0);
		close(fd);
	}
	manifest_init(&m);
	assert_int_equal(manifest_from_tree(&m, src, 1), 0);
	assert_int_equal(m.count, ARRAY_LEN(files));
	check_directory_entries(src, &m);

	/* Small enough for the pipe buffer: write (in segments), then extract. */
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	byte_sink_fd(&sink, &p[1]);
	assert_int_equal(seal_sink_init(&sealed, &sink, test_key), 0);
	assert_int_equal(tar_stream_write(src, &m, true, seal_sink_as_sink(&sealed), &st), 0);
	assert_int_equal(p[1], -1);
	assert_int_equal(tar_stream_extract(p[0], &test_opts, dest, &rs), 0);
	close(p[0]);
	assert_int_equal(rs.wire_bytes, sealed.wire);
	seal_sink_release(&sealed);
	expect_verified(dest, &m);
	manifest_release(&m);
	assert_int_equal(fs_remove_tree(base), 0);
}

/*
 * The extractor reads to the end of fd, past the end marker (a sender's
 * last bytes must land), but not without bound.
 */
static void test_reads_to_end(void **state)
{
	const struct hostile_entry es[] = {
		{ .name = "a", .type = AE_IFREG, .perm = 0644, .size = 1000 },
	};
	char base[512], dest[600];
	struct mem_sink mem;
	struct recv_stats rs;
	size_t archive_len;
	int fd;

	(void)state;
	archive_beside_dest(es, ARRAY_LEN(es), base, sizeof(base), dest, sizeof(dest), &mem);
	archive_len = mem.len;
	memset(mem.data + archive_len, 0, 5 * MIB);

	fd = memfd_with(mem.data, archive_len + 3 * MIB);
	assert_int_equal(tar_stream_extract(fd, &test_opts, dest, &rs), 0);
	assert_int_equal(lseek(fd, 0, SEEK_CUR), test_sealed_len(archive_len + 3 * MIB, 0));
	close(fd);
	assert_int_equal(rs.wire_bytes, test_sealed_len(archive_len + 3 * MIB, 0));
	assert_int_equal(rs.files, 1);
	assert_int_equal(fs_clear_dir(dest), 0);

	fd = memfd_with(mem.data, archive_len + 5 * MIB);
	err_clear();
	assert_int_equal(tar_stream_extract(fd, &test_opts, dest, &rs), -1);
	assert_contains(err_msg(), "follow the end");
	close(fd);
	free(mem.data);
	assert_int_equal(fs_remove_tree(base), 0);
}

/* ---- sinks ---- */

static void test_zstd_sink_roundtrip(void **state)
{
	const size_t len = 3 * MIB + 12345;
	unsigned char *in = malloc(len), *back = malloc(len);
	struct byte_sink sink;
	struct mem_sink mem;
	struct zstd_sink z;

	(void)state;
	assert_non_null(in);
	assert_non_null(back);
	for (size_t i = 0; i < len; i++)
		in[i] = (unsigned char)((i % 251) ^ (i >> 13));
	for (int threads = 0; threads <= 2; threads += 2) {
		mem_sink_init(&mem, &sink);
		assert_int_equal(zstd_sink_init(&z, &sink, 0, threads), 0);
		for (size_t off = 0; off < len;) {
			size_t n = len - off < 70001 ? len - off : 70001;

			assert_int_equal(zstd_sink_as_sink(&z)->write(z.self.ctx, in + off, n), 0);
			off += n;
		}
		assert_int_equal(zstd_sink_as_sink(&z)->close(z.self.ctx), 0);
		assert_int_equal(mem.closes, 1);
		assert_int_equal(z.bytes_in, len);
		assert_int_equal(z.bytes_out, mem.len);
		assert_true(mem.len < len / 4);
		/* Frame header descriptor (after the 4-byte magic): bit 2 is Content_Checksum_flag. */
		assert_true(mem.len > 5);
		assert_true(mem.data[4] & 0x04);
		assert_int_equal(ZSTD_decompress(back, len, mem.data, mem.len), len);
		assert_memory_equal(back, in, len);
		/* After the end, writes and a second finish are refused. */
		err_clear();
		assert_int_equal(zstd_sink_as_sink(&z)->write(z.self.ctx, in, 1), -1);
		assert_true(err_msg()[0] != '\0');
		assert_int_equal(zstd_sink_finish(&z), -1);
		zstd_sink_release(&z);
		free(mem.data);
	}
	free(in);
	free(back);
}

static void test_zstd_sink_bad_settings(void **state)
{
	struct byte_sink sink;
	struct mem_sink mem;
	struct zstd_sink z;

	(void)state;
	mem_sink_init(&mem, &sink);
	err_clear();
	assert_int_equal(zstd_sink_init(&z, &sink, 23, 0), -1);
	assert_contains(err_msg(), "level 23");
	assert_int_equal(zstd_sink_init(&z, &sink, 1, -1), -1);
	assert_contains(err_msg(), "threads");
	assert_int_equal(zstd_sink_init(&z, &sink, -5, 1), 0);
	zstd_sink_release(&z);
}

struct slow_reader {
	int fd;
	size_t got;
	int eof;
};

static void *slow_reader_main(void *arg)
{
	struct slow_reader *r = arg;
	char buf[4096];

	for (;;) {
		ssize_t n = read(r->fd, buf, sizeof(buf));

		if (n <= 0) {
			r->eof = n == 0;
			return NULL;
		}
		r->got += (size_t)n;
		if (r->got % (256 * 1024) < sizeof(buf))
			usleep(2000);
	}
}

/* A non-blocking socket fills up (EAGAIN) and still takes everything; close shuts down. */
static void test_fd_sink_nonblocking_socket(void **state)
{
	const size_t len = 4 * MIB;
	char *data = calloc(1, len);
	struct byte_sink sink;
	struct slow_reader r;
	pthread_t t;
	int sv[2], fd;

	(void)state;
	assert_non_null(data);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	fd = sv[0];
	assert_int_equal(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK), 0);
	r = (struct slow_reader){ .fd = sv[1] };
	assert_int_equal(pthread_create(&t, NULL, slow_reader_main, &r), 0);
	byte_sink_fd(&sink, &fd);
	assert_int_equal(sink.write(sink.ctx, data, len), 0);
	assert_int_equal(sink.write(sink.ctx, data, 1), 0);
	assert_int_equal(sink.close(sink.ctx), 0);
	pthread_join(t, NULL);
	assert_int_equal(r.got, len + 1);
	assert_true(r.eof);
	assert_int_equal(fd, sv[0]);	/* a socket stays open for the reply */
	close(sv[0]);
	close(sv[1]);

	/* A pipe is closed, and a write after the reader left fails with the error set. */
	{
		int p[2];

		assert_int_equal(pipe2(p, O_CLOEXEC), 0);
		fd = p[1];
		byte_sink_fd(&sink, &fd);
		assert_int_equal(sink.close(sink.ctx), 0);
		assert_int_equal(fd, -1);
		close(p[0]);
		assert_int_equal(pipe2(p, O_CLOEXEC), 0);
		fd = p[1];
		close(p[0]);
		err_clear();
		assert_int_equal(sink.write(sink.ctx, "x", 1), -1);
		assert_contains(err_msg(), "cannot write");
		close(p[1]);
	}
	free(data);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fd_sink_nonblocking_socket),
		cmocka_unit_test(test_zstd_sink_roundtrip),
		cmocka_unit_test(test_zstd_sink_bad_settings),
		cmocka_unit_test(test_plain_smallfiles),
		cmocka_unit_test(test_own_stage_leaves_out_the_next),
		cmocka_unit_test(test_plain_largefile),
		cmocka_unit_test(test_plain_mixed),
		cmocka_unit_test(test_zstd_level1),
		cmocka_unit_test(test_zstd_fast),
		cmocka_unit_test(test_zstd_level19),
		cmocka_unit_test(test_gnu_tar_extracts_plain),
		cmocka_unit_test(test_gnu_tar_extracts_zstd),
		cmocka_unit_test(test_extract_gnu_tar_stream),
		cmocka_unit_test(test_names_of_any_bytes),
		cmocka_unit_test(test_real_tree_stream_order),
		cmocka_unit_test(test_real_tree_to_extractor),
		cmocka_unit_test(test_real_tree_to_gnu_tar),
		cmocka_unit_test(test_gnu_tar_real_tree_to_extractor),
		cmocka_unit_test(test_directory_entries),
		cmocka_unit_test(test_directory_names_sharing_a_prefix),
		cmocka_unit_test(test_reads_to_end),
		cmocka_unit_test(test_changed_file),
		cmocka_unit_test(test_sink_failure),
		cmocka_unit_test(test_hostile_dotdot),
		cmocka_unit_test(test_hostile_absolute),
		cmocka_unit_test(test_hostile_devices),
		cmocka_unit_test(test_hostile_symlink_escape),
		cmocka_unit_test(test_hostile_hardlinks),
		cmocka_unit_test(test_entry_replaces_symlink),
		cmocka_unit_test(test_hostile_truncated_and_garbage),
		cmocka_unit_test(test_entry_over_file_size_limit),
		cmocka_unit_test(test_planted_symlink),
		cmocka_unit_test(test_setid_dropped),
	};
	int rc;

	/* Writers to a pipe whose reader has gone get EPIPE, not a signal. */
	signal(SIGPIPE, SIG_IGN);
	rc = test_run("tar_stream", tests, ARRAY_LEN(tests), NULL, 0);
	shared_cleanup();
	return rc;
}
