/*
 * Unit tests for workloads/verify.c on trees: symbolic links, hard links,
 * directories, modes and mtimes, counted per kind and held to claims.
 */
#include "testutil.h"

#include "fsutil.h"
#include "manifest.h"
#include "page_cache_testutil.h"
#include "tree.h"
#include "verify.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

static char tmp[] = "/tmp/xfercmp-verify-tree.XXXXXX";

static void path_of(char *buf, const char *root, const char *rel)
{
	assert_int_equal(fs_join(buf, PATH_MAX, root, rel), 0);
}

static void put(const char *root, const char *rel, const char *text, mode_t mode, time_t mtime)
{
	char p[PATH_MAX];
	struct timeval tv[2] = { { .tv_sec = mtime }, { .tv_sec = mtime } };
	int fd;

	path_of(p, root, rel);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(fs_write_all(fd, text, strlen(text)), 0);
	assert_int_equal(close(fd), 0);
	assert_int_equal(chmod(p, mode), 0);
	assert_int_equal(utimes(p, tv), 0);
}

static void dir(const char *root, const char *rel, mode_t mode, time_t mtime)
{
	char p[PATH_MAX];
	struct timeval tv[2] = { { .tv_sec = mtime }, { .tv_sec = mtime } };

	path_of(p, root, rel);
	assert_int_equal(mkdir(p, 0700), 0);
	assert_int_equal(chmod(p, mode), 0);
	assert_int_equal(utimes(p, tv), 0);
}

static void link_to(const char *root, const char *rel, const char *target)
{
	char p[PATH_MAX];

	path_of(p, root, rel);
	assert_int_equal(symlink(target, p), 0);
}

static void hard(const char *root, const char *from, const char *rel)
{
	char a[PATH_MAX], b[PATH_MAX];

	path_of(a, root, from);
	path_of(b, root, rel);
	assert_int_equal(link(a, b), 0);
}

/* The source tree: every kind of node. Directory mtimes are set last (children change them). */
static void make_tree(const char *root)
{
	assert_int_equal(mkdir(root, 0755), 0);
	dir(root, "d", 0755, 1000);
	dir(root, "empty", 0700, 1001);
	put(root, "d/a", "alpha", 0644, 2000);
	put(root, "d/ro", "read only", 0444, 2001);
	hard(root, "d/a", "d/a2");
	hard(root, "d/a", "hard3");
	link_to(root, "d/rel", "../hard3");
	link_to(root, "up", "../../etc/passwd");
	link_to(root, "to-d", "d");
}

static void fix_dir_times(const char *root)
{
	char p[PATH_MAX];
	struct timeval tv[2] = { { .tv_sec = 1000 }, { .tv_sec = 1000 } };

	path_of(p, root, "d");
	assert_int_equal(utimes(p, tv), 0);
}

static void test_identical_tree_keeps_everything(void **state)
{
	char src[PATH_MAX];
	struct manifest m;
	struct verify_report r;
	unsigned present, kept;

	(void)state;
	path_of(src, tmp, "same");
	make_tree(src);
	fix_dir_times(src);
	assert_int_equal(manifest_from_tree(&m, src, 2), 0);
	assert_int_equal(m.count, 2);	/* d/a (primary of 3 names) and d/ro */
	assert_int_equal(m.nhardlinks, 2);
	assert_string_equal(m.hardlinks[0].primary, "d/a");
	assert_int_equal(m.nsymlinks, 3);
	assert_int_equal(m.ndirs, 2);
	assert_int_equal(verify_tree(src, &m, 2, &r), 0);
	assert_int_equal(verify_differences(&r), 0);
	assert_int_equal(verify_failures(&r, PRESERVE_ALL), 0);
	assert_int_equal(r.hardlinks_linked, 2);
	assert_int_equal(r.symlinks_ok, 3);
	kept = verify_preserved(&m, &r, &present);
	assert_int_equal(present, PRESERVE_ALL);
	assert_int_equal(kept, PRESERVE_ALL);
	manifest_release(&m);
}

