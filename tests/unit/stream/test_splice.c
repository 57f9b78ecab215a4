/*
 * Unit tests for transfer/stream/splice_sender.c and transfer/stream/frames_receiver.c:
 * real trees over loopback TCP (what production uses), verified against the
 * workload manifest, and hostile streams fed to the receiver.
 */
#define _GNU_SOURCE
#include "testutil.h"

#include "err.h"
#include "stream/frames.h"
#include "stream/frames_receiver.h"
#include "fsutil.h"
#include "generate.h"
#include "stream/send_plan.h"
#include "stream/splice_sender.h"
#include "verify.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- helpers ---- */

struct tmp {
	char root[64], src[96], dst[96];
};

static void tmp_make(struct tmp *t)
{
	snprintf(t->root, sizeof(t->root), "/var/tmp/xfercmp-splice-XXXXXX");
	assert_non_null(mkdtemp(t->root));
	snprintf(t->src, sizeof(t->src), "%s/src", t->root);
	snprintf(t->dst, sizeof(t->dst), "%s/dst", t->root);
	assert_int_equal(mkdir(t->dst, 0755), 0);
}

static void tmp_remove(struct tmp *t)
{
	assert_int_equal(fs_remove_tree(t->root), 0);
}

/* A connected loopback TCP pair: *a connects, *b is the accepted end. */
static void tcp_pair(int *a, int *b)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t len = sizeof(addr);
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(l >= 0);
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(l, (struct sockaddr *)&addr, sizeof(addr)), 0);
	assert_int_equal(listen(l, 4), 0);
	assert_int_equal(getsockname(l, (struct sockaddr *)&addr, &len), 0);
	*a = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(*a >= 0);
	assert_int_equal(connect(*a, (struct sockaddr *)&addr, sizeof(addr)), 0);
	*b = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	assert_true(*b >= 0);
	close(l);
}

struct rx {
	pthread_t thread;
	int sock;
	const char *dest;
	int rc;
	struct err_saved err;	/* the thread's message, for the joiner */
	struct recv_stats st;
};

static void *rx_main(void *arg)
{
	struct rx *r = arg;

	r->rc = frames_receive(r->sock, r->dest, &r->st);
	err_save(&r->err);
	close(r->sock);
	return NULL;
}

static void rx_start(struct rx *r, int sock, const char *dest)
{
	memset(r, 0, sizeof(*r));
	r->sock = sock;
	r->dest = dest;
	assert_int_equal(pthread_create(&r->thread, NULL, rx_main, r), 0);
}

struct tx {
	pthread_t thread;
	int sock;
	const char *src;
	const struct send_plan *plan;
	int rc;
	struct err_saved err;	/* the thread's message, for the joiner */
	struct send_stats st;
};

static void *tx_main(void *arg)
{
	struct tx *t = arg;

	t->rc = splice_send(t->sock, t->src, t->plan->items, t->plan->count, true, &t->st);
	err_save(&t->err);
	close(t->sock);
	return NULL;
}

static void tx_start(struct tx *t, int sock, const char *src, const struct send_plan *plan)
{
	memset(t, 0, sizeof(*t));
	t->sock = sock;
	t->src = src;
	t->plan = plan;
	assert_int_equal(pthread_create(&t->thread, NULL, tx_main, t), 0);
}

static void generate(enum workload_kind kind, uint64_t files, uint64_t size, const char *dir,
		     struct manifest *m)
{
	struct workload_spec spec = {
		.kind = kind, .files = files, .size = size, .seed = 7, .compressibility = 0.3,
	};
	struct generate_stats gst;

	manifest_init(m);
	if (workload_generate(&spec, dir, 2, false, m, &gst) < 0) {
		print_error("workload_generate: %s\n", err_msg());
		fail();
	}
}

static void assert_verified(const char *dst, const struct manifest *m)
{
	struct verify_report rep;
	char line[512];

	assert_int_equal(verify_tree(dst, m, 2, &rep), 0);
	verify_summary(&rep, line, sizeof(line));
	if (verify_differences(&rep) != 0) {
		print_error("%s\n", line);
		for (unsigned i = 0; i < rep.nexamples; i++)
			print_error("  %s\n", rep.examples[i]);
	}
	assert_int_equal(verify_differences(&rep), 0);
	assert_int_equal(rep.files_ok, m->count);
}

