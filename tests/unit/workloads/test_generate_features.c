/*
 * Unit tests for what workloads/generate.c refuses, the features it puts in a
 * tree (links, hard links, empty and read-only directories, odd names, modes),
 * its determinism, its cancel and its clean-up on failure, on real trees.
 */
#include "generate_fixture.h"

#include "err.h"
#include "generate.h"
#include "tree_features.h"
#include "units.h"
#include "workload.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <xxhash.h>

/*
 * a and b describe the same tree, node for node: files (size, hash, mode,
 * mtime), directories (mode, mtime), symbolic links (text), hard links
 * (primary). Compared as their text form, which holds all of it; the first
 * differing line is printed.
 */
static void assert_same_tree(const struct manifest *a, const struct manifest *b)
{
	char *ta, *tb;
	size_t la, lb, i = 0;

	assert_int_equal(manifest_to_buffer(a, &ta, &la), 0);
	assert_int_equal(manifest_to_buffer(b, &tb, &lb), 0);
	if (la != lb || memcmp(ta, tb, la)) {
		size_t start;

		while (i < la && i < lb && ta[i] == tb[i])
			i++;
		start = i;
		while (start > 0 && ta[start - 1] != '\n')
			start--;
		print_error("manifests differ at line '%.*s' vs '%.*s'\n",
			    (int)strcspn(ta + start, "\n"), ta + start,
			    (int)strcspn(tb + start, "\n"), tb + start);
		free(ta);
		free(tb);
		fail();
	}
	free(ta);
	free(tb);
}

static struct workload_spec features_spec(enum workload_kind kind, uint64_t files, uint64_t seed)
{
	struct workload_spec s = { .kind = kind, .files = files, .seed = seed, .compressibility = 0.5 };

	tree_features_default(&s.features);
	return s;
}

/* Is share (basis points) of 10,000 within 2% of count? */
static void assert_about(const char *what, uint64_t count, uint64_t files, unsigned share)
{
	uint64_t want = files * share / 10000;

	if (count * 100 < want * 98 || count * 100 > want * 102) {
		print_error("%s: %llu, expected about %llu\n", what, (unsigned long long)count,
			    (unsigned long long)want);
		fail();
	}
}

/*
 * 2,000 files with the default features: the tree on disk, read back by
 * manifest_from_tree, is the generator's manifest node for node; it
 * verifies; and what is on disk has each kind in its share. The kinds are
 * chosen in strata of 10000/share files (tree_features.c), so on 2,000
 * files each count is its share exactly (2% of it is under one), as on the
 * 10,000 this test once made (the shares on 20,000 files without the disk:
 * test_tree_features.c).
 */
#define DISK_FILES 2000

