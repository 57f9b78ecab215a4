/*
 * The tree the removal tests remove (tests/unit/common/test_fsutil.c,
 * test_fs_remove.c): read-only and 0000 directories, a 0000 file, links
 * that point out of it, owned by root or by nobody; and a way to run a
 * removal as that owner. Header only, for the unit tests.
 */
#ifndef XFERCMP_RM_FIXTURE_H
#define XFERCMP_RM_FIXTURE_H

#include "testutil.h"

#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The unprivileged owner of the trees in the non-root cases. */
#define NOBODY 65534

struct rm_fixture {
	char base[64];		/* 0777, so nobody may remove tree in it */
	char tree[128];		/* what is removed */
	char outside[128];	/* a link in the tree points here: it must survive */
};

static char *path_of(char *buf, size_t len, const char *dir, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", dir, name);

	assert_true(n > 0 && (size_t)n < len);
	return buf;
}

static __attribute__((unused)) void put_file(const char *dir, const char *name, mode_t mode)
{
	char path[512];
	int fd;

	fd = open(path_of(path, sizeof(path), dir, name), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "data\n", 5), 5);
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
}

static __attribute__((unused)) void put_dir(char *path, size_t len, const char *parent, const char *name)
{
	assert_int_equal(mkdir(path_of(path, len, parent, name), 0755), 0);
}

/* Gives path and everything below it (links themselves) to uid. */
static void chown_tree(const char *path, uid_t uid)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "chown -hR %u:%u '%s'", (unsigned)uid, (unsigned)uid, path);
	assert_int_equal(system(cmd), 0);
}

/*
 * tree/ holds: a 0555 directory with files and a nested 0500 directory
 * holding a file, a 0000 directory with files, a 0000 file, a link to the
 * outside directory (and one inside the 0555 directory), a dangling link.
 * outside/ is 0555 with a file: walked into, it would be emptied.
 */
static __attribute__((unused)) void make_tree(struct rm_fixture *f, uid_t owner)
{
	char ro[256], nested[256], closed[256], link[256];

	snprintf(f->base, sizeof(f->base), "/tmp/xfercmp-fsutil-XXXXXX");
	assert_non_null(mkdtemp(f->base));
	assert_int_equal(chmod(f->base, 0777), 0);
	put_dir(f->tree, sizeof(f->tree), f->base, "tree");
	put_dir(f->outside, sizeof(f->outside), f->base, "outside");
	put_file(f->outside, "keep", 0644);
	put_dir(ro, sizeof(ro), f->tree, "ro555");
	put_file(ro, "a", 0644);
	put_file(ro, "b", 0444);
	put_dir(nested, sizeof(nested), ro, "nested0500");
	put_file(nested, "c", 0600);
	assert_int_equal(symlink(f->outside, path_of(link, sizeof(link), ro, "to-outside")), 0);
	put_dir(closed, sizeof(closed), f->tree, "closed0000");
	put_file(closed, "x", 0644);
	put_file(closed, "y", 0000);
	put_file(f->tree, "file0000", 0000);
	assert_int_equal(symlink(f->outside, path_of(link, sizeof(link), f->tree, "to-outside")), 0);
	assert_int_equal(symlink("../no/such/place", path_of(link, sizeof(link), f->tree, "dangling")), 0);
	chown_tree(f->tree, owner);
	chown_tree(f->outside, owner);
	assert_int_equal(chmod(nested, 0500), 0);
	assert_int_equal(chmod(ro, 0555), 0);
	assert_int_equal(chmod(closed, 0000), 0);
	assert_int_equal(chmod(f->outside, 0555), 0);
}

/* outside/ is as it was made: its mode and its file. */
static __attribute__((unused)) void check_outside_kept(const struct rm_fixture *f)
{
	char keep[256];
	struct stat st;

	assert_int_equal(lstat(f->outside, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0555);
	assert_int_equal(lstat(path_of(keep, sizeof(keep), f->outside, "keep"), &st), 0);
	assert_int_equal(st.st_size, 5);
}

static __attribute__((unused)) void drop_fixture(struct rm_fixture *f)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx '%s' && rm -rf '%s'", f->base, f->base);
	assert_int_equal(system(cmd), 0);
}

