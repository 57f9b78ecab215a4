/*
 * Unit tests for transfer/stream/frames_receiver.c: hostile streams and the
 * receiver's refusals (paths out of the destination, planted and streamed
 * symbolic links, hard links reaching outside, bad link texts).
 */
#define _GNU_SOURCE
#include "splice_fixture.h"

#include <signal.h>

/* ---- hostile streams ---- */

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

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostile_streams_rejected),
		cmocka_unit_test(test_planted_symlink),
		cmocka_unit_test(test_existing_file),
		cmocka_unit_test(test_symlink_then_path_through_it),
		cmocka_unit_test(test_hardlink_outside),
		cmocka_unit_test(test_dir_over_symlink),
		cmocka_unit_test(test_bad_symlinks),
	};
	/* a receiver that stops early makes the peer's next write raise SIGPIPE */
	signal(SIGPIPE, SIG_IGN);
	return test_run("splice_hostile", tests, ARRAY_LEN(tests), NULL, 0);
}