/* What scp -r would leave: links followed, hard links copied, no empty dir, modes and times lost. */
static void test_flattened_copy_reports_each_kind(void **state)
{
	char src[PATH_MAX], dst[PATH_MAX];
	struct manifest m;
	struct verify_report r;
	unsigned present, kept;

	(void)state;
	path_of(src, tmp, "src");
	path_of(dst, tmp, "flat");
	make_tree(src);
	fix_dir_times(src);
	assert_int_equal(manifest_from_tree(&m, src, 2), 0);

	assert_int_equal(mkdir(dst, 0755), 0);
	dir(dst, "d", 0700, 5);
	put(dst, "d/a", "alpha", 0600, 6);
	put(dst, "d/ro", "read only", 0444, 2001);
	put(dst, "d/a2", "alpha", 0644, 2000);	/* copied, not linked */
	put(dst, "hard3", "alpha", 0644, 2000);
	put(dst, "d/rel", "alpha", 0644, 2000);	/* the link's target's content */
	dir(dst, "to-d", 0755, 1000);		/* a link to a directory, followed */
	put(dst, "to-d/a", "alpha", 0644, 2000);
	put(dst, "to-d/ro", "read only", 0444, 2001);
	/* "up" (to ../../etc/passwd) and "empty" did not arrive */
	assert_int_equal(verify_tree(dst, &m, 2, &r), 0);
	assert_int_equal(verify_differences(&r), 0);	/* content and names: all there */
	assert_int_equal(r.extra, 0);	/* what is below a followed link is not extra */
	assert_int_equal(r.symlinks_differ, 3);
	assert_int_equal(r.hardlinks_copied, 2);
	assert_int_equal(r.hardlinks_linked, 0);
	assert_int_equal(r.dirs_missing, 1);
	assert_int_equal(r.modes_differ, 2);	/* d 0700, d/a 0600 */
	assert_int_equal(r.mtimes_differ, 2);	/* d, d/a */
	kept = verify_preserved(&m, &r, &present);
	assert_int_equal(present, PRESERVE_ALL);
	assert_int_equal(kept, 0);
	/* held only to its claims */
	assert_int_equal(verify_failures(&r, 0), 0);
	assert_int_equal(verify_failures(&r, PRESERVE_SYMLINKS), 3);
	assert_int_equal(verify_failures(&r, PRESERVE_HARDLINKS | PRESERVE_EMPTY_DIRS), 3);
	assert_int_equal(verify_failures(&r, PRESERVE_ALL), 10);
	{
		char summary[512];

		verify_summary(&r, summary, sizeof(summary));
		assert_contains(summary, "2 files");
		assert_contains(summary, "symlinks 0/3");
		assert_contains(summary, "hard links 0/2");
		assert_contains(summary, "1 directories missing");
	}
	manifest_release(&m);
}

static void test_link_text_and_kind_matter(void **state)
{
	char src[PATH_MAX], dst[PATH_MAX];
	struct manifest m;
	struct verify_report r;

	(void)state;
	path_of(src, tmp, "s2");
	path_of(dst, tmp, "d2");
	assert_int_equal(mkdir(src, 0755), 0);
	assert_int_equal(mkdir(dst, 0755), 0);
	link_to(src, "l", "target");
	link_to(dst, "l", "other");
	put(src, "f", "x", 0644, 1);
	link_to(dst, "f", "x");	/* a link where a file was: not a regular file */
	assert_int_equal(manifest_from_tree(&m, src, 1), 0);
	assert_int_equal(verify_tree(dst, &m, 1, &r), 0);
	assert_int_equal(r.symlinks_differ, 1);
	assert_int_equal(r.not_regular, 1);
	assert_int_equal(r.missing, 0);
	assert_contains(r.examples[0], "not a regular file: f");
	manifest_release(&m);
}

/*
 * A special file the manifest lists as left out may still arrive (rsync -a
 * and tar make fifos): it is not an extra entry, and a fifo where a file was
 * is still "not regular".
 */
static void test_special_left_out_that_arrived_is_not_extra(void **state)
{
	char src[PATH_MAX], dst[PATH_MAX], p[PATH_MAX];
	struct manifest m;
	struct verify_report r;

	(void)state;
	path_of(src, tmp, "s3");
	path_of(dst, tmp, "d3");
	assert_int_equal(mkdir(src, 0755), 0);
	assert_int_equal(mkdir(dst, 0755), 0);
	put(src, "f", "x", 0644, 1);
	put(dst, "f", "x", 0644, 1);
	path_of(p, src, "fifo");
	assert_int_equal(mkfifo(p, 0644), 0);
	assert_int_equal(manifest_from_tree(&m, src, 1), 0);
	assert_int_equal(m.nspecials, 1);
	/* left out and not there: fine */
	assert_int_equal(verify_tree(dst, &m, 1, &r), 0);
	assert_int_equal(verify_differences(&r), 0);
	/* left out and there all the same: fine too */
	path_of(p, dst, "fifo");
	assert_int_equal(mkfifo(p, 0644), 0);
	assert_int_equal(verify_tree(dst, &m, 1, &r), 0);
	assert_int_equal(r.extra, 0);
	assert_int_equal(verify_differences(&r), 0);
	/* a fifo no one listed is extra */
	path_of(p, dst, "fifo2");
	assert_int_equal(mkfifo(p, 0644), 0);
	assert_int_equal(verify_tree(dst, &m, 1, &r), 0);
	assert_int_equal(r.extra, 1);
	manifest_release(&m);
}

/*
 * The keyed check (verify_keyed): files larger than min_size must carry
 * the keyed hash sent for their manifest entry, a hard link's other name
 * that of its primary; the small ones are held to their XXH3 alone. A
 * right hash verifies; a wrong one, or none, fails each name as an
 * integrity failure, the summary saying so first.
 */
