/*
 * Unit tests for common/fs_remove.c: the parallel removal removes what the
 * serial one does (read-only and 0000 directories as root and as the
 * tree's non-root owner, links never followed, the marker last and kept
 * when something could not go), on a tree wide enough that more
 * directories are waiting than it keeps open, and counts what it removed.
 */
#define _GNU_SOURCE
#include "testutil.h"

#include "err.h"
#include "fs_remove.h"
#include "rm_fixture.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The removal under test, as rm_fixture.h runs it: 8 workers. */
static int parallel_remove(const char *path, const char *marker)
{
	int fd, rc;

	if (!marker)
		return fs_remove_tree_parallel(AT_FDCWD, path, path, 8, NULL);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return err_errno("cannot open '%s'", path);
	rc = fs_empty_dir_parallel(fd, marker, path, 8, NULL);
	if (rc == 0 && unlinkat(fd, marker, 0) < 0)
		rc = err_errno("cannot remove '%s/%s'", path, marker);
	close(fd);
	if (rc == 0 && rmdir(path) < 0)
		rc = err_errno("cannot remove '%s'", path);
	return rc;
}

static void test_read_only_dirs_as_root(void **state)
{
	(void)state;
	rm_fixture_check_removed(parallel_remove, 0);
}

static void test_read_only_dirs_as_owner(void **state)
{
	(void)state;
	rm_fixture_check_removed(parallel_remove, NOBODY);
}

/* A link given as the path itself is unlinked; its target stays. A missing path is no error. */
static void test_link_and_missing(void **state)
{
	(void)state;
	rm_fixture_check_link(parallel_remove);
}

/* The owner cannot remove a 0555 directory of root's: it fails naming the place, the marker stays. */
static void test_marker_kept_on_failure(void **state)
{
	(void)state;
	rm_fixture_check_marker(parallel_remove);
}

/*
 * 600 directories of 3 files each, 300 of them two levels down, and 50
 * empty ones: more directories wait for their files than the removal keeps
 * open (FS_REMOVE_OPEN_DIRS). Everything goes; found and removed count
 * every entry (the top included) and the walk says it listed them all.
 */
static void test_wide_tree_counted(void **state)
{
	char base[256], top[300], dir[400], sub[500];
	struct fs_remove_progress p = { 0 };
	uint64_t entries = 1;
	struct stat st;

	(void)state;
	test_mkdtemp(base, sizeof(base), "xfercmp-fsremove");
	snprintf(top, sizeof(top), "%s/t", base);
	assert_int_equal(mkdir(top, 0755), 0);
	for (int i = 0; i < 300; i++) {
		snprintf(dir, sizeof(dir), "%s/d%03d", top, i);
		assert_int_equal(mkdir(dir, 0755), 0);
		put_file(dir, "a", 0644);
		put_file(dir, "b", 0644);
		put_file(dir, "c", 0644);
		snprintf(sub, sizeof(sub), "%s/s", dir);
		assert_int_equal(mkdir(sub, 0755), 0);
		put_file(sub, "a", 0644);
		put_file(sub, "b", 0644);
		put_file(sub, "c", 0644);
		entries += 8;
	}
	for (int i = 0; i < 50; i++) {
		snprintf(dir, sizeof(dir), "%s/e%02d", top, i);
		assert_int_equal(mkdir(dir, 0755), 0);
		entries++;
	}
	assert_int_equal(fs_remove_tree_parallel(AT_FDCWD, top, top, 16, &p), 0);
	assert_int_equal(lstat(top, &st), -1);
	assert_int_equal(atomic_load(&p.found), entries);
	assert_int_equal(atomic_load(&p.removed), entries);
	assert_int_equal(atomic_load(&p.walked), 1);
	assert_int_equal(rmdir(base), 0);
}

/*
 * The same directory emptied twice through one descriptor (the agent's root,
 * retried at its exit): the second walk reads from the start. With a dup of
 * the descriptor the walks shared its offset, the second found nothing, said
 * the root was empty, and the agent removed its marker (security.t).
 */
static void test_empty_twice_through_one_descriptor(void **state)
{
	char base[256], name[32];
	int fd, n = 0;
	DIR *d;

	(void)state;
	test_mkdtemp(base, sizeof(base), "xfercmp-fsremove");
	fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	put_file(base, "marker", 0644);
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < 40; i++) {
			snprintf(name, sizeof(name), "r%d-%02d", round, i);
			put_file(base, name, 0644);
		}
		assert_int_equal(fs_empty_dir_parallel(fd, "marker", base, 4, NULL), 0);
	}
	d = opendir(base);
	assert_non_null(d);
	for (struct dirent *e; (e = readdir(d));)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	assert_int_equal(n, 1);
	assert_int_equal(unlinkat(fd, "marker", 0), 0);
	close(fd);
	assert_int_equal(rmdir(base), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_only_dirs_as_root),
		cmocka_unit_test(test_read_only_dirs_as_owner),
		cmocka_unit_test(test_link_and_missing),
		cmocka_unit_test(test_marker_kept_on_failure),
		cmocka_unit_test(test_wide_tree_counted),
		cmocka_unit_test(test_empty_twice_through_one_descriptor),
	};

	return test_run("fs_remove", tests, ARRAY_LEN(tests), NULL, 0);
}