/*
 * Sends m's tree as one stream and checks the tree and both sides' counts.
 * nonblock: both sockets O_NONBLOCK, so the EAGAIN paths run too.
 */
static void whole_tree(enum workload_kind kind, uint64_t files, uint64_t size, int nonblock)
{
	struct tmp t;
	struct manifest m;
	struct send_plan plan;
	struct send_stats sst;
	struct rx r;
	int a, b, rc;

	tmp_make(&t);
	generate(kind, files, size, t.src, &m);
	assert_int_equal(send_plan_whole(&m, &plan), 0);
	tcp_pair(&a, &b);
	if (nonblock) {
		assert_int_equal(fcntl(a, F_SETFL, O_NONBLOCK), 0);
		assert_int_equal(fcntl(b, F_SETFL, O_NONBLOCK), 0);
	}
	rx_start(&r, b, t.dst);
	rc = splice_send(a, t.src, plan.items, plan.count, true, &sst);
	if (rc < 0)
		print_error("splice_send: %s\n", err_msg());
	close(a);
	pthread_join(r.thread, NULL);
	if (r.rc < 0)
		print_error("frames_receive: %s\n", r.err.msg);
	assert_int_equal(rc, 0);
	assert_int_equal(r.rc, 0);
	assert_verified(t.dst, &m);
	assert_int_equal(sst.files, m.count);
	assert_int_equal(sst.bytes_read, m.total_bytes);
	assert_int_equal(r.st.files, m.count);
	assert_int_equal(r.st.bytes, m.total_bytes);
	assert_int_equal(sst.wire_bytes, r.st.wire_bytes);
	assert_true(sst.wire_bytes > m.total_bytes + FRAME_HEADER * (m.count + 1));
	send_plan_release(&plan);
	manifest_release(&m);
	tmp_remove(&t);
}

/* ---- whole trees over loopback TCP ---- */

static void test_smallfiles(void **state)
{
	(void)state;
	whole_tree(WORKLOAD_SMALLFILES, 3000, 0, 0);
}

static void test_largefile(void **state)
{
	(void)state;
	whole_tree(WORKLOAD_LARGEFILE, 0, (64ull << 20) + 1234, 0);
}

static void test_mixed(void **state)
{
	(void)state;
	whole_tree(WORKLOAD_MIXED, 500, 32ull << 20, 0);
}

static void test_nonblocking_sockets(void **state)
{
	(void)state;
	whole_tree(WORKLOAD_MIXED, 100, 16ull << 20, 1);
}

/* Two streams, large files cut into ranges, two connections into one dest at once. */
static void split_tree(enum workload_kind kind, uint64_t files, uint64_t size)
{
	struct tmp t;
	struct manifest m;
	struct send_plan plans[2];
	struct rx r[2];
	struct tx s[2];
	uint64_t files_sent = 0, bytes = 0, ranges = 0, received = 0;

	tmp_make(&t);
	generate(kind, files, size, t.src, &m);
	assert_int_equal(send_plan_split(&m, 2, 8ull << 20, plans), 0);
	for (int i = 0; i < 2; i++) {
		int a, b;

		for (size_t k = 0; k < plans[i].count; k++)
			ranges += plans[i].items[k].kind != SEND_FILE;
		tcp_pair(&a, &b);
		rx_start(&r[i], b, t.dst);
		tx_start(&s[i], a, t.src, &plans[i]);
	}
	assert_true(ranges >= 2);
	for (int i = 0; i < 2; i++) {
		pthread_join(s[i].thread, NULL);
		pthread_join(r[i].thread, NULL);
		if (s[i].rc < 0)
			print_error("splice_send %d: %s\n", i, s[i].err.msg);
		if (r[i].rc < 0)
			print_error("frames_receive %d: %s\n", i, r[i].err.msg);
		assert_int_equal(s[i].rc, 0);
		assert_int_equal(r[i].rc, 0);
		assert_int_equal(s[i].st.files, plans[i].count);
		assert_int_equal(r[i].st.files, plans[i].count);
		assert_int_equal(s[i].st.bytes_read, plans[i].bytes);
		assert_int_equal(r[i].st.bytes, plans[i].bytes);
		files_sent += s[i].st.files;
		received += r[i].st.bytes;
		bytes += s[i].st.bytes_read;
	}
	assert_int_equal(bytes, m.total_bytes);
	assert_int_equal(received, m.total_bytes);
	assert_int_equal(files_sent, m.count + ranges - (ranges / 2));
	assert_verified(t.dst, &m);
	for (int i = 0; i < 2; i++)
		send_plan_release(&plans[i]);
	manifest_release(&m);
	tmp_remove(&t);
}