static void test_keyed_check(void **state)
{
	static const unsigned char key[CONTENT_KEY_BYTES] = { 7 };
	char src[PATH_MAX], p[PATH_MAX], text[600];
	unsigned char buf[4096], macs[4][CONTENT_MAC_BYTES] = { { 0 } }, have[4] = { 0 };
	struct verify_keyed keyed = { .key = key, .min_size = 100, .macs = macs, .have = have };
	struct manifest m;
	struct verify_report r;
	uint64_t hash, size;
	char summary[512];

	(void)state;
	memset(text, 'x', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	path_of(src, tmp, "keyed");
	assert_int_equal(mkdir(src, 0755), 0);
	put(src, "big", text, 0644, 2000);
	put(src, "small", "tiny", 0644, 2000);
	hard(src, "big", "big2");
	assert_int_equal(manifest_from_tree(&m, src, 2), 0);
	assert_int_equal(m.count, 2);
	assert_string_equal(m.entries[0].path, "big");
	path_of(p, src, "big");
	assert_int_equal(tree_hash_file_keyed(p, buf, sizeof(buf), 0, key, &hash, macs[0], &size), 0);
	assert_int_equal(hash, m.entries[0].xxh3);

	/* none sent for "big": both names fail */
	assert_int_equal(verify_tree_keyed(src, &m, 2, NULL, 0, &keyed, &r), 0);
	assert_int_equal(r.integrity_failed, 2);
	assert_int_equal(verify_differences(&r), 2);
	assert_string_equal(r.examples[0], "integrity check failed: big (the client sent no keyed hash of its content)");
	verify_summary(&r, summary, sizeof(summary));
	assert_ptr_equal(strstr(summary, "integrity check failed: 2 files are not what the client sent"),
			 summary);

	/* the right one */
	have[0] = 1;
	assert_int_equal(verify_tree_keyed(src, &m, 2, NULL, 0, &keyed, &r), 0);
	assert_int_equal(verify_differences(&r), 0);
	assert_int_equal(r.files_ok, 2);
	assert_int_equal(r.hardlinks_linked, 1);

	/* another key's: its hash differs */
	macs[0][0] ^= 1;
	assert_int_equal(verify_tree_keyed(src, &m, 2, NULL, 0, &keyed, &r), 0);
	assert_int_equal(r.integrity_failed, 2);
	assert_int_equal(r.content_differs, 0);
	assert_string_equal(r.examples[0], "integrity check failed: big is not what the client sent (its keyed hash differs)");
	manifest_release(&m);
}

/*
 * A manifest of a tree reads every file once, cold, to hash it: with
 * drop-behind (common/cache_behind.c), so a large file leaves the page
 * cache as it is read (without it, a 4 GiB file's manifest took 9.6-14.1 s
 * on the testbed's VM, with it 4.2 s; the run drops the source anyway).
 */
static void test_manifest_leaves_no_cache(void **state)
{
	const size_t len = 16u << 20;
	char src[PATH_MAX], file[PATH_MAX];
	char *buf = malloc(len);
	struct manifest m;
	int fd;

	(void)state;
	assert_non_null(buf);
	memset(buf, 'x', len);
	path_of(src, tmp, "cache");
	path_of(file, src, "big");
	assert_int_equal(mkdir(src, 0755), 0);
	fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(fs_write_all(fd, buf, len), 0);
	/* written back, so dropping its pages is only a matter of asking */
	assert_int_equal(fsync(fd), 0);
	free(buf);
	if (on_tmpfs(fd)) {
		close(fd);
		skip();
	}
	assert_true(resident_pages(fd, 0, len) > 0);
	assert_int_equal(manifest_from_tree(&m, src, 1), 0);
	assert_true(resident_pages(fd, 0, len) <= len / 4096 / 8);
	manifest_release(&m);
	close(fd);
}

/* A tree its manifest was made of holds it until a file goes or changes size. */
static void test_manifest_tree_holds(void **state)
{
	char src[PATH_MAX], p[PATH_MAX];
	struct manifest m;

	(void)state;
	path_of(src, tmp, "holds");
	assert_int_equal(mkdir(src, 0755), 0);
	dir(src, "d", 0755, 1);
	put(src, "d/a", "abc", 0644, 1);
	put(src, "b", "", 0644, 1);
	assert_int_equal(manifest_from_tree(&m, src, 1), 0);
	assert_true(manifest_tree_holds(&m, src));
	put(src, "d/a", "abcd", 0644, 1);
	assert_false(manifest_tree_holds(&m, src));
	put(src, "d/a", "abc", 0644, 1);
	path_of(p, src, "b");
	assert_int_equal(unlink(p), 0);
	assert_false(manifest_tree_holds(&m, src));
	assert_int_equal(mkdir(p, 0755), 0);	/* a directory where the file was */
	assert_false(manifest_tree_holds(&m, src));
	path_of(p, tmp, "gone");
	assert_false(manifest_tree_holds(&m, p));
	manifest_release(&m);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return fs_remove_tree(tmp);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identical_tree_keeps_everything),
		cmocka_unit_test(test_flattened_copy_reports_each_kind),
		cmocka_unit_test(test_link_text_and_kind_matter),
		cmocka_unit_test(test_special_left_out_that_arrived_is_not_extra),
		cmocka_unit_test(test_keyed_check),
		cmocka_unit_test(test_manifest_leaves_no_cache),
		cmocka_unit_test(test_manifest_tree_holds),
	};

	return cmocka_run_group_tests_name("verify_tree", tests, setup, teardown);
}
