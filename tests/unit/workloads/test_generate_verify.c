/*
 * Unit tests for workloads/generate.c, workloads/verify.c and
 * workloads/manifest_tree.c, on real trees under test_tmp_base().
 */
#include "testutil.h"

#include "err.h"
#include "fsutil.h"
#include "generate.h"
#include "manifest.h"
#include "units.h"
#include "tree_features.h"
#include "verify.h"
#include "workload.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>

#include "generate_fixture.h"


/* The xxh3 of file index's generated content, computed without touching the disk. */
static uint64_t expected_hash(const struct workload_spec *spec, uint64_t index, uint64_t size)
{
	unsigned char *buf = malloc(size ? size : 1);
	uint64_t h;

	assert_non_null(buf);
	workload_fill(spec, index, 0, buf, size);
	h = XXH3_64bits(buf, size);
	free(buf);
	return h;
}

/* Rewrites file index under root with its generated content. */
static void restore_file(const struct workload_spec *spec, const char *root, uint64_t index)
{
	struct workload_entry e;
	char path[PATH_MAX];
	unsigned char *buf;
	int fd;

	workload_entry(spec, index, &e);
	join(path, root, e.path);
	buf = malloc(e.size ? e.size : 1);
	assert_non_null(buf);
	workload_fill(spec, index, 0, buf, e.size);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(fs_write_all(fd, buf, e.size), 0);
	assert_int_equal(close(fd), 0);
	free(buf);
}




/* Verifies and expects exactly one difference whose example is `example`. */
static void verify_one(const char *root, const struct manifest *m, const char *example,
		       struct verify_report *r)
{
	assert_int_equal(verify_tree(root, m, 2, r), 0);
	if (verify_differences(r) != 1 || r->nexamples != 1 || strcmp(r->examples[0], example)) {
		print_error("want one difference '%s'; got %llu, first '%s'\n", example,
			    (unsigned long long)verify_differences(r),
			    r->nexamples ? r->examples[0] : "(none)");
		fail();
	}
	assert_int_equal(r->files_ok, m->count - (r->extra ? 0 : 1));
}

/* Checks m against the spec entry by entry, and against the content on disk for a few. */
static void check_manifest_matches_spec(const struct workload_spec *spec, const char *root,
					const struct manifest *m, const struct generate_stats *st)
{
	uint64_t n = workload_count(spec), sum = 0;

	assert_int_equal(m->count, n);
	assert_int_equal(st->files, n);
	assert_int_equal(st->dirs, workload_dir_count(spec));
	for (uint64_t i = 0; i < n; i++) {
		struct workload_entry e;
		struct stat sb;
		char path[PATH_MAX];

		workload_entry(spec, i, &e);
		/* index order is path order, so entry i is manifest entry i */
		assert_string_equal(m->entries[i].path, e.path);
		assert_true(m->entries[i].size == e.size);
		assert_int_equal(m->entries[i].mode, e.mode);
		sum += e.size;
		join(path, root, e.path);
		assert_int_equal(lstat(path, &sb), 0);
		assert_true(S_ISREG(sb.st_mode));
		assert_true((uint64_t)sb.st_size == e.size);
		if (i % 97 == 0 || i + 1 == n)
			assert_true(m->entries[i].xxh3 == expected_hash(spec, i, e.size));
	}
	assert_true(m->total_bytes == sum);
	assert_true(st->bytes == sum);
	assert_true(st->seconds >= 0);
}

/* An index of a non-empty small file. */
static uint64_t nonempty_index(const struct workload_spec *spec, uint64_t from)
{
	struct workload_entry e;

	for (uint64_t i = from; i < workload_count(spec); i++) {
		workload_entry(spec, i, &e);
		if (e.size >= 2)
			return i;
	}
	fail();
	return 0;
}

/* ---- smallfiles: generate, compare, break and verify ---- */


/*
 * One smallfiles tree shared by the tests that only read it or put back what
 * they change (creating files is the slow part on a busy disk). The
 * teardown after each test checks it and regenerates it if a failed test
 * left it changed.
 */
static struct {
	char *tmp;
	char dir[PATH_MAX];
	struct manifest m;
	struct generate_stats st;
	int ready;
	int dirty;	/* a test changed it and has not yet checked it is back */
} shared;

