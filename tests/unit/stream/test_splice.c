/*
 * Unit tests for transfer/stream/splice_sender.c and transfer/stream/frames_receiver.c:
 * real trees over loopback TCP (what production uses), verified against the
 * workload manifest, and hostile streams fed to the receiver.
 */
#define _GNU_SOURCE
#include "testutil.h"
#include "seal_testutil.h"

#include "err.h"
#include "stream/frames.h"
#include "stream/frames_receiver.h"
#include "stream/frames_tree.h"
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
	test_mkdtemp(t->root, sizeof(t->root), "xfercmp-splice");
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

	r->rc = frames_receive(r->sock, &test_opts, r->dest, &r->st);
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

	t->rc = splice_send(t->sock, test_key, t->src, t->plan->items, t->plan->count, true, &t->st);
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
	rc = splice_send(a, test_key, t.src, plan.items, plan.count, true, &sst);
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
	assert_int_equal(splice_send(a, test_key, t.src, NULL, 0, true, &sst), 0);
	close(a);
	pthread_join(r.thread, NULL);
	assert_int_equal(r.rc, 0);
	assert_int_equal(sst.files, 0);
	/* the end record alone, in the stream's one (end) segment */
	assert_int_equal(sst.wire_bytes, SEAL_SEG_HEADER + FRAME_HEADER + SEAL_TAG_BYTES);
	assert_int_equal(r.st.wire_bytes, SEAL_SEG_HEADER + FRAME_HEADER + SEAL_TAG_BYTES);
	assert_int_equal(r.st.files, 0);
	assert_int_equal(fs_dir_is_empty(t.dst), 1);
	tmp_remove(&t);
}

/* ---- trees: directories, links, modes, mtimes ---- */

static void tree_path(char *buf, const char *root, const char *rel)
{
	assert_int_equal(fs_join(buf, 512, root, rel), 0);
}

static void tree_file(const char *root, const char *rel, size_t len, mode_t mode, time_t mtime)
{
	struct timespec ts[2] = { { .tv_sec = mtime }, { .tv_sec = mtime } };
	char p[512];
	unsigned char *data = malloc(len + 1);
	int fd;

	assert_non_null(data);
	for (size_t i = 0; i < len; i++)
		data[i] = (unsigned char)(i * 7 + strlen(rel));
	tree_path(p, root, rel);
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(fs_write_all(fd, data, len), 0);
	assert_int_equal(close(fd), 0);
	assert_int_equal(chmod(p, mode), 0);
	assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
	free(data);
}

static void tree_link(const char *root, const char *rel, const char *text)
{
	char p[512];

	tree_path(p, root, rel);
	assert_int_equal(symlink(text, p), 0);
}

static void tree_hard(const char *root, const char *primary, const char *rel)
{
	char a[512], b[512];

	tree_path(a, root, primary);
	tree_path(b, root, rel);
	assert_int_equal(link(a, b), 0);
}

/* Directories of the fixture, parents first: made 0755, given their modes and mtimes last. */
static const struct {
	const char *path;
	mode_t mode;
} tree_dirs[] = {
	{ "d", 0755 }, { "d/sub", 0750 }, { "d/sub/deep", 0700 }, { "empty", 0755 },
	{ "a", 0711 }, { "a/b", 0755 }, { "a/b/c", 0755 }, { "a/b/c/empty", 0555 },
	{ "ro", 0555 }, { "locked", 0000 }, { "shared", 01777 }, { "sp ace", 0755 },
};

/*
 * A source tree with every case the record stream must carry: empty
 * directories at several depths, a 0555 directory holding files and links,
 * a 0000 one, sticky bits, 0444/0000/0600/0755 files, a 0-byte file, a file
 * large enough to be spliced (and cut into ranges), odd names, symbolic
 * links (relative, absolute, dangling, to a directory, "../../etc/passwd"),
 * hard-link groups of 2 and 3, one of them the large file, one reaching
 * into the 0555 directory.
 */