static void test_split_largefile(void **state)
{
	(void)state;
	split_tree(WORKLOAD_LARGEFILE, 0, (64ull << 20) + 1234);
}

static void test_split_mixed(void **state)
{
	(void)state;
	split_tree(WORKLOAD_MIXED, 100, 40ull << 20);	/* four 10 MiB files: each cut in two */
}

/* An empty plan is a stream of one END record. */
static void test_empty_plan(void **state)
{
	struct tmp t;
	struct send_stats sst;
	struct rx r;
	int a, b;

	(void)state;
	tmp_make(&t);
	assert_int_equal(mkdir(t.src, 0755), 0);
	tcp_pair(&a, &b);
	rx_start(&r, b, t.dst);
	assert_int_equal(splice_send(a, t.src, NULL, 0, true, &sst), 0);
	close(a);
	pthread_join(r.thread, NULL);
	assert_int_equal(r.rc, 0);
	assert_int_equal(sst.files, 0);
	assert_int_equal(sst.wire_bytes, FRAME_HEADER);
	assert_int_equal(r.st.wire_bytes, FRAME_HEADER);
	assert_int_equal(r.st.files, 0);
	assert_int_equal(fs_dir_is_empty(t.dst), 1);
	tmp_remove(&t);
}

/* ---- the sender's own errors ---- */