static int cmp_strings(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void test_generate_features_on_disk(void **state)
{
	char *tmp = make_tmpdir();
	char dir[PATH_MAX];
	struct workload_spec spec = features_spec(WORKLOAD_SMALLFILES, DISK_FILES, 1);
	struct manifest gen, tree;
	struct generate_stats st;
	struct verify_report r;
	uint64_t empty = 0, rodirs = 0, rofiles = 0, modes = 0, groups = 0;
	uint64_t absolute = 0, dangling = 0, to_dir = 0, to_file = 0;

	(void)state;
	join(dir, tmp, "tree");
	err_clear();
	assert_int_equal(workload_generate(&spec, dir, 2, false, &gen, &st), 0);
	assert_int_equal(st.files, DISK_FILES);
	assert_int_equal(gen.count, DISK_FILES);
	assert_int_equal(st.symlinks, gen.nsymlinks);
	assert_int_equal(st.hardlinks, gen.nhardlinks);
	assert_int_equal(st.dirs, gen.ndirs);
	assert_int_equal(manifest_check(&gen), 0);
	assert_int_equal(manifest_from_tree(&tree, dir, 2), 0);
	assert_same_tree(&gen, &tree);
	manifest_release(&tree);

	assert_int_equal(verify_tree(dir, &gen, 2, &r), 0);
	assert_int_equal(verify_differences(&r), 0);
	{
		unsigned present, kept = verify_preserved(&gen, &r, &present);

		assert_int_equal(present, PRESERVE_ALL);
		assert_int_equal(kept, PRESERVE_ALL);
	}

	/* the shares, on disk */
	assert_about("symbolic links", gen.nsymlinks, DISK_FILES, 500);
	for (size_t i = 0; i < gen.nsymlinks; i++) {
		char path[PATH_MAX];
		struct stat sb;

		join(path, dir, gen.symlinks[i].path);
		if (gen.symlinks[i].target[0] == '/')
			absolute++;
		else if (stat(path, &sb) < 0)
			dangling++;
		else if (S_ISDIR(sb.st_mode))
			to_dir++;
		else
			to_file++;
		/* nothing relative leads out of the tree */
		assert_true(gen.symlinks[i].target[0] == '/' ||
			    strncmp(gen.symlinks[i].target, "../..", 5) != 0);
	}
	assert_true(absolute > 0 && dangling > 0 && to_dir > 0 && to_file > 0);
	/* a group is a primary: count the distinct ones */
	{
		const char **primaries = calloc(gen.nhardlinks, sizeof(*primaries));

		assert_non_null(primaries);
		for (size_t i = 0; i < gen.nhardlinks; i++)
			primaries[i] = gen.hardlinks[i].primary;
		qsort(primaries, gen.nhardlinks, sizeof(*primaries), cmp_strings);
		for (size_t i = 0; i < gen.nhardlinks; i++)
			groups += i == 0 || strcmp(primaries[i], primaries[i - 1]) != 0;
		free(primaries);
	}
	assert_true(groups * 100 >= DISK_FILES * 98 / 100 && groups * 100 <= DISK_FILES * 102 / 100);
	assert_true(gen.nhardlinks > groups);	/* groups of 3 too */
	for (size_t i = 0; i < gen.ndirs; i++) {
		char path[PATH_MAX];

		join(path, dir, gen.dirs[i].path);
		empty += fs_dir_is_empty(path) == 1;
		if (gen.dirs[i].mode == 0555) {
			rodirs++;
			assert_int_equal(fs_dir_is_empty(path), 0);
		}
		assert_true(gen.dirs[i].mtime != MANIFEST_NO_MTIME);
	}
	assert_about("empty directories", empty, DISK_FILES, 200);
	for (size_t i = 0; i < gen.count; i++) {
		modes += gen.entries[i].mode != 0644;
		rofiles += strstr(gen.entries[i].path, "/r") != NULL;
		assert_true(gen.entries[i].mtime != MANIFEST_NO_MTIME);
	}
	/* a file of a 0555 directory with other names is listed under its first name, hIIIIIIII.1 */
	for (size_t i = 0; i < gen.nhardlinks; i++)
		rofiles += strstr(gen.hardlinks[i].path, "/r") != NULL;
	assert_about("files in 0555 directories", rofiles, DISK_FILES, 100);
	assert_int_equal(rodirs * TREE_FEATURES_RODIR_FILES, rofiles);
	assert_about("files not 0644", modes, DISK_FILES, 400);

	manifest_release(&gen);
	remove_tmpdir(tmp);
}

/*
 * Same seed, same tree: two generations give the same manifest and the same
 * tree on disk; another seed another one. Without the option, smallfiles
 * is what it always was: its manifest's text is byte for byte the one the
 * generator wrote before tree features existed (the hash below was taken
 * from that code: 2,500 files, seed 7, no description line).
 */
static void test_generate_features_deterministic(void **state)
{
	char *tmp = make_tmpdir();
	char one[PATH_MAX], two[PATH_MAX], three[PATH_MAX];
	struct workload_spec spec = features_spec(WORKLOAD_SMALLFILES, 1000, 5);
	struct workload_spec other = features_spec(WORKLOAD_SMALLFILES, 1000, 6);
	struct manifest m1, m2, m3, tree;
	struct generate_stats st;

	(void)state;
	join(one, tmp, "one");
	join(two, tmp, "two");
	join(three, tmp, "three");
	assert_int_equal(workload_generate(&spec, one, 2, false, &m1, &st), 0);
	assert_int_equal(workload_generate(&spec, two, 3, false, &m2, &st), 0);
	assert_same_tree(&m1, &m2);
	assert_int_equal(manifest_from_tree(&tree, two, 2), 0);
	assert_same_tree(&m1, &tree);
	manifest_release(&tree);
	verify_clean(two, &m1);
	assert_int_equal(workload_generate(&other, three, 2, false, &m3, &st), 0);
	{
		size_t same_links = 0, n = m1.nsymlinks < m3.nsymlinks ? m1.nsymlinks : m3.nsymlinks;

		for (size_t i = 0; i < n; i++)
			same_links += !strcmp(m1.symlinks[i].path, m3.symlinks[i].path);
		assert_true(same_links < n / 2);
	}
	manifest_release(&m1);
	manifest_release(&m2);
	manifest_release(&m3);
	remove_tmpdir(tmp);
}


/*
 * Under umask 077 the disk still has the manifest's modes (files and
 * directories), and mixed gets features on its small files, mtimes on its
 * large ones and its "large" directory listed.
 */
static void test_generate_features_umask_and_mixed(void **state)
{
	char *tmp = make_tmpdir();
	char dir[PATH_MAX];
	struct workload_spec spec = features_spec(WORKLOAD_MIXED, 1500, 3);
	struct manifest gen, tree;
	struct generate_stats st;
	mode_t old = umask(077);
	int rc;

	(void)state;
	spec.size = 4 << 20;
	join(dir, tmp, "mixed");
	rc = workload_generate(&spec, dir, 2, false, &gen, &st);
	umask(old);
	assert_int_equal(rc, 0);
	assert_int_equal(gen.count, 1504);
	assert_non_null(manifest_find_dir(&gen, "large"));
	assert_int_equal(manifest_find_dir(&gen, "large")->mode, 0755);
	assert_true(manifest_find(&gen, "large/part0.bin")->mtime != MANIFEST_NO_MTIME);
	assert_true(gen.nsymlinks > 0 && gen.nhardlinks > 0);
	assert_int_equal(manifest_from_tree(&tree, dir, 2), 0);
	assert_same_tree(&gen, &tree);
	manifest_release(&tree);
	manifest_release(&gen);

	/* largefile has no small files to add them to */
	spec.kind = WORKLOAD_LARGEFILE;
	join(dir, tmp, "large");
	err_clear();
	assert_int_equal(workload_generate(&spec, dir, 2, false, &gen, &st), -1);
	assert_contains(err_msg(), "largefile");
	assert_int_equal(access(dir, F_OK), -1);
	remove_tmpdir(tmp);
}

/* A cancelled generation (an interrupt) fails, says so, and leaves nothing; withdrawn, the next one runs. */
static void test_generate_cancel(void **state)
{
	char *tmp = make_tmpdir();
	char dir[PATH_MAX];
	struct workload_spec spec = features_spec(WORKLOAD_SMALLFILES, 1200, 1);
	struct manifest m;
	struct generate_stats st;
	int rc;

	(void)state;
	join(dir, tmp, "cancelled");
	workload_generate_cancel(true);
	err_clear();
	rc = workload_generate(&spec, dir, 2, false, &m, &st);
	workload_generate_cancel(false);
	assert_int_equal(rc, -1);
	assert_contains(err_msg(), "interrupted");
	assert_int_equal(access(dir, F_OK), -1);
	assert_int_equal(m.count, 0);
	assert_int_equal(workload_generate(&spec, dir, 2, false, &m, &st), 0);
	assert_int_equal(m.count, 1200);
	manifest_release(&m);
	remove_tmpdir(tmp);
}

/*
 * Generates spec into dir in a child that is not root (root's writes ignore
 * 0555), with files limited to 2 MiB: mixed's 4 MiB large files fail (EFBIG)
 * after the small files, read-only directories made read-only, are
 * written (one thread takes the chunks in order). Returns the child's exit
 * status: 0 when generate failed as expected and left dir as the test says.
 */
static int generate_failing_as_nobody(const struct workload_spec *spec, const char *dir,
				      int created)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		struct rlimit lim = { 2 << 20, 2 << 20 };
		struct manifest m;
		struct generate_stats st;

		if (getuid() == 0 && (setgid(65534) < 0 || setuid(65534) < 0))
			_exit(10);
		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &lim) < 0)
			_exit(11);
		if (workload_generate(spec, dir, 1, false, &m, &st) != -1)
			_exit(12);
		if (!strstr(err_msg(), "large/part"))
			_exit(13);
		if (created ? access(dir, F_OK) != -1 : fs_dir_is_empty(dir) != 1)
			_exit(14);
		_exit(0);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