static const char *shared_tree(void)
{
	if (!shared.ready) {
		/* the directory does not exist yet: generate creates it (and its parent) */
		shared.tmp = make_tmpdir();
		/* lives until the group teardown, not just this test */
		for (size_t i = 0; i < ARRAY_LEN(live_dirs); i++)
			if (live_dirs[i] == shared.tmp)
				live_dirs[i] = NULL;
		join(shared.dir, shared.tmp, "one/gen");
		err_clear();
		if (workload_generate(&small_spec, shared.dir, 2, false, &shared.m, &shared.st) != 0) {
			print_error("workload_generate: %s\n", err_msg());
			fail();
		}
		shared.ready = 1;
	}
	return shared.dir;
}

/* Teardown for tests using the shared tree: puts it back if they left it changed. */
static int repair_shared(void **state)
{
	struct verify_report r;
	struct manifest m;
	struct generate_stats st;

	cleanup(state);
	if (!shared.ready || !shared.dirty)
		return 0;
	shared.dirty = 0;
	if (verify_tree(shared.dir, &shared.m, 2, &r) == 0 && verify_differences(&r) == 0)
		return 0;
	fprintf(stderr, "# shared tree was left changed: regenerating\n");
	if (fs_clear_dir(shared.dir) != 0 ||
	    workload_generate(&small_spec, shared.dir, 2, false, &m, &st) != 0)
		return -1;
	manifest_release(&m);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	if (shared.ready) {
		manifest_release(&shared.m);
		fs_remove_tree(shared.tmp);
		free(shared.tmp);
		shared.ready = 0;
	}
	return 0;
}

static void test_generate_smallfiles(void **state)
{
	char *tmp = make_tmpdir();
	const char *dir1 = shared_tree();
	char dir2[PATH_MAX], dir3[PATH_MAX];
	const struct manifest *m1 = &shared.m;
	struct manifest m2, m3;
	struct generate_stats st;
	size_t same = 0;

	(void)state;
	check_manifest_matches_spec(&small_spec, dir1, m1, &shared.st);

	/* dir2 exists and is empty: accepted; other thread count, same manifest */
	join(dir2, tmp, "two");
	assert_int_equal(mkdir(dir2, 0755), 0);
	assert_int_equal(workload_generate(&small_spec, dir2, 4, false, &m2, &st), 0);
	assert_manifests_equal(m1, &m2, 1);
	verify_clean(dir1, m1);
	verify_clean(dir2, m1);
	manifest_release(&m2);

	/* another seed: same paths, other content and sizes */
	{
		struct workload_spec other = small_spec;
		struct verify_report r;

		other.files = 300;
		other.seed = 8;
		join(dir3, tmp, "three");
		assert_int_equal(workload_generate(&other, dir3, 3, false, &m3, &st), 0);
		assert_int_equal(m3.count, 300);
		for (size_t i = 0; i < m3.count; i++) {
			assert_string_equal(m1->entries[i].path, m3.entries[i].path);
			same += m1->entries[i].xxh3 == m3.entries[i].xxh3;
		}
		assert_true(same < 3);	/* only files that are empty in both, if any */
		/* the other seed's tree fails against the first manifest */
		assert_int_equal(verify_tree(dir3, m1, 2, &r), 0);
		assert_int_equal(r.missing, 2200);
		assert_true(r.size_differs + r.content_differs > 290);
		assert_int_equal(r.extra, 0);
		assert_int_equal(r.nexamples, VERIFY_EXAMPLES);
		manifest_release(&m3);
	}
	remove_tmpdir(tmp);
}