/* A file that is not the size the plan says, small (read ahead) or large (spliced). */
static void changed_size(uint64_t real, uint64_t planned)
{
	struct tmp t;
	struct send_item items[2];
	struct send_stats sst;
	struct rx r;
	char path[160];
	unsigned char *data = calloc(1, (size_t)real);
	int a, b, fd, rc;

	assert_non_null(data);
	tmp_make(&t);
	assert_int_equal(mkdir(t.src, 0755), 0);
	snprintf(path, sizeof(path), "%s/ok", t.src);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	assert_int_equal(fs_write_all(fd, "hello", 5), 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/grown", t.src);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	assert_int_equal(fs_write_all(fd, data, (size_t)real), 0);
	close(fd);
	items[0] = (struct send_item){ .path = "ok", .length = 5, .file_size = 5, .mode = 0644,
				       .kind = SEND_FILE };
	items[1] = (struct send_item){ .path = "grown", .length = planned, .file_size = planned,
				       .mode = 0644, .kind = SEND_FILE };

	tcp_pair(&a, &b);
	rx_start(&r, b, t.dst);
	err_clear();
	rc = splice_send(a, t.src, items, 2, false, &sst);
	assert_int_equal(rc, -1);
	assert_contains(err_msg(), "grown");
	assert_contains(err_msg(), "changed");
	close(a);
	pthread_join(r.thread, NULL);
	/* the receiver sees the stream end early: an error, not a hang */
	assert_int_equal(r.rc, -1);
	err_restore(&r.err);
	assert_contains(err_msg(), "stream ended");
	free(data);
	tmp_remove(&t);
}

static void test_small_file_grew(void **state)
{
	(void)state;
	changed_size(4000, 3999);
}

static void test_small_file_shrank(void **state)
{
	(void)state;
	changed_size(100, 101);
}

static void test_large_file_changed(void **state)
{
	(void)state;
	changed_size(1u << 20, (1u << 20) + 1);
}

static void test_missing_source(void **state)
{
	struct tmp t;
	struct send_item item = { .path = "nosuch", .length = 3, .file_size = 3, .kind = SEND_FILE };
	int sv[2];

	(void)state;
	tmp_make(&t);
	assert_int_equal(mkdir(t.src, 0755), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	err_clear();
	assert_int_equal(splice_send(sv[0], t.src, &item, 1, true, NULL), -1);
	assert_contains(err_msg(), "cannot open");
	assert_contains(err_msg(), "nosuch");
	close(sv[0]);
	close(sv[1]);
	tmp_remove(&t);
}

/* ---- hostile streams ---- */

struct stream {
	unsigned char *p;
	size_t len, cap;
};

static void put(struct stream *s, const void *p, size_t len)
{
	if (s->len + len > s->cap) {
		s->cap = (s->len + len) * 2;
		s->p = realloc(s->p, s->cap);
		assert_non_null(s->p);
	}
	memcpy(s->p + s->len, p, len);
	s->len += len;
}

/* A record with content of `len` bytes of 'x' (only `send` of them written when smaller). */
static void put_record(struct stream *s, enum frame_type type, const char *path, uint32_t mode,
		       uint64_t offset, uint64_t len, uint64_t send)
{
	struct frame f = { .type = type, .path_len = (uint16_t)strlen(path), .mode = mode,
			   .offset = offset, .length = len };
	unsigned char hdr[FRAME_HEADER];
	unsigned char *content = malloc((size_t)send + 1);

	assert_non_null(content);
	memset(content, 'x', (size_t)send);
	frame_encode(&f, hdr);
	put(s, hdr, sizeof(hdr));
	put(s, path, strlen(path));
	put(s, content, (size_t)send);
	free(content);
}

static void put_end(struct stream *s, uint64_t records, uint64_t bytes)
{
	struct frame f = { .type = FRAME_END, .offset = records, .length = bytes };
	unsigned char hdr[FRAME_HEADER];

	frame_encode(&f, hdr);
	put(s, hdr, sizeof(hdr));
}

struct feeder {
	pthread_t thread;
	int sock;
	const struct stream *s;
};

static void *feed_main(void *arg)
{
	struct feeder *f = arg;

	/* the receiver may stop reading early: a failed write is expected then */
	fs_write_all(f->sock, f->s->p, f->s->len);
	close(f->sock);
	return NULL;
}

/* Feeds the bytes to frames_receive over a socketpair; returns its result. */
static int feed(const struct stream *s, const char *dest, struct recv_stats *st)
{
	struct feeder f = { .s = s };
	int sv[2], rc;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	f.sock = sv[0];
	assert_int_equal(pthread_create(&f.thread, NULL, feed_main, &f), 0);
	err_clear();
	rc = frames_receive(sv[1], dest, st);
	close(sv[1]);
	pthread_join(f.thread, NULL);
	return rc;
}

static void expect_reject(const struct stream *s, const char *dest, const char *want)
{
	struct recv_stats st;
	int rc = feed(s, dest, &st);

	if (rc != -1 || !strstr(err_msg(), want))
		print_error("rc %d, error '%s', wanted -1 with '%s'\n", rc, err_msg(), want);
	assert_int_equal(rc, -1);
	assert_true(err_msg()[0] != '\0');
	assert_contains(err_msg(), want);
}

static int exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static void test_bad_magic(void **state)
{
	struct tmp t;
	struct stream s = { 0 };

	(void)state;
	tmp_make(&t);
	put_record(&s, FRAME_FILE, "a", 0644, 0, 3, 3);
	s.p[0] ^= 0xff;
	expect_reject(&s, t.dst, "magic");
	assert_int_equal(fs_dir_is_empty(t.dst), 1);
	free(s.p);
	tmp_remove(&t);
}

static void test_dotdot_path(void **state)
{
	struct tmp t;
	struct stream s = { 0 };
	char outside[128];

	(void)state;
	tmp_make(&t);
	put_record(&s, FRAME_FILE, "../x", 0644, 0, 3, 3);
	put_end(&s, 1, 3);
	expect_reject(&s, t.dst, "'..'");
	snprintf(outside, sizeof(outside), "%s/x", t.root);
	assert_false(exists(outside));
	assert_int_equal(fs_dir_is_empty(t.dst), 1);
	free(s.p);
	tmp_remove(&t);
}

static void test_absolute_path(void **state)
{
	struct tmp t;
	struct stream s = { 0 };
	char target[128];

	(void)state;
	tmp_make(&t);
	snprintf(target, sizeof(target), "%s/abs", t.root);
	put_record(&s, FRAME_FILE, target, 0644, 0, 3, 3);
	put_end(&s, 1, 3);
	expect_reject(&s, t.dst, "absolute path");
	assert_false(exists(target));
	free(s.p);
	tmp_remove(&t);
}

static void test_empty_component(void **state)
{
	struct tmp t;
	struct stream s = { 0 };

	(void)state;
	tmp_make(&t);
	put_record(&s, FRAME_FILE, "a//b", 0644, 0, 3, 3);
	put_end(&s, 1, 3);
	expect_reject(&s, t.dst, "empty component");
	assert_int_equal(fs_dir_is_empty(t.dst), 1);
	free(s.p);
	tmp_remove(&t);
}

static void test_zero_path_length(void **state)
{
	struct tmp t;
	struct stream s = { 0 };

	(void)state;
	tmp_make(&t);
	put_record(&s, FRAME_FILE, "", 0644, 0, 3, 3);
	put_end(&s, 1, 3);
	expect_reject(&s, t.dst, "path length 0");
	assert_int_equal(fs_dir_is_empty(t.dst), 1);
	free(s.p);
	tmp_remove(&t);
}

static void test_end_totals_mismatch(void **state)
{
	struct tmp t;
	struct stream s = { 0 };

	(void)state;
	tmp_make(&t);
	put_record(&s, FRAME_FILE, "d/a", 0644, 0, 5, 5);
	put_end(&s, 2, 5);
	expect_reject(&s, t.dst, "end record says 2 records of 5 bytes, but 1 records of 5 bytes");
	s.len = 0;
	put_record(&s, FRAME_FILE, "d/b", 0644, 0, 5, 5);
	put_end(&s, 1, 6);
	expect_reject(&s, t.dst, "end record says 1 records of 6 bytes");
	free(s.p);
	tmp_remove(&t);
}

static void test_truncated_small(void **state)
{
	struct tmp t;
	struct stream s = { 0 };

	(void)state;
	tmp_make(&t);
	put_record(&s, FRAME_FILE, "a", 0644, 0, 1000, 10);
	expect_reject(&s, t.dst, "stream ended after 10 of 1000 bytes of 'a'");
	free(s.p);
	tmp_remove(&t);
}

static void test_truncated_large(void **state)
{
	struct tmp t;
	struct stream s = { 0 };

	(void)state;
	tmp_make(&t);
	put_record(&s, FRAME_FILE, "big", 0644, 0, 8u << 20, 3u << 20);
	expect_reject(&s, t.dst, "stream ended after 3145728 of 8388608 bytes of 'big'");
	free(s.p);
	tmp_remove(&t);
}

static void test_truncated_elsewhere(void **state)
{
	struct tmp t;
	struct stream s = { 0 };

	(void)state;
	tmp_make(&t);
	put_record(&s, FRAME_FILE, "a", 0644, 0, 3, 3);
	expect_reject(&s, t.dst, "before the end record (1 records arrived)");
	put(&s, "XFR", 3);
	expect_reject(&s, t.dst, "inside a record header");
	s.len = 0;
	put_record(&s, FRAME_FILE, "longname", 0644, 0, 3, 3);
	s.len = FRAME_HEADER + 4;
	expect_reject(&s, t.dst, "inside the path of record 1");
	s.len = 0;
	expect_reject(&s, t.dst, "stream ended after 0 bytes");
	free(s.p);
	tmp_remove(&t);
}

static void test_bytes_after_end(void **state)
{
	struct tmp t;
	struct stream s = { 0 };

	(void)state;
	tmp_make(&t);
	put_record(&s, FRAME_FILE, "a", 0644, 0, 3, 3);
	put_end(&s, 1, 3);
	put(&s, "junk", 4);
	expect_reject(&s, t.dst, "4 unexpected bytes after the end record");
	free(s.p);
	tmp_remove(&t);
}

/* A directory symlink planted in dest must not lead out, for small, large and range records. */
static void test_planted_symlink(void **state)
{
	static const struct {
		enum frame_type type;
		uint64_t len;
	} cases[] = { { FRAME_FILE, 10 }, { FRAME_FILE, 1u << 20 }, { FRAME_RANGE, 10 } };
	struct tmp t;
	char link[128], name[64], outside[128], rel[128];

	(void)state;
	tmp_make(&t);
	snprintf(link, sizeof(link), "%s/link", t.dst);
	assert_int_equal(symlink("/tmp", link), 0);
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		struct stream s = { 0 };

		snprintf(name, sizeof(name), "xfercmp-splice-test-%d-%zu", (int)getpid(), i);
		snprintf(outside, sizeof(outside), "/tmp/%s", name);
		snprintf(rel, sizeof(rel), "link/%s", name);
		put_record(&s, cases[i].type, rel, 0644, 0, cases[i].len, cases[i].len);
		put_end(&s, 1, cases[i].len);
		expect_reject(&s, t.dst, "link");
		assert_false(exists(outside));
		free(s.p);
	}
	/* a file symlink as the last component: a range must not write through it */
	{
		struct stream s = { 0 };
		char target[128], evil[128];

		snprintf(target, sizeof(target), "%s/target", t.root);
		snprintf(evil, sizeof(evil), "%s/evil", t.dst);
		assert_int_equal(symlink(target, evil), 0);
		put_record(&s, FRAME_RANGE, "evil", 0644, 0, 10, 10);
		put_end(&s, 1, 10);
		expect_reject(&s, t.dst, "evil");
		assert_false(exists(target));
		s.len = 0;
		put_record(&s, FRAME_FILE, "evil", 0644, 0, 10, 10);
		put_end(&s, 1, 10);
		expect_reject(&s, t.dst, "evil");
		assert_false(exists(target));
		free(s.p);
	}
	tmp_remove(&t);
}

/* A FILE record for a file that exists: the create chain's failure is reported. */
static void test_existing_file(void **state)
{
	struct tmp t;
	struct stream s = { 0 };
	char path[128];
	int fd;

	(void)state;
	tmp_make(&t);
	snprintf(path, sizeof(path), "%s/d", t.dst);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/d/there", t.dst);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	close(fd);
	for (int i = 0; i < 200; i++) {
		char name[32];

		snprintf(name, sizeof(name), "d/f%03d", i);
		put_record(&s, FRAME_FILE, name, 0644, 0, 100, 100);
	}
	put_record(&s, FRAME_FILE, "d/there", 0644, 0, 5, 5);
	put_end(&s, 201, 200 * 100 + 5);
	expect_reject(&s, t.dst, "cannot create");
	assert_contains(err_msg(), "d/there");
	assert_contains(err_msg(), "exists");
	free(s.p);
	tmp_remove(&t);
}

/* Modes: applied whatever the umask; set-user-ID never. Ranges and empty files too. */
static void test_modes(void **state)
{
	static const struct {
		const char *path;
		enum frame_type type;
		uint32_t mode, want;
		uint64_t len;
	} files[] = {
		{ "m/a", FRAME_FILE, 0666, 0666, 10 },
		{ "m/b", FRAME_FILE, 0600, 0600, 10 },
		{ "m/c", FRAME_FILE, 04755, 0755, 10 },
		{ "m/d", FRAME_FILE, 0640, 0640, 0 },
		{ "m/e", FRAME_FILE, 0664, 0664, 1u << 20 },
		{ "n/r", FRAME_RANGE, 0660, 0660, 10 },
	};
	struct tmp t;
	struct stream s = { 0 };
	struct recv_stats st;
	uint64_t bytes = 0;

	(void)state;
	tmp_make(&t);
	for (size_t i = 0; i < ARRAY_LEN(files); i++) {
		put_record(&s, files[i].type, files[i].path, files[i].mode,
			   files[i].type == FRAME_RANGE ? 100 : 0, files[i].len, files[i].len);
		bytes += files[i].len;
	}
	put_end(&s, ARRAY_LEN(files), bytes);
	assert_int_equal(feed(&s, t.dst, &st), 0);
	assert_int_equal(st.files, ARRAY_LEN(files));
	assert_int_equal(st.bytes, bytes);
	assert_int_equal(st.wire_bytes, s.len);
	for (size_t i = 0; i < ARRAY_LEN(files); i++) {
		char path[160];
		struct stat sb;

		snprintf(path, sizeof(path), "%s/%s", t.dst, files[i].path);
		assert_int_equal(lstat(path, &sb), 0);
		if ((sb.st_mode & 07777) != files[i].want)
			print_error("%s: mode 0%o, wanted 0%o\n", files[i].path,
				    (unsigned)(sb.st_mode & 07777), files[i].want);
		assert_int_equal(sb.st_mode & 07777, files[i].want);
		assert_int_equal(sb.st_size, files[i].len + (files[i].type == FRAME_RANGE ? 100 : 0));
	}
	free(s.p);
	tmp_remove(&t);
}

/*
 * A read-only file cut into ranges, received by a user other than root (as an
 * agent started over SSH is): the second range must still open the file the
 * first one created read-only, and the file ends with its mode.
 */
static void test_read_only_ranges_as_user(void **state)
{
	const uid_t nobody = 65534;
	struct tmp t;
	struct stream s = { 0 };
	struct stat sb;
	char path[160];
	int status;
	pid_t pid;

	(void)state;
	if (geteuid() != 0)
		skip();
	tmp_make(&t);
	assert_int_equal(chmod(t.root, 0755), 0);
	assert_int_equal(chown(t.dst, nobody, nobody), 0);
	for (unsigned i = 0; i < 3; i++)
		put_record(&s, FRAME_RANGE, "ro/f", 0444, 100 * i, 100, 100);
	put_end(&s, 3, 300);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* no cmocka here: a failed assert would go on running tests in this child */
		int sv[2];

		if (setgroups(0, NULL) < 0 || setgid(nobody) < 0 || setuid(nobody) < 0)
			_exit(2);
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 ||
		    write(sv[0], s.p, s.len) != (ssize_t)s.len || shutdown(sv[0], SHUT_WR) < 0)
			_exit(3);
		if (frames_receive(sv[1], t.dst, NULL) < 0) {
			fprintf(stderr, "frames_receive as uid %u: %s\n", (unsigned)nobody, err_msg());
			_exit(1);
		}
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	snprintf(path, sizeof(path), "%s/ro/f", t.dst);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0444);
	assert_int_equal(sb.st_size, 300);
	free(s.p);
	tmp_remove(&t);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_only_ranges_as_user),
		cmocka_unit_test(test_smallfiles),
		cmocka_unit_test(test_largefile),
		cmocka_unit_test(test_mixed),
		cmocka_unit_test(test_nonblocking_sockets),
		cmocka_unit_test(test_split_largefile),
		cmocka_unit_test(test_split_mixed),
		cmocka_unit_test(test_empty_plan),
		cmocka_unit_test(test_small_file_grew),
		cmocka_unit_test(test_small_file_shrank),
		cmocka_unit_test(test_large_file_changed),
		cmocka_unit_test(test_missing_source),
		cmocka_unit_test(test_bad_magic),
		cmocka_unit_test(test_dotdot_path),
		cmocka_unit_test(test_absolute_path),
		cmocka_unit_test(test_empty_component),
		cmocka_unit_test(test_zero_path_length),
		cmocka_unit_test(test_end_totals_mismatch),
		cmocka_unit_test(test_truncated_small),
		cmocka_unit_test(test_truncated_large),
		cmocka_unit_test(test_truncated_elsewhere),
		cmocka_unit_test(test_bytes_after_end),
		cmocka_unit_test(test_planted_symlink),
		cmocka_unit_test(test_existing_file),
		cmocka_unit_test(test_modes),
	};
	/* a receiver that stops early makes the peer's next write raise SIGPIPE */
	signal(SIGPIPE, SIG_IGN);
	return test_run("splice", tests, ARRAY_LEN(tests), NULL, 0);
}
