/*
 * Unit tests for transfer/stream/splice_sender.c and transfer/stream/frames_receiver.c:
 * trees with directories, links, hard links, modes and mtimes, over one
 * stream or two into one shared end, received as root or as another user.
 */
#define _GNU_SOURCE
#include "splice_fixture.h"

#include "stream/frames_tree.h"
#include "verify.h"

#include <grp.h>
#include <signal.h>
#include <sys/wait.h>

/* ---- trees: directories, links, modes, mtimes ---- */

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

/* ---- records: modes, mtimes, links as the receiver applies them ---- */

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
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_tree_one_stream),
		cmocka_unit_test(test_tree_two_streams),
		cmocka_unit_test(test_tree_as_user),
		cmocka_unit_test(test_tree_records),
		cmocka_unit_test(test_hardlink_across_streams),
	};
	/* a receiver that stops early makes the peer's next write raise SIGPIPE */
	signal(SIGPIPE, SIG_IGN);
	return test_run("splice_tree", tests, ARRAY_LEN(tests), NULL, 0);
}