/*
 * A generation that fails after making 0555 directories removes all it
 * wrote, as the tree's owner (not root): the directory itself if it made
 * it, only what is inside if it was given empty. (An interrupted
 * comparison removes its temporary source with the same fs_remove_tree.)
 */
static void test_generate_features_failure_cleans_up(void **state)
{
	char *tmp = make_tmpdir();
	char dir[PATH_MAX];
	struct workload_spec spec = features_spec(WORKLOAD_MIXED, 3000, 1);

	(void)state;
	spec.size = 16 << 20;
	/* the small files alone hold 0555 directories */
	{
		uint64_t ro = 0;
		char rodir[64];

		for (uint64_t i = 0; i < spec.files; i++)
			ro += tree_features_rodir(&spec, i, rodir, sizeof(rodir));
		assert_true(ro >= TREE_FEATURES_RODIR_FILES);
	}
	if (getuid() == 0)
		assert_int_equal(chown(tmp, 65534, 65534), 0);
	join(dir, tmp, "made");
	assert_int_equal(generate_failing_as_nobody(&spec, dir, 1), 0);
	join(dir, tmp, "given");
	assert_int_equal(mkdir(dir, 0755), 0);
	if (getuid() == 0)
		assert_int_equal(chown(dir, 65534, 65534), 0);
	assert_int_equal(generate_failing_as_nobody(&spec, dir, 0), 0);
	assert_int_equal(fs_dir_is_empty(dir), 1);
	remove_tmpdir(tmp);
}