static void test_verify_detects_each_difference(void **state)
{
	const char *dir = shared_tree();
	const struct manifest *mp = &shared.m;
	struct verify_report r;
	struct workload_entry e;
	char path[PATH_MAX], want[600];
	uint64_t idx;

	(void)state;
	verify_clean(dir, mp);
	shared.dirty = 1;

	/* one byte flipped in the middle of a file */
	idx = nonempty_index(&small_spec, 1234);
	workload_entry(&small_spec, idx, &e);
	join(path, dir, e.path);
	{
		int fd = open(path, O_RDWR);
		unsigned char c;

		assert_true(fd >= 0);
		assert_int_equal(pread(fd, &c, 1, (off_t)(e.size / 2)), 1);
		c ^= 0x01;
		assert_int_equal(pwrite(fd, &c, 1, (off_t)(e.size / 2)), 1);
		close(fd);
	}
	snprintf(want, sizeof(want), "content differs: %s", e.path);
	verify_one(dir, mp, want, &r);
	assert_int_equal(r.content_differs, 1);
	restore_file(&small_spec, dir, idx);
	/* (restored: the next check expects exactly one difference) */

	/* truncated */
	assert_int_equal(truncate(path, (off_t)(e.size - 1)), 0);
	snprintf(want, sizeof(want), "size differs: %s (expected %llu, found %llu)", e.path,
		 (unsigned long long)e.size, (unsigned long long)(e.size - 1));
	verify_one(dir, mp, want, &r);
	assert_int_equal(r.size_differs, 1);
	/* grown by a byte: also a size difference */
	restore_file(&small_spec, dir, idx);
	{
		int fd = open(path, O_WRONLY | O_APPEND);

		assert_true(fd >= 0);
		assert_int_equal(write(fd, "x", 1), 1);
		close(fd);
	}
	assert_int_equal(verify_tree(dir, mp, 2, &r), 0);
	assert_int_equal(r.size_differs, 1);
	assert_int_equal(verify_differences(&r), 1);
	restore_file(&small_spec, dir, idx);
	/* (restored: the next check expects exactly one difference) */

	/* deleted */
	assert_int_equal(unlink(path), 0);
	snprintf(want, sizeof(want), "missing: %s", e.path);
	verify_one(dir, mp, want, &r);
	assert_int_equal(r.missing, 1);
	restore_file(&small_spec, dir, idx);
	/* (restored: the next check expects exactly one difference) */

	/* an extra file, next to the others and at the root */
	join(path, dir, "d0000/d01/zz-extra");
	write_text(path, "extra\n");
	verify_one(dir, mp, "extra: d0000/d01/zz-extra", &r);
	assert_int_equal(r.extra, 1);
	assert_int_equal(unlink(path), 0);
	join(path, dir, "0-first");
	write_text(path, "");
	verify_one(dir, mp, "extra: 0-first", &r);
	assert_int_equal(unlink(path), 0);
	/* an empty extra directory is not a file: no difference */
	join(path, dir, "emptydir");
	assert_int_equal(mkdir(path, 0755), 0);
	verify_clean(dir, mp);
	assert_int_equal(rmdir(path), 0);

	/* a symlink in place of a file (to the right content, even) */
	join(path, dir, e.path);
	{
		char target[PATH_MAX + 8];

		snprintf(target, sizeof(target), "%s.real", path);
		assert_int_equal(rename(path, target), 0);
		assert_int_equal(symlink(target, path), 0);
		snprintf(want, sizeof(want), "not a regular file: %s", e.path);
		assert_int_equal(verify_tree(dir, mp, 2, &r), 0);
		assert_int_equal(r.not_regular, 1);
		assert_int_equal(r.extra, 1);	/* the .real file */
		assert_int_equal(verify_differences(&r), 2);
		assert_int_equal(unlink(path), 0);
		assert_int_equal(rename(target, path), 0);
	}
	/* (restored: the next check expects exactly one difference) */

	/* another file's content of the same size: a content difference, not a size one */
	{
		struct workload_entry a, b;
		uint64_t i, j = 0;
		char from[PATH_MAX], to[PATH_MAX];
		unsigned char buf[WORKLOAD_SMALL_CAP / 16];
		long long n;
		int fd;

		for (i = 0; i < 2500 && !j; i++) {
			workload_entry(&small_spec, i, &a);
			if (a.size == 0 || a.size > sizeof(buf))
				continue;
			for (uint64_t k = i + 1; k < 2500; k++) {
				workload_entry(&small_spec, k, &b);
				if (b.size == a.size) {
					j = k;
					break;
				}
			}
		}
		assert_true(j != 0);
		join(from, dir, a.path);
		join(to, dir, b.path);
		fd = open(from, O_RDONLY);
		assert_true(fd >= 0);
		n = fs_read_full(fd, buf, sizeof(buf));
		close(fd);
		assert_int_equal(n, a.size);
		fd = open(to, O_WRONLY | O_TRUNC);
		assert_true(fd >= 0);
		assert_int_equal(fs_write_all(fd, buf, (size_t)n), 0);
		close(fd);
		snprintf(want, sizeof(want), "content differs: %s", b.path);
		verify_one(dir, mp, want, &r);
		restore_file(&small_spec, dir, j);
		verify_clean(dir, mp);
	}
	shared.dirty = 0;
}