static void make_fixture(const char *root)
{
	char p[512];

	assert_int_equal(mkdir(root, 0755), 0);
	for (size_t i = 0; i < ARRAY_LEN(tree_dirs); i++) {
		tree_path(p, root, tree_dirs[i].path);
		assert_int_equal(mkdir(p, 0755), 0);
	}
	tree_file(root, "d/a", 5, 0644, 1000000000);
	tree_file(root, "d/ro", 9, 0444, 1000000001);
	tree_file(root, "d/none", 6, 0000, 1000000002);
	tree_file(root, "d/private", 7, 0600, 1000000003);
	tree_file(root, "d/exec", 8, 0755, 1000000004);
	tree_file(root, "d/sticky", 8, 01644, 1000000005);
	tree_file(root, "zero-bytes", 0, 0644, -1000);
	tree_file(root, "d/sub/large", (20u << 20) + 7, 0640, 1234567890);
	tree_file(root, "ro/f1", 100, 0644, 1500000000);
	tree_file(root, "ro/f2", 300000, 0600, 1500000001);
	tree_file(root, "locked/secret", 10, 0400, 1500000002);
	tree_file(root, "sp ace/na me", 3, 0644, 1500000003);
	tree_file(root, "new\nline", 4, 0644, 1500000004);
	tree_file(root, "hi\x80\xff", 5, 0644, 1500000005);
	tree_hard(root, "d/a", "d/a2");
	tree_hard(root, "d/a", "hard3");
	tree_hard(root, "d/sub/large", "large-link");
	tree_hard(root, "d/exec", "ro/exec-link");
	tree_link(root, "d/rel", "../hard3");
	tree_link(root, "up", "../../etc/passwd");
	tree_link(root, "abs", "/etc/hostname");
	tree_link(root, "dangling", "no/such/thing");
	tree_link(root, "to-d", "d");
	tree_link(root, "ro/link", "f1");
	/* deepest first: a directory's mtime changes with what is made in it */
	for (size_t i = ARRAY_LEN(tree_dirs); i-- > 0;) {
		struct timespec ts[2] = { { .tv_sec = 900000000 + (time_t)i },
					  { .tv_sec = 900000000 + (time_t)i } };

		tree_path(p, root, tree_dirs[i].path);
		assert_int_equal(chmod(p, tree_dirs[i].mode), 0);
		assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
	}
}

static void fixture_manifest(const char *src, struct manifest *m)
{
	manifest_init(m);
	make_fixture(src);
	assert_int_equal(manifest_from_tree(m, src, 2), 0);
	assert_int_equal(m->ndirs, ARRAY_LEN(tree_dirs));
	assert_int_equal(m->nsymlinks, 6);
	assert_int_equal(m->nhardlinks, 4);
	assert_int_equal(m->count, 14);
}

/* The tree arrived with everything: content, links, hard-link groups, empty dirs, modes, mtimes. */
static void assert_tree_kept(const char *dst, const struct manifest *m)
{
	struct verify_report rep;
	unsigned present = 0, kept;
	char line[512];

	assert_int_equal(verify_tree(dst, m, 2, &rep), 0);
	verify_summary(&rep, line, sizeof(line));
	kept = verify_preserved(m, &rep, &present);
	if (verify_failures(&rep, PRESERVE_ALL) != 0) {
		print_error("%s\n", line);
		for (unsigned i = 0; i < rep.nexamples; i++)
			print_error("  %s\n", rep.examples[i]);
	}
	assert_int_equal(verify_failures(&rep, PRESERVE_ALL), 0);
	assert_int_equal(present, PRESERVE_ALL);
	assert_int_equal(kept, PRESERVE_ALL);
	assert_int_equal(rep.symlinks_ok, 6);
	assert_int_equal(rep.hardlinks_linked, 4);
}

/* The fixture as one stream (the splice strategy). */
static void test_tree_one_stream(void **state)
{
	struct tmp t;
	struct manifest m;
	struct send_plan plan;
	struct send_stats sst;
	struct rx r;
	int a, b, rc;

	(void)state;
	tmp_make(&t);
	fixture_manifest(t.src, &m);
	assert_int_equal(send_plan_whole(&m, &plan), 0);
	tcp_pair(&a, &b);
	rx_start(&r, b, t.dst);
	rc = splice_send(a, test_key, t.src, plan.items, plan.count, true, &sst);
	if (rc < 0)
		print_error("splice_send: %s\n", err_msg());
	close(a);
	pthread_join(r.thread, NULL);
	if (r.rc < 0)
		print_error("frames_receive: %s\n", r.err.msg);
	assert_int_equal(rc, 0);
	assert_int_equal(r.rc, 0);
	assert_int_equal(sst.files, m.count);
	assert_int_equal(r.st.files, m.count);
	assert_int_equal(r.st.bytes, m.total_bytes);
	assert_int_equal(sst.wire_bytes, r.st.wire_bytes);
	assert_tree_kept(t.dst, &m);
	send_plan_release(&plan);
	manifest_release(&m);
	tmp_remove(&t);
}