/* ---- refusals and cleanup ---- */

static void test_generate_refuses_non_empty(void **state)
{
	char *dir = make_tmpdir();
	char keep[PATH_MAX];
	struct manifest m;
	struct generate_stats st;

	(void)state;
	join(keep, dir, "keep.txt");
	write_text(keep, "precious\n");
	err_clear();
	memset(&m, 0x5a, sizeof(m));
	assert_int_equal(workload_generate(&small_spec, dir, 2, false, &m, &st), -1);
	assert_contains(err_msg(), "not empty");
	assert_contains(err_msg(), dir);
	assert_int_equal(m.count, 0);
	assert_null(m.entries);
	/* untouched: the one file, same content, nothing added */
	expect_file_text(keep, "precious\n");
	assert_int_equal(unlink(keep), 0);
	assert_int_equal(fs_dir_is_empty(dir), 1);

	/* a hidden file counts too */
	join(keep, dir, ".hidden");
	write_text(keep, "h");
	assert_int_equal(workload_generate(&small_spec, dir, 2, false, &m, &st), -1);
	assert_contains(err_msg(), "not empty");
	expect_file_text(keep, "h");
	assert_int_equal(unlink(keep), 0);

	/* a subdirectory too */
	join(keep, dir, "sub");
	assert_int_equal(mkdir(keep, 0755), 0);
	assert_int_equal(workload_generate(&small_spec, dir, 2, false, &m, &st), -1);
	assert_contains(err_msg(), "not empty");
	assert_int_equal(fs_dir_is_empty(keep), 1);
	assert_int_equal(rmdir(keep), 0);
	remove_tmpdir(dir);
}

static void test_generate_refuses_file_and_dir_kind(void **state)
{
	char *dir = make_tmpdir();
	char file[PATH_MAX], sub[PATH_MAX];
	struct workload_spec spec = { .kind = WORKLOAD_DIR, .dir = "/tmp" };
	struct manifest m;
	struct generate_stats st;

	(void)state;
	join(file, dir, "plain");
	write_text(file, "data");
	err_clear();
	assert_int_equal(workload_generate(&small_spec, file, 2, false, &m, &st), -1);
	assert_contains(err_msg(), "not a directory");
	expect_file_text(file, "data");

	/* below a regular file: cannot be created */
	join(sub, file, "x");
	err_clear();
	assert_int_equal(workload_generate(&small_spec, sub, 2, false, &m, &st), -1);
	assert_true(err_msg()[0] != '\0');
	expect_file_text(file, "data");

	/* dir: workloads are never written */
	join(sub, dir, "d");
	err_clear();
	assert_int_equal(workload_generate(&spec, sub, 2, false, &m, &st), -1);
	assert_contains(err_msg(), "dir:");
	assert_int_equal(access(sub, F_OK), -1);
	remove_tmpdir(dir);
}