static void test_verify_many_differences(void **state)
{
	const char *dir = shared_tree();
	const struct manifest *mp = &shared.m;
	struct verify_report r;
	char path[PATH_MAX], summary[512];

	(void)state;
	shared.dirty = 1;
	/* 10 missing, 3 extra, 2 truncated */
	for (uint64_t i = 0; i < 10; i++) {
		struct workload_entry e;

		workload_entry(&small_spec, 100 + i, &e);
		join(path, dir, e.path);
		assert_int_equal(unlink(path), 0);
	}
	for (int i = 0; i < 3; i++) {
		char name[32];

		snprintf(name, sizeof(name), "extra%d", i);
		join(path, dir, name);
		write_text(path, "x");
	}
	for (uint64_t k = 0, i = 2000; k < 2; i++) {
		struct workload_entry e;

		workload_entry(&small_spec, i, &e);
		if (e.size == 0)
			continue;
		join(path, dir, e.path);
		assert_int_equal(truncate(path, 0), 0);
		k++;
	}
	assert_int_equal(verify_tree(dir, mp, 4, &r), 0);
	assert_int_equal(r.missing, 10);
	assert_int_equal(r.extra, 3);
	assert_int_equal(r.size_differs, 2);
	assert_int_equal(r.content_differs, 0);
	assert_int_equal(verify_differences(&r), 15);
	assert_int_equal(r.nexamples, VERIFY_EXAMPLES);
	assert_int_equal(r.files_ok, 2500 - 12);
	/* examples come in path order: the 8 first missing files */
	assert_contains(r.examples[0], "missing: d0000/d00/f00000100");
	verify_summary(&r, summary, sizeof(summary));
	assert_string_equal(summary,
			    "15 differences: 10 missing, 3 extra, 2 size, 0 content, 0 not regular");
	/* put it all back */
	for (uint64_t i = 0; i < 10; i++)
		restore_file(&small_spec, dir, 100 + i);
	for (uint64_t i = 2000; i < 2000 + 10; i++)
		restore_file(&small_spec, dir, i);
	for (int i = 0; i < 3; i++) {
		char name[32];

		snprintf(name, sizeof(name), "extra%d", i);
		join(path, dir, name);
		assert_int_equal(unlink(path), 0);
	}
	verify_clean(dir, mp);
	shared.dirty = 0;
}

static void test_verify_summary_ok_and_paths(void **state)
{
	char *dir = make_tmpdir();
	struct workload_spec spec = small_spec;
	struct manifest m;
	struct generate_stats st;
	struct verify_report r;
	char summary[512], slashed[PATH_MAX], missing[PATH_MAX];

	(void)state;
	spec.files = 20;
	assert_int_equal(workload_generate(&spec, dir, 2, false, &m, &st), 0);
	assert_int_equal(verify_tree(dir, &m, 1, &r), 0);
	verify_summary(&r, summary, sizeof(summary));
	{
		char want[128], bytes[32];

		snprintf(want, sizeof(want), "20 files, %s verified",
			 units_format_bytes(m.total_bytes, bytes, sizeof(bytes)));
		assert_string_equal(summary, want);
	}
	/* a root given with trailing slashes gives the same relative paths */
	snprintf(slashed, sizeof(slashed), "%s//", dir);
	verify_clean(slashed, &m);
	/* threads = 0 means one */
	assert_int_equal(verify_tree(dir, &m, 0, &r), 0);
	assert_int_equal(verify_differences(&r), 0);
	/* a root that is not there is an error, not a report */
	join(missing, dir, "nope");
	err_clear();
	assert_int_equal(verify_tree(missing, &m, 2, &r), -1);
	assert_contains(err_msg(), missing);
	/* against an empty manifest, everything is extra */
	{
		struct manifest empty;

		manifest_init(&empty);
		assert_int_equal(verify_tree(dir, &empty, 2, &r), 0);
		assert_int_equal(r.extra, 20);
		assert_int_equal(verify_differences(&r), 20);
	}
	manifest_release(&m);
	remove_tmpdir(dir);
}