struct rx_part {
	pthread_t thread;
	struct frames_tree *tree;
	const char *dest;
	int sock, rc;
	struct err_saved err;
	struct recv_stats st;
};

static void *rx_part_main(void *arg)
{
	struct rx_part *r = arg;

	r->rc = frames_receive_part(r->tree, r->dest, r->sock, &test_opts, &r->st);
	err_save(&r->err);
	close(r->sock);
	return NULL;
}

static mode_t mode_of(const char *root, const char *rel)
{
	char p[512];
	struct stat sb;

	tree_path(p, root, rel);
	assert_int_equal(lstat(p, &sb), 0);
	return sb.st_mode & 07777;
}

/*
 * The fixture over two streams into one shared end (the parallel strategy
 * and the agent): the large file in ranges on both streams (its mtime and
 * hard link only once both ended), links and directories on stream 0.
 * Until the end, the 0555 directory is still writable.
 */
static void test_tree_two_streams(void **state)
{
	struct tmp t;
	struct manifest m;
	struct send_plan plans[2];
	struct rx_part r[2];
	struct tx s[2];
	struct frames_tree *tree;
	size_t ranges = 0;

	(void)state;
	tmp_make(&t);
	fixture_manifest(t.src, &m);
	assert_int_equal(send_plan_split(&m, 2, 8ull << 20, plans), 0);
	tree = frames_tree_new(t.dst);
	assert_non_null(tree);
	for (int i = 0; i < 2; i++) {
		int a, b;

		for (size_t k = 0; k < plans[i].count; k++)
			ranges += plans[i].items[k].kind == SEND_RANGE;
		tcp_pair(&a, &b);
		r[i] = (struct rx_part){ .tree = tree, .dest = t.dst, .sock = b };
		assert_int_equal(pthread_create(&r[i].thread, NULL, rx_part_main, &r[i]), 0);
		tx_start(&s[i], a, t.src, &plans[i]);
	}
	assert_int_equal(ranges, 2);
	for (int i = 0; i < 2; i++) {
		pthread_join(s[i].thread, NULL);
		pthread_join(r[i].thread, NULL);
		if (s[i].rc < 0)
			print_error("splice_send %d: %s\n", i, s[i].err.msg);
		if (r[i].rc < 0)
			print_error("frames_receive_part %d: %s\n", i, r[i].err.msg);
		assert_int_equal(s[i].rc, 0);
		assert_int_equal(r[i].rc, 0);
	}
	assert_int_equal(mode_of(t.dst, "ro"), 0755);
	assert_int_equal(mode_of(t.dst, "locked"), 0755);
	if (frames_tree_finish(tree, 1) < 0)
		print_error("frames_tree_finish: %s\n", err_msg());
	assert_int_equal(mode_of(t.dst, "ro"), 0555);
	assert_int_equal(mode_of(t.dst, "locked"), 0000);
	assert_tree_kept(t.dst, &m);
	for (int i = 0; i < 2; i++)
		send_plan_release(&plans[i]);
	manifest_release(&m);
	tmp_remove(&t);
}

/* What the sender wrote on a socketpair, whole (a thread reads it while splice_send writes). */
struct capture {
	pthread_t thread;
	int sock;
	unsigned char *p;
	size_t len, cap;
};

static void *capture_main(void *arg)
{
	struct capture *c = arg;

	for (;;) {
		ssize_t n;

		if (c->cap - c->len < 65536) {
			c->cap = c->cap ? c->cap * 2 : 1u << 20;
			c->p = realloc(c->p, c->cap);
			if (!c->p)
				abort();
		}
		n = read(c->sock, c->p + c->len, c->cap - c->len);
		if (n <= 0)
			break;
		c->len += (size_t)n;
	}
	close(c->sock);
	return NULL;
}

/*
 * The fixture received by a user other than root, as an agent started over
 * SSH is: directories without owner write (0555, 0000) must still take their
 * files, links and hard links, and end with their modes and mtimes.
 */