/*
 * A failure half-way (here: file paths longer than PATH_MAX, though the
 * directories still fit) removes what was written: the directory itself if
 * generate created it, only its contents if it was given empty.
 */
static void test_generate_failure_cleans_up(void **state)
{
	char *tmp = make_tmpdir();
	char *dir = malloc(PATH_MAX + 64);
	struct workload_spec spec = small_spec;
	struct manifest m;
	struct generate_stats st;
	size_t len;
	char *slash;

	(void)state;
	assert_non_null(dir);
	spec.files = 5;
	/* dir + "/d0000/d00" fits in PATH_MAX, dir + "/d0000/d00/f00000000" does not */
	strcpy(dir, tmp);
	len = strlen(dir);
	while (len < PATH_MAX - 16) {
		size_t add = PATH_MAX - 16 - len > 201 ? 201 : PATH_MAX - 16 - len;

		dir[len++] = '/';
		memset(dir + len, 'a', add - 1);
		len += add - 1;
		dir[len] = '\0';
	}
	assert_int_equal(strlen(dir), PATH_MAX - 16);
	err_clear();
	assert_int_equal(workload_generate(&spec, dir, 2, false, &m, &st), -1);
	assert_contains(err_msg(), "too long");
	assert_int_equal(m.count, 0);
	/* created by generate: gone, while its parent (made by mkdir -p) stays */
	assert_int_equal(access(dir, F_OK), -1);
	slash = strrchr(dir, '/');
	*slash = '\0';
	assert_int_equal(access(dir, F_OK), 0);
	*slash = '/';

	/* given empty: stays, empty */
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(workload_generate(&spec, dir, 2, false, &m, &st), -1);
	assert_contains(err_msg(), "too long");
	assert_int_equal(fs_dir_is_empty(dir), 1);
	free(dir);
	remove_tmpdir(tmp);
}

/* ---- modes on disk ---- */

/*
 * The files workload_generate writes have the modes its manifest records,
 * whatever the umask: under umask 077 a file opened 0644 is 0600 unless
 * generate sets it, and manifest_from_tree of the tree would disagree.
 */
static void test_generated_modes_match_disk(void **state)
{
	char *dir = make_tmpdir();
	struct workload_spec spec = small_spec;
	struct manifest gen, tree;
	struct generate_stats st;
	mode_t old = umask(077);
	int rc;

	(void)state;
	spec.files = 3;
	rc = workload_generate(&spec, dir, 1, false, &gen, &st);
	umask(old);
	assert_int_equal(rc, 0);
	assert_int_equal(manifest_from_tree(&tree, dir, 1), 0);
	assert_manifests_equal(&gen, &tree, 1);
	manifest_release(&tree);
	manifest_release(&gen);
	remove_tmpdir(dir);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_generate_refuses_non_empty, cleanup),
		cmocka_unit_test_teardown(test_generate_refuses_file_and_dir_kind, cleanup),
		cmocka_unit_test_teardown(test_generate_failure_cleans_up, cleanup),
		cmocka_unit_test_teardown(test_generate_features_on_disk, cleanup),
		cmocka_unit_test_teardown(test_generate_features_deterministic, cleanup),
		cmocka_unit_test_teardown(test_generate_features_umask_and_mixed, cleanup),
		cmocka_unit_test_teardown(test_generate_features_failure_cleans_up, cleanup),
		cmocka_unit_test_teardown(test_generate_cancel, cleanup),
		cmocka_unit_test_teardown(test_generated_modes_match_disk, cleanup),
	};

	/* file modes on disk are 0644 & ~umask: make them predictable */
	umask(022);
	return test_run("generate_features", tests, ARRAY_LEN(tests), NULL, 0);
}
