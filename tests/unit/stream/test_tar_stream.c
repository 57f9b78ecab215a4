/*
 * Unit tests for transfer/stream/tar_writer.c, tar_extract.c and zstd_sink.c: trees
 * go through a pipe (plain and zstd) into the extractor, into GNU tar, and
 * from GNU tar into the extractor, each ending in verify_tree; the stream's
 * own errors; the sinks. A real tree (links, modes, directories):
 * test_tar_tree.c; hostile streams: test_tar_hostile.c.
 */
#define _GNU_SOURCE
#include "tar_fixture.h"

/*
 * Sends workload `which` through a pipe (plain, or zstd at level/threads)
 * into tar_stream_extract and checks the tree and the counts.
 */
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
		cmocka_unit_test(test_changed_file),
		cmocka_unit_test(test_sink_failure),
	};
	int rc;

	/* Writers to a pipe whose reader has gone get EPIPE, not a signal. */
	signal(SIGPIPE, SIG_IGN);
	rc = test_run("tar_stream", tests, ARRAY_LEN(tests), NULL, 0);
	shared_cleanup();
	return rc;
}