static void test_tree_as_user(void **state)
{
	const uid_t nobody = 65534;
	struct tmp t;
	struct manifest m;
	struct send_plan plan;
	struct capture c = { 0 };
	int sv[2], status;
	pid_t pid;

	(void)state;
	if (geteuid() != 0)
		skip();
	tmp_make(&t);
	fixture_manifest(t.src, &m);
	assert_int_equal(send_plan_whole(&m, &plan), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	c.sock = sv[1];
	assert_int_equal(pthread_create(&c.thread, NULL, capture_main, &c), 0);
	assert_int_equal(splice_send(sv[0], test_key, t.src, plan.items, plan.count, false, NULL), 0);
	close(sv[0]);
	pthread_join(c.thread, NULL);
	assert_int_equal(chmod(t.root, 0755), 0);
	assert_int_equal(chown(t.dst, nobody, nobody), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* no cmocka here: a failed assert would go on running tests in this child */
		close(sv[0]);
		if (setgroups(0, NULL) < 0 || setgid(nobody) < 0 || setuid(nobody) < 0)
			_exit(2);
		if (frames_receive(sv[1], &test_opts, t.dst, NULL) < 0) {
			fprintf(stderr, "frames_receive as uid %u: %s\n", (unsigned)nobody, err_msg());
			_exit(1);
		}
		_exit(0);
	}
	close(sv[1]);
	assert_int_equal(fs_write_all(sv[0], c.p, c.len), 0);
	close(sv[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_tree_kept(t.dst, &m);
	free(c.p);
	send_plan_release(&plan);
	manifest_release(&m);
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
	rc = splice_send(a, test_key, t.src, items, 2, false, &sst);
	assert_int_equal(rc, -1);
	assert_contains(err_msg(), "grown");
	assert_contains(err_msg(), "changed");
	close(a);
	pthread_join(r.thread, NULL);
	/* the receiver sees the stream cut before its sealed end: an error, not a hang */
	assert_int_equal(r.rc, -1);
	err_restore(&r.err);
	assert_contains(err_msg(), "integrity check failed: the stream was cut");
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
	assert_int_equal(splice_send(sv[0], test_key, t.src, &item, 1, true, NULL), -1);
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

/* Any record: the header as given (path_len and length from path and content), then both. */
static void put_frame(struct stream *s, struct frame f, const char *path, const char *content,
		      size_t len)
{
	unsigned char hdr[FRAME_HEADER];

	f.path_len = (uint16_t)strlen(path);
	f.length = len;
	frame_encode(&f, hdr);
	put(s, hdr, sizeof(hdr));
	put(s, path, strlen(path));
	put(s, content, len);
}

static void put_link(struct stream *s, enum frame_type type, const char *path, const char *text)
{
	put_frame(s, (struct frame){ .type = type }, path, text, strlen(text));
}

static void put_dir(struct stream *s, const char *path, uint32_t mode, int64_t mtime)
{
	put_frame(s, (struct frame){ .type = FRAME_DIR, .flags = FRAME_F_MTIME, .mode = mode,
				     .mtime = mtime }, path, "", 0);
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

	size_t len;
	unsigned char *sealed = test_seal_records(f->s->p, f->s->len, &len);

	if (!sealed)
		abort();
	/* the receiver may stop reading early: a failed write is expected then */
	fs_write_all(f->sock, sealed, len);
	free(sealed);
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
	rc = frames_receive(sv[1], &test_opts, dest, st);
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

/*
 * Streams the receiver refuses, table-driven: one FILE record (path; len
 * bytes of content, send of them sent), then optionally an END record
 * (end_records, end_bytes), bytes after all that (tail), the stream cut to
 * `cut` bytes, or its first byte spoiled. Each goes into a fresh
 * destination of a folder of its own; frames_receive must return -1 with an
 * error naming the problem (want), write nothing outside the destination
 * (the folder holds only it: "../x" would land beside it, and a path
 * starting with '/' is taken below the folder, so a receiver that followed
 * it lands there too), and leave the destination empty where nothing valid
 * came before the problem (empty).
 */
static const struct hostile_stream {
	const char *path;		/* NULL: no record at all */
	uint64_t len, send;
	bool end;
	uint64_t end_records, end_bytes;
	const char *tail;
	size_t cut;			/* 0: the whole stream */
	bool spoil_magic, empty;
	const char *want;
} hostile_streams[] = {
	{ .path = "a", .len = 3, .send = 3, .spoil_magic = true, .empty = true, .want = "magic" },
	{ .path = "../x", .len = 3, .send = 3, .end = true, .end_records = 1, .end_bytes = 3, .empty = true,
	  .want = "'..'" },
	{ .path = "/abs", .len = 3, .send = 3, .end = true, .end_records = 1, .end_bytes = 3,
	  .want = "absolute path" },
	{ .path = "a//b", .len = 3, .send = 3, .end = true, .end_records = 1, .end_bytes = 3, .empty = true,
	  .want = "empty component" },
	{ .path = "", .len = 3, .send = 3, .end = true, .end_records = 1, .end_bytes = 3, .empty = true,
	  .want = "path length 0" },
	{ .path = "d/a", .len = 5, .send = 5, .end = true, .end_records = 2, .end_bytes = 5,
	  .want = "end record says 2 records of 5 bytes, but 1 records of 5 bytes" },
	{ .path = "d/b", .len = 5, .send = 5, .end = true, .end_records = 1, .end_bytes = 6,
	  .want = "end record says 1 records of 6 bytes" },
	{ .path = "a", .len = 1000, .send = 10, .want = "stream ended after 10 of 1000 bytes of 'a'" },
	{ .path = "big", .len = 8u << 20, .send = 3u << 20,
	  .want = "stream ended after 3145728 of 8388608 bytes of 'big'" },
	{ .path = "a", .len = 3, .send = 3, .want = "before the end record (1 records arrived)" },
	{ .path = "a", .len = 3, .send = 3, .tail = "XFR", .want = "inside a record header" },
	{ .path = "longname", .len = 3, .send = 3, .cut = FRAME_HEADER + 4, .want = "inside the path of record 1" },
	{ .path = NULL, .want = "stream ended after 0 bytes" },
	{ .path = "a", .len = 3, .send = 3, .end = true, .end_records = 1, .end_bytes = 3, .tail = "junk",
	  .want = "4 unexpected bytes after the end record" },
};

static void test_hostile_streams_rejected(void **state)
{
	struct tmp t;

	(void)state;
	tmp_make(&t);
	for (size_t i = 0; i < ARRAY_LEN(hostile_streams); i++) {
		const struct hostile_stream *c = &hostile_streams[i];
		struct stream s = { 0 };
		char dir[160], dest[192], path[256];

		snprintf(dir, sizeof(dir), "%s/%zu", t.root, i);
		snprintf(dest, sizeof(dest), "%s/dst", dir);
		assert_int_equal(mkdir(dir, 0755), 0);
		assert_int_equal(mkdir(dest, 0755), 0);
		if (c->path) {
			if (c->path[0] == '/')
				snprintf(path, sizeof(path), "%s%s", dir, c->path);
			else
				snprintf(path, sizeof(path), "%s", c->path);
			put_record(&s, FRAME_FILE, path, 0644, 0, c->len, c->send);
		}
		if (c->end)
			put_end(&s, c->end_records, c->end_bytes);
		if (c->tail)
			put(&s, c->tail, strlen(c->tail));
		if (c->cut)
			s.len = c->cut;
		if (c->spoil_magic)
			s.p[0] ^= 0xff;
		expect_reject(&s, dest, c->want);
		if (c->empty && fs_dir_is_empty(dest) != 1)
			fail_msg("hostile stream %zu ('%s'): the destination is not empty", i, c->want);
		assert_int_equal(fs_remove_tree(dest), 0);
		if (fs_dir_is_empty(dir) != 1)
			fail_msg("hostile stream %zu ('%s'): something was written beside the destination", i,
				 c->want);
		free(s.p);
	}
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
	assert_int_equal(st.wire_bytes, test_sealed_records_len(s.p, s.len));
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
		size_t len;
		unsigned char *sealed = test_seal_records(s.p, s.len, &len);

		if (!sealed || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 ||
		    write(sv[0], sealed, len) != (ssize_t)len || shutdown(sv[0], SHUT_WR) < 0)
			_exit(3);
		if (frames_receive(sv[1], &test_opts, t.dst, NULL) < 0) {
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

/*
 * The destination two levels below the test's root, so a link text
 * "../../etc" made at its top points at ROOT/etc, a directory the test made
 * and watches: anything written through the link would land there.
 */
struct jail {
	struct tmp t;
	char dest[160], etc[160], x[160];
};

static void jail_make(struct jail *j)
{
	char in[128];

	tmp_make(&j->t);
	snprintf(in, sizeof(in), "%s/in", j->t.root);
	snprintf(j->dest, sizeof(j->dest), "%s/dst", in);
	snprintf(j->etc, sizeof(j->etc), "%s/etc", j->t.root);
	snprintf(j->x, sizeof(j->x), "%s/x", in);
	assert_int_equal(mkdir(in, 0755), 0);
	assert_int_equal(mkdir(j->dest, 0755), 0);
	assert_int_equal(mkdir(j->etc, 0755), 0);
	/* a file beside dest that a hard link must never reach */
	tree_file(in, "x", 4, 0644, 1000);
}

/* Nothing was written beside dest: ROOT/etc is still empty, ROOT/in/x still has one link and its mode. */
static void jail_check(const struct jail *j)
{
	struct stat sb;

	assert_int_equal(fs_dir_is_empty(j->etc), 1);
	assert_int_equal(lstat(j->x, &sb), 0);
	assert_int_equal(sb.st_nlink, 1);
	assert_int_equal(sb.st_mode & 07777, 0644);
	assert_int_equal(sb.st_mtime, 1000);
}

static void jail_remove(struct jail *j)
{
	tmp_remove(&j->t);
}

/*
 * A symbolic link a -> ../../etc (data: made as it is), then a record whose
 * path goes through it, of every kind: refused, never followed.
 */
static void test_symlink_then_path_through_it(void **state)
{
	static const char big[1u << 20];
	struct jail j;

	(void)state;
	for (int kind = 0; kind < 6; kind++) {
		struct stream s = { 0 };
		char link[200], text[64];
		ssize_t n;

		jail_make(&j);
		put_record(&s, FRAME_FILE, "f", 0644, 0, 3, 3);
		put_link(&s, FRAME_SYMLINK, "a", "../../etc");
		switch (kind) {
		case 0:
			put_record(&s, FRAME_FILE, "a/passwd", 0644, 0, 10, 10);
			break;
		case 1:
			put_frame(&s, (struct frame){ .type = FRAME_FILE, .mode = 0644 }, "a/big", big,
				  sizeof(big));
			break;
		case 2:
			put_record(&s, FRAME_RANGE, "a/passwd", 0644, 100, 10, 10);
			break;
		case 3:
			put_dir(&s, "a/sub", 0755, 5);
			break;
		case 4:
			put_link(&s, FRAME_SYMLINK, "a/l", "anything");
			break;
		default:
			put_link(&s, FRAME_HARDLINK, "a/passwd", "f");
			break;
		}
		put_end(&s, 3, 3 + 9 + (uint64_t[]){ 10, sizeof(big), 10, 0, 8, 1 }[kind]);
		expect_reject(&s, j.dest, "link");
		jail_check(&j);
		snprintf(link, sizeof(link), "%s/a", j.dest);
		n = readlink(link, text, sizeof(text));
		assert_int_equal(n, 9);
		assert_memory_equal(text, "../../etc", 9);
		free(s.p);
		jail_remove(&j);
	}
}

/* Hard links whose primary is outside dest, or a symbolic link, or a directory: refused. */
static void test_hardlink_outside(void **state)
{
	static const struct {
		const char *primary, *want;
	} cases[] = {
		{ "../x", "'..'" },
		{ "/etc/passwd", "absolute" },
		{ "s-in", "link" },	/* a link to a file inside */
		{ "s-out", "link" },	/* a link to the file beside dest */
		{ "up/x", "link" },	/* through a link to dest's parent */
		{ "dir", "not a regular file" },
		{ "nosuch", "No such file" },
	};
	struct jail j;

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		struct stream s = { 0 };
		char h[200];

		jail_make(&j);
		put_record(&s, FRAME_FILE, "f", 0644, 0, 3, 3);
		put_link(&s, FRAME_SYMLINK, "s-in", "f");
		put_link(&s, FRAME_SYMLINK, "s-out", j.x);
		put_link(&s, FRAME_SYMLINK, "up", "..");
		put_dir(&s, "dir", 0755, 5);
		put_link(&s, FRAME_HARDLINK, "h", cases[i].primary);
		put_end(&s, 6, 3 + 1 + strlen(j.x) + 2 + strlen(cases[i].primary));
		expect_reject(&s, j.dest, cases[i].want);
		jail_check(&j);
		snprintf(h, sizeof(h), "%s/h", j.dest);
		assert_false(exists(h));
		free(s.p);
		jail_remove(&j);
	}
}

/* A directory record over a symbolic link (one the stream made, or one planted): refused, the target untouched. */
static void test_dir_over_symlink(void **state)
{
	struct jail j;
	struct stream s = { 0 };
	char planted[200];

	(void)state;
	jail_make(&j);
	put_link(&s, FRAME_SYMLINK, "a", "../../etc");
	put_dir(&s, "a", 0700, 5);
	put_end(&s, 2, 9);
	expect_reject(&s, j.dest, "link");
	jail_check(&j);
	assert_int_equal(mode_of(j.t.root, "etc"), 0755);
	s.len = 0;
	snprintf(planted, sizeof(planted), "%s/p", j.dest);
	assert_int_equal(symlink(j.etc, planted), 0);
	put_dir(&s, "p", 0700, 5);
	put_end(&s, 1, 0);
	expect_reject(&s, j.dest, "link");
	s.len = 0;
	put_dir(&s, "p/sub", 0700, 5);
	put_end(&s, 1, 0);
	expect_reject(&s, j.dest, "link");
	jail_check(&j);
	assert_int_equal(mode_of(j.t.root, "etc"), 0755);
	free(s.p);
	jail_remove(&j);
}

/* A link text with a NUL, a symbolic link over an existing file: refused. */
static void test_bad_symlinks(void **state)
{
	struct tmp t;
	struct stream s = { 0 };

	(void)state;
	tmp_make(&t);
	put_frame(&s, (struct frame){ .type = FRAME_SYMLINK }, "n", "a\0b", 3);
	put_end(&s, 1, 3);
	expect_reject(&s, t.dst, "NUL");
	s.len = 0;
	put_record(&s, FRAME_FILE, "f", 0644, 0, 3, 3);
	put_link(&s, FRAME_SYMLINK, "f", "elsewhere");
	put_end(&s, 2, 12);
	expect_reject(&s, t.dst, "exists");
	free(s.p);
	tmp_remove(&t);
}

static time_t mtime_of(const char *root, const char *rel)
{
	char p[512];
	struct stat sb;

	tree_path(p, root, rel);
	assert_int_equal(lstat(p, &sb), 0);
	return sb.st_mtime;
}

/*
 * Directory records with modes and mtimes applied after what is inside them
 * (a 0555 directory takes its files first, a 0000 one too), file mtimes for
 * small, spliced and ranged files, a hard link sent before its primary.
 */
static void test_tree_records(void **state)
{
	static const char big[1u << 20];
	struct tmp t;
	struct stream s = { 0 };
	struct recv_stats st;
	struct stat sb;
	char p[200], text[16];

	(void)state;
	tmp_make(&t);
	put_dir(&s, "ro", 0555, 1100000000);
	put_dir(&s, "ro/zero", 0000, 1100000001);
	put_dir(&s, "ro/empty", 0750, -86400);
	put_link(&s, FRAME_HARDLINK, "ro/early", "ro/late");
	put_frame(&s, (struct frame){ .type = FRAME_FILE, .mode = 0444, .flags = FRAME_F_MTIME,
				      .mtime = 1200000000 }, "ro/late", "late", 4);
	put_frame(&s, (struct frame){ .type = FRAME_FILE, .mode = 0600, .flags = FRAME_F_MTIME,
				      .mtime = 1200000001 }, "ro/big", big, sizeof(big));
	/* the range that starts the file carries its mtime, the other none (frames.h) */
	put_frame(&s, (struct frame){ .type = FRAME_RANGE, .mode = 0640, .offset = 4 }, "ro/zero/r",
		  "tail", 4);
	put_frame(&s, (struct frame){ .type = FRAME_RANGE, .mode = 0640, .flags = FRAME_F_MTIME,
				      .mtime = 1200000002 }, "ro/zero/r", "head", 4);
	put_link(&s, FRAME_SYMLINK, "ro/s", "../../x");
	put_end(&s, 9, 7 + 4 + sizeof(big) + 8 + 7);
	if (feed(&s, t.dst, &st) < 0)
		print_error("%s\n", err_msg());
	assert_int_equal(err_msg()[0], '\0');
	assert_int_equal(st.files, 4);
	assert_int_equal(st.bytes, 4 + sizeof(big) + 8);
	assert_int_equal(st.wire_bytes, test_sealed_records_len(s.p, s.len));
	assert_int_equal(mode_of(t.dst, "ro"), 0555);
	assert_int_equal(mode_of(t.dst, "ro/zero"), 0000);
	assert_int_equal(mode_of(t.dst, "ro/empty"), 0750);
	assert_int_equal(mtime_of(t.dst, "ro"), 1100000000);
	assert_int_equal(mtime_of(t.dst, "ro/zero"), 1100000001);
	assert_int_equal(mtime_of(t.dst, "ro/empty"), -86400);
	assert_int_equal(mtime_of(t.dst, "ro/late"), 1200000000);
	assert_int_equal(mtime_of(t.dst, "ro/big"), 1200000001);
	assert_int_equal(mode_of(t.dst, "ro/late"), 0444);
	tree_path(p, t.dst, "ro");
	assert_int_equal(chmod(p, 0755), 0);
	tree_path(p, t.dst, "ro/zero");
	assert_int_equal(chmod(p, 0755), 0);
	assert_int_equal(mtime_of(t.dst, "ro/zero/r"), 1200000002);
	assert_int_equal(mode_of(t.dst, "ro/zero/r"), 0640);
	tree_path(p, t.dst, "ro/early");
	assert_int_equal(lstat(p, &sb), 0);
	assert_int_equal(sb.st_nlink, 2);
	assert_int_equal(sb.st_size, 4);
	tree_path(p, t.dst, "ro/s");
	assert_int_equal(readlink(p, text, sizeof(text)), 7);
	assert_memory_equal(text, "../../x", 7);
	free(s.p);
	tmp_remove(&t);
}

struct part_feed {
	pthread_t thread;
	struct frames_tree *tree;
	const char *dest;
	const struct stream *s;
	int rc;
};

static void *part_feed_main(void *arg)
{
	struct part_feed *f = arg;
	struct feeder fd = { .s = f->s };
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		abort();
	fd.sock = sv[0];
	if (pthread_create(&fd.thread, NULL, feed_main, &fd) != 0)
		abort();
	f->rc = frames_receive_part(f->tree, f->dest, sv[1], &test_opts, NULL);
	close(sv[1]);
	pthread_join(fd.thread, NULL);
	return NULL;
}

/*
 * Two streams into one end: a hard link on stream 0 whose primary comes on
 * stream 1, linked once both ended; and when a stream failed, the end
 * applies nothing (no link, no mode).
 */
static void test_hardlink_across_streams(void **state)
{
	struct tmp t;
	struct stream s0 = { 0 }, s1 = { 0 };
	char p[200];
	struct stat sb;

	(void)state;
	tmp_make(&t);
	put_dir(&s0, "d", 0500, 5);
	put_link(&s0, FRAME_HARDLINK, "l", "d/p");
	put_end(&s0, 2, 3);
	put_record(&s1, FRAME_FILE, "d/p", 0644, 0, 3, 3);
	put_end(&s1, 1, 3);
	for (int fail = 0; fail < 2; fail++) {
		struct frames_tree *tree = frames_tree_new(t.dst);
		struct part_feed f[2] = {
			{ .tree = tree, .dest = t.dst, .s = &s0 },
			{ .tree = tree, .dest = t.dst, .s = &s1 },
		};

		assert_non_null(tree);
		if (fail)
			s1.len -= 5;	/* stream 1 ends inside its END record */
		for (int i = 0; i < 2; i++)
			assert_int_equal(pthread_create(&f[i].thread, NULL, part_feed_main, &f[i]), 0);
		for (int i = 0; i < 2; i++)
			pthread_join(f[i].thread, NULL);
		assert_int_equal(f[0].rc, 0);
		assert_int_equal(f[1].rc, fail ? -1 : 0);
		assert_int_equal(frames_tree_finish(tree, f[0].rc == 0 && f[1].rc == 0), 0);
		tree_path(p, t.dst, "l");
		if (fail) {
			assert_false(exists(p));
			assert_int_equal(mode_of(t.dst, "d"), 0755);
			break;
		}
		assert_int_equal(lstat(p, &sb), 0);
		assert_int_equal(sb.st_nlink, 2);
		assert_int_equal(mode_of(t.dst, "d"), 0500);
		assert_int_equal(mtime_of(t.dst, "d"), 5);
		tree_path(p, t.dst, "d");
		assert_int_equal(chmod(p, 0755), 0);
		assert_int_equal(fs_clear_dir(t.dst), 0);
	}
	free(s0.p);
	free(s1.p);
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
		cmocka_unit_test(test_hostile_streams_rejected),
		cmocka_unit_test(test_planted_symlink),
		cmocka_unit_test(test_existing_file),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_tree_one_stream),
		cmocka_unit_test(test_tree_two_streams),
		cmocka_unit_test(test_tree_as_user),
		cmocka_unit_test(test_symlink_then_path_through_it),
		cmocka_unit_test(test_hardlink_outside),
		cmocka_unit_test(test_dir_over_symlink),
		cmocka_unit_test(test_bad_symlinks),
		cmocka_unit_test(test_tree_records),
		cmocka_unit_test(test_hardlink_across_streams),
	};
	/* a receiver that stops early makes the peer's next write raise SIGPIPE */
	signal(SIGPIPE, SIG_IGN);
	return test_run("splice", tests, ARRAY_LEN(tests), NULL, 0);
}