/* A removal under test: path, with marker last when not NULL; 0 or -1 (error set). */
typedef int (*rm_fixture_fn)(const char *path, const char *marker);

/*
 * Runs fn(path, marker) in a child that became uid (root stays root).
 * Returns the call's result; the child's error message is copied to msg.
 */
static int rm_fixture_remove_as(rm_fixture_fn fn, uid_t uid, const char *path, const char *marker,
				char *msg, size_t len)
{
	int p[2], status;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int rc;

		close(p[0]);
		if (uid != 0 && (setgroups(0, NULL) < 0 || setgid(uid) < 0 || setuid(uid) < 0))
			_exit(3);
		rc = fn(path, marker);
		if (rc < 0 && write(p[1], err_msg(), strlen(err_msg())) < 0)
			_exit(4);
		_exit(rc < 0 ? 1 : 0);
	}
	close(p[1]);
	n = read(p[0], msg, len - 1);
	msg[n > 0 ? n : 0] = '\0';
	close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_true(WEXITSTATUS(status) <= 1);
	return WEXITSTATUS(status) ? -1 : 0;
}


/* The tree removed by fn as uid: gone, outside/ as it was. */
static __attribute__((unused)) void rm_fixture_check_removed(rm_fixture_fn fn, uid_t uid)
{
	struct rm_fixture f;
	char msg[1024];
	struct stat st;

	make_tree(&f, uid);
	if (rm_fixture_remove_as(fn, uid, f.tree, NULL, msg, sizeof(msg)) < 0)
		fail_msg("the removal failed: %s", msg);
	assert_int_equal(lstat(f.tree, &st), -1);
	assert_int_equal(errno, ENOENT);
	check_outside_kept(&f);
	drop_fixture(&f);
}

/* A link given as the path itself is unlinked by fn; its target stays. */
static __attribute__((unused)) void rm_fixture_check_link(rm_fixture_fn fn)
{
	struct rm_fixture f;
	char link[256];
	struct stat st;

	make_tree(&f, 0);
	assert_int_equal(symlink(f.outside, path_of(link, sizeof(link), f.base, "top-link")), 0);
	assert_int_equal(fn(link, NULL), 0);
	assert_int_equal(lstat(link, &st), -1);
	check_outside_kept(&f);
	/* gone already: no error */
	assert_int_equal(fn(link, NULL), 0);
	drop_fixture(&f);
}

/*
 * What the owner cannot remove (a directory of root's, 0555, holding a
 * file): fn fails naming the place, goes on with the rest, and the marker
 * stays; root then removes it all, the marker last.
 */
static __attribute__((unused)) void rm_fixture_check_marker(rm_fixture_fn fn)
{
	struct rm_fixture f;
	char path[256], msg[1024];
	struct stat st;

	make_tree(&f, NOBODY);
	put_file(f.tree, ".marker", 0644);
	assert_int_equal(chown(path_of(path, sizeof(path), f.tree, ".marker"), NOBODY, NOBODY), 0);
	put_dir(path, sizeof(path), f.tree, "roots");
	put_file(path, "stuck", 0644);
	assert_int_equal(chmod(path, 0555), 0);
	assert_int_equal(rm_fixture_remove_as(fn, NOBODY, f.tree, ".marker", msg, sizeof(msg)), -1);
	assert_contains(msg, f.tree);
	assert_contains(msg, "roots/stuck");
	assert_int_equal(lstat(path_of(path, sizeof(path), f.tree, ".marker"), &st), 0);
	/* the rest went all the same */
	assert_int_equal(lstat(path_of(path, sizeof(path), f.tree, "ro555"), &st), -1);
	assert_int_equal(lstat(path_of(path, sizeof(path), f.tree, "closed0000"), &st), -1);
	assert_int_equal(rm_fixture_remove_as(fn, 0, f.tree, ".marker", msg, sizeof(msg)), 0);
	assert_int_equal(lstat(f.tree, &st), -1);
	check_outside_kept(&f);
	drop_fixture(&f);
}

#endif