/* ---- other kinds ---- */

static void check_single_large(uint64_t size)
{
	char *tmp = make_tmpdir();
	char dir[PATH_MAX], path[PATH_MAX];
	struct workload_spec spec = { .kind = WORKLOAD_LARGEFILE, .size = size, .seed = 4,
				      .compressibility = 0.5 };
	struct manifest m, from_tree;
	struct generate_stats st;
	struct stat sb;

	join(dir, tmp, "large");
	assert_int_equal(workload_generate(&spec, dir, 2, false, &m, &st), 0);
	assert_int_equal(m.count, 1);
	assert_string_equal(m.entries[0].path, "large.bin");
	assert_true(m.entries[0].size == size);
	assert_true(m.total_bytes == size);
	assert_int_equal(st.dirs, 0);
	/* written in 4 MiB pieces, hashed here in one go: the same bytes */
	assert_true(m.entries[0].xxh3 == expected_hash(&spec, 0, size));
	join(path, dir, "large.bin");
	assert_int_equal(stat(path, &sb), 0);
	assert_true((uint64_t)sb.st_size == size);
	verify_clean(dir, &m);
	assert_int_equal(manifest_from_tree(&from_tree, dir, 2), 0);
	assert_manifests_equal(&m, &from_tree, 0);
	manifest_release(&from_tree);

	/* one byte changed near the end, past the first write chunk when there is one */
	{
		int fd = open(path, O_RDWR);
		unsigned char c;
		struct verify_report r;
		off_t at = size > 1 ? (off_t)(size - 2) : 0;

		assert_true(fd >= 0);
		assert_int_equal(pread(fd, &c, 1, at), 1);
		c = (unsigned char)~c;
		assert_int_equal(pwrite(fd, &c, 1, at), 1);
		close(fd);
		verify_one(dir, &m, "content differs: large.bin", &r);
	}
	manifest_release(&m);
	remove_tmpdir(tmp);
}

static void test_generate_largefile(void **state)
{
	(void)state;
	check_single_large((3ull << 20) + 123);
	check_single_large((9ull << 20) + 5);	/* three 4 MiB write chunks */
	check_single_large(1);
}

static void test_generate_mixed(void **state)
{
	char *tmp = make_tmpdir();
	char dir[PATH_MAX];
	struct workload_spec spec = { .kind = WORKLOAD_MIXED, .files = 300, .size = (1ull << 20) + 3,
				      .seed = 2, .compressibility = 0.9 };
	struct manifest m, from_tree;
	struct generate_stats st;

	(void)state;
	join(dir, tmp, "mixed");
	assert_int_equal(workload_generate(&spec, dir, 4, false, &m, &st), 0);
	check_manifest_matches_spec(&spec, dir, &m, &st);
	assert_int_equal(m.count, 304);
	assert_string_equal(m.entries[303].path, "large/part3.bin");
	assert_true(m.entries[303].size == (1ull << 20) / 4 + 3);
	verify_clean(dir, &m);
	assert_int_equal(manifest_from_tree(&from_tree, dir, 3), 0);
	assert_manifests_equal(&m, &from_tree, 0);
	manifest_release(&from_tree);
	manifest_release(&m);
	remove_tmpdir(tmp);
}

/* ---- manifest_from_tree ---- */

static void test_manifest_from_tree(void **state)
{
	const char *dir = shared_tree();
	const struct manifest *gen = &shared.m;
	struct manifest tree;

	(void)state;
	assert_int_equal(manifest_from_tree(&tree, dir, 2), 0);
	/* main() set umask 022, so the files really are 0644 and modes agree too */
	assert_manifests_equal(gen, &tree, 1);
	manifest_release(&tree);

	/* a symlink is listed with its text, never followed; a fifo is listed and left out */
	{
		char path[PATH_MAX];

		shared.dirty = 1;
		join(path, dir, "link-to-etc");
		assert_int_equal(symlink("/etc", path), 0);
		join(path, dir, "d0000/fifo");
		assert_int_equal(mkfifo(path, 0644), 0);
		assert_int_equal(manifest_from_tree(&tree, dir, 1), 0);
		assert_int_equal(tree.nsymlinks, 1);
		assert_string_equal(tree.symlinks[0].target, "/etc");
		assert_int_equal(tree.nspecials, 1);
		assert_int_equal(tree.specials[0].kind, 'p');
		assert_manifests_equal(gen, &tree, 1);
		manifest_release(&tree);
		/* verify sees both as extra; then put the tree back */
		{
			struct verify_report r;

			assert_int_equal(verify_tree(dir, gen, 2, &r), 0);
			assert_int_equal(r.extra, 2);
			assert_int_equal(verify_differences(&r), 2);
		}
		assert_int_equal(unlink(path), 0);
		join(path, dir, "link-to-etc");
		assert_int_equal(unlink(path), 0);
		shared.dirty = 0;
	}
	/* a missing root is an error */
	{
		char missing[PATH_MAX];

		join(missing, dir, "nope");
		err_clear();
		assert_int_equal(manifest_from_tree(&tree, missing, 2), -1);
		assert_contains(err_msg(), missing);
		assert_int_equal(tree.count, 0);
	}
}

/*
 * A root given as a symbolic link to a directory is walked as the directory:
 * nftw(FTW_PHYS) on the link itself would report one FTW_SL entry and not
 * descend (which once read a byte past the root path's NUL and made
 * `xfercmp verify LINK` report every file missing plus a garbage extra).
 */
static void test_verify_through_symlinked_root(void **state)
{
	const char *dir = shared_tree();
	char link[PATH_MAX];
	struct verify_report r;
	struct manifest tree;
	int vrc, mrc;

	(void)state;
	join(link, shared.tmp, "link");
	unlink(link);
	assert_int_equal(symlink(dir, link), 0);
	vrc = verify_tree(link, &shared.m, 2, &r);
	mrc = manifest_from_tree(&tree, link, 2);
	unlink(link);
	assert_int_equal(vrc, 0);
	if (verify_differences(&r) != 0) {
		print_error("verify through a symlinked root: %llu differences, first '%s'\n",
			    (unsigned long long)verify_differences(&r),
			    r.nexamples ? r.examples[0] : "");
		fail();
	}
	assert_int_equal(mrc, 0);
	assert_int_equal(tree.count, shared.m.count);
	manifest_release(&tree);
}

/* ---- the smallfiles manifest, byte for byte ---- */

static void test_smallfiles_manifest_unchanged(void **state)
{
	const char *dir = shared_tree();
	char *text;
	size_t len;

	(void)state;
	(void)dir;
	assert_int_equal(shared.m.ndirs + shared.m.nsymlinks + shared.m.nhardlinks, 0);
	assert_int_equal(manifest_to_buffer(&shared.m, &text, &len), 0);
	if (len != 127053 || XXH3_64bits(text, len) != 0x3d2447fb0508f9ceull) {
		print_error("the smallfiles manifest changed: xxh3 %016llx, %zu bytes\n",
			    (unsigned long long)XXH3_64bits(text, len), len);
		free(text);
		fail();
	}
	free(text);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_generate_smallfiles, repair_shared),
		cmocka_unit_test_teardown(test_verify_detects_each_difference, repair_shared),
		cmocka_unit_test_teardown(test_verify_many_differences, repair_shared),
		cmocka_unit_test_teardown(test_manifest_from_tree, repair_shared),
		cmocka_unit_test_teardown(test_verify_summary_ok_and_paths, cleanup),
		cmocka_unit_test_teardown(test_generate_largefile, cleanup),
		cmocka_unit_test_teardown(test_generate_mixed, cleanup),
		cmocka_unit_test_teardown(test_smallfiles_manifest_unchanged, repair_shared),
		cmocka_unit_test_teardown(test_verify_through_symlinked_root, repair_shared),
	};
	int rc;

	/* file modes on disk are 0644 & ~umask: make them predictable */
	umask(022);
	rc = test_run("generate_verify", tests, ARRAY_LEN(tests), NULL, 0);
	group_teardown(NULL);
	return rc;
}
