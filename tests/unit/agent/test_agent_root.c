/*
 * The agent's scratch root (agent_root.c): made fresh, 0700, in its parent,
 * never an existing directory; a symlinked or others-writable parent is
 * refused; a destination swapped for a link is neither entered nor followed
 * by removal; the root renamed away and replaced leaves the impostor alone.
 */
#define _GNU_SOURCE
#include "testutil.h"

#include "agent/agent.h"
#include "agent/agent_root.h"
#include "stream/agent_startup.h"
#include "err.h"
#include "fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define ID "00112233445566778899aabbccddeeff"

#define SCRATCH_BASE_TAG "root"
#include "scratch_base.h"

static const char *in_base(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", base, name);
	return buf;
}

/* Entries of dir, but . and .. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void test_made_fresh_and_ours(void **state)
{
	struct agent_root a, b;
	struct stat st;
	char marker[4200], text[64] = "";
	FILE *f;

	(void)state;
	assert_int_equal(agent_root_make(&a, base, ID), 0);
	assert_int_equal(agent_root_make(&b, base, ID), 0);
	/* two agents in one parent: two roots, each new */
	assert_string_not_equal(a.path, b.path);
	assert_int_equal(strncmp(a.name, AGENT_ROOT_PREFIX, strlen(AGENT_ROOT_PREFIX)), 0);
	assert_int_equal(strlen(a.name), strlen(AGENT_ROOT_PREFIX) + 6);
	assert_int_equal(lstat(a.path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(st.st_uid, geteuid());
	snprintf(marker, sizeof(marker), "%s/%s", a.path, AGENT_ROOT_MARKER);
	assert_int_equal(lstat(marker, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	f = fopen(marker, "r");
	assert_non_null(f);
	assert_non_null(fgets(text, sizeof(text), f));
	fclose(f);
	assert_string_equal(text, ID "\n");
	/* destinations are 0700 too */
	assert_int_equal(agent_root_mkdir(&a, "1-splice"), 0);
	snprintf(marker, sizeof(marker), "%s/1-splice", a.path);
	assert_int_equal(lstat(marker, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(agent_root_mkdir(&a, "../escape"), -1);
	assert_int_equal(agent_root_remove_all(&a), 0);
	assert_int_equal(agent_root_remove_all(&b), 0);
	assert_int_equal(entries(base), 0);
}

static void test_parent_refused(void **state)
{
	struct agent_root r;
	char target[128], link[128], open_dir[128];

	(void)state;
	/* --root naming a link: writes would go to its target */
	assert_int_equal(mkdir(in_base(target, sizeof(target), "target"), 0755), 0);
	assert_int_equal(symlink(target, in_base(link, sizeof(link), "link")), 0);
	assert_int_equal(agent_root_make(&r, link, ID), -1);
	assert_contains(err_msg(), "is a symbolic link");
	assert_int_equal(entries(target), 0);
	/* a parent anyone may rename things in */
	assert_int_equal(mkdir(in_base(open_dir, sizeof(open_dir), "open"), 0777), 0);
	assert_int_equal(chmod(open_dir, 0777), 0);
	assert_int_equal(agent_root_make(&r, open_dir, ID), -1);
	assert_contains(err_msg(), "no sticky bit");
	assert_int_equal(entries(open_dir), 0);
	/* ... with the sticky bit, as /var/tmp: fine */
	assert_int_equal(chmod(open_dir, 01777), 0);
	assert_int_equal(agent_root_make(&r, open_dir, ID), 0);
	assert_int_equal(agent_root_remove_all(&r), 0);
	assert_int_equal(entries(open_dir), 0);
}

/*
 * --root /tmp/link/sub with link a symbolic link: its owner (another user
 * in the finding) may retarget it between the check and the open. The old
 * agent resolved it with realpath, checked the real directories and then
 * opened the path again: accepted. Now refused, naming the link, and
 * nothing is made where it pointed.
 */
static void test_parent_through_a_symlink_refused(void **state)
{
	struct agent_root r;
	char real[128], link[128], parent[160];

	(void)state;
	assert_int_equal(mkdir(in_base(real, sizeof(real), "real"), 0755), 0);
	assert_int_equal(symlink(real, in_base(link, sizeof(link), "link")), 0);
	snprintf(parent, sizeof(parent), "%s/sub", link);
	assert_int_equal(agent_root_make(&r, parent, ID), -1);
	assert_contains(err_msg(), "is a symbolic link, which its owner may point elsewhere");
	assert_contains(err_msg(), link);
	assert_int_equal(entries(real), 0);
	/* a ".." is refused too: it would climb out of what was checked */
	snprintf(parent, sizeof(parent), "%s/real/../real", base);
	assert_int_equal(agent_root_make(&r, parent, ID), -1);
	assert_contains(err_msg(), "has a '..'");
	/* parents made on the way go again at the end */
	snprintf(parent, sizeof(parent), "%s/real/made/deeper", base);
	assert_int_equal(agent_root_make(&r, parent, ID), 0);
	assert_int_equal(agent_root_remove_all(&r), 0);
	assert_int_equal(entries(real), 0);
}

/*
 * A parent below a directory another user owns, or below one others may
 * write without the sticky bit: they could rename the parent away and put
 * theirs in its place, so every path under the root (the host's tar, the
 * probes) would lead into theirs. Refused, naming that directory.
 */
static void test_parent_below_anothers_directory_refused(void **state)
{
	struct agent_root r;
	char theirs[128], parent[160], open_dir[128], below[160];

	(void)state;
	assert_int_equal(mkdir(in_base(theirs, sizeof(theirs), "theirs"), 0755), 0);
	snprintf(parent, sizeof(parent), "%s/scratch", theirs);
	assert_int_equal(mkdir(parent, 0755), 0);
	assert_int_equal(chown(theirs, 65534, 65534), 0);
	assert_int_equal(agent_root_make(&r, parent, ID), -1);
	assert_contains(err_msg(), "belongs to uid 65534, who could move it away");
	assert_contains(err_msg(), theirs);
	assert_int_equal(entries(parent), 0);
	/* owned by root but open to all, without the sticky bit, one level up */
	assert_int_equal(mkdir(in_base(open_dir, sizeof(open_dir), "open"), 0755), 0);
	snprintf(below, sizeof(below), "%s/scratch", open_dir);
	assert_int_equal(mkdir(below, 0755), 0);
	assert_int_equal(chmod(open_dir, 0777), 0);
	assert_int_equal(agent_root_make(&r, below, ID), -1);
	assert_contains(err_msg(), "may be written by other users and has no sticky bit");
	assert_int_equal(entries(below), 0);
	/* sticky, as /tmp: fine */
	assert_int_equal(chmod(open_dir, 01777), 0);
	assert_int_equal(agent_root_make(&r, below, ID), 0);
	assert_int_equal(agent_root_remove_all(&r), 0);
}

/* A parent that was missing is made, and goes again with the root. */
static void test_missing_parent_made_and_removed(void **state)
{
	struct agent_root r;
	char parent[128], outer[128];
	struct stat st;

	(void)state;
	in_base(outer, sizeof(outer), "a");
	in_base(parent, sizeof(parent), "a/b");
	assert_int_equal(agent_root_make(&r, parent, ID), 0);
	assert_int_equal(lstat(parent, &st), 0);
	assert_int_equal(agent_root_mkdir(&r, "1-zstd"), 0);
	assert_int_equal(agent_root_remove_all(&r), 0);
	assert_int_equal(lstat(outer, &st), -1);
	assert_int_equal(errno, ENOENT);
}

/* A destination swapped for a link to elsewhere: not opened, removal unlinks only the link. */
static void test_swapped_destination(void **state)
{
	struct agent_root r;
	char outside[128], file[160], dest[4200];
	struct stat st;
	int fd;

	(void)state;
	assert_int_equal(mkdir(in_base(outside, sizeof(outside), "outside"), 0755), 0);
	snprintf(file, sizeof(file), "%s/keep", outside);
	fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(agent_root_make(&r, base, ID), 0);
	assert_int_equal(agent_root_mkdir(&r, "1-splice"), 0);
	snprintf(dest, sizeof(dest), "%s/1-splice", r.path);
	assert_int_equal(rmdir(dest), 0);
	assert_int_equal(symlink(outside, dest), 0);
	assert_int_equal(agent_root_open_dir(&r, "1-splice"), -1);
	assert_int_equal(agent_root_open_dir(&r, "../outside"), -1);
	assert_int_equal(agent_root_remove(&r, "1-splice"), 0);
	assert_int_equal(lstat(dest, &st), -1);
	assert_int_equal(lstat(file, &st), 0);
	assert_int_equal(agent_root_remove_all(&r), 0);
	assert_int_equal(lstat(file, &st), 0);
}

/* The whole root goes, read-only and 0000 directories included, marker last. */
static void test_remove_all_read_only(void **state)
{
	struct agent_root r;
	char path[4300];
	int fd;

	(void)state;
	assert_int_equal(agent_root_make(&r, base, ID), 0);
	assert_int_equal(agent_root_mkdir(&r, "1-tar-ssh"), 0);
	snprintf(path, sizeof(path), "%s/1-tar-ssh/ro", r.path);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/1-tar-ssh/ro/f", r.path);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0444);
	assert_true(fd >= 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/1-tar-ssh/ro/shut", r.path);
	assert_int_equal(mkdir(path, 0000), 0);
	snprintf(path, sizeof(path), "%s/1-tar-ssh/ro", r.path);
	assert_int_equal(chmod(path, 0555), 0);
	assert_int_equal(agent_root_remove_all(&r), 0);
	assert_int_equal(entries(base), 0);
}

/* The root renamed away and another directory put in its place: that one is not removed. */
static void test_impostor_left_alone(void **state)
{
	struct agent_root r;
	char moved[128], keep[4200];
	struct stat st;
	int fd;

	(void)state;
	assert_int_equal(agent_root_make(&r, base, ID), 0);
	assert_int_equal(rename(r.path, in_base(moved, sizeof(moved), "moved")), 0);
	assert_int_equal(mkdir(r.path, 0755), 0);
	snprintf(keep, sizeof(keep), "%s/theirs", r.path);
	fd = open(keep, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(agent_root_remove_all(&r), 0);
	assert_int_equal(lstat(keep, &st), 0);
	/* ours was emptied through its fd, wherever it went */
	assert_int_equal(entries(moved), 0);
}

/* Runs fn(arg) in a child as uid (and gid); returns its exit status. */
static int as_user(uid_t uid, int (*fn)(const char *), const char *arg)
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		if (setgroups(0, NULL) < 0 || setgid(uid) < 0 || setuid(uid) < 0)
			_exit(90);
		_exit(fn(arg));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static char made[4200];

/* As the agent's user: makes a root in parent, writes its path to parent/made. */
static int make_root_child(const char *parent)
{
	struct agent_root r;
	char note[4300];
	FILE *f;

	if (agent_root_make(&r, parent, ID) < 0 || agent_root_mkdir(&r, "1-splice") < 0)
		return 1;
	snprintf(note, sizeof(note), "%s/made", parent);
	f = fopen(note, "w");
	if (!f)
		return 2;
	fprintf(f, "%s", r.path);
	fclose(f);
	return 0;
}

/* As another user: tries to look into, write into or replace what is in the root. */
static int intrude_child(const char *root)
{
	char path[4300];
	DIR *d = opendir(root);

	if (d) {
		closedir(d);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/1-splice/planted", root);
	if (open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644) >= 0)
		return 2;
	snprintf(path, sizeof(path), "%s/1-splice", root);
	if (rename(path, "/tmp/xfercmp-stolen") == 0 || symlink("/etc", path) == 0)
		return 3;
	return 0;
}

/* As a non-root agent: its root is its own, 0700; another non-root user can do nothing in it. */
static void test_non_root_agent(void **state)
{
	char parent[128], note[160], path[4300];
	struct stat st;
	FILE *f;

	(void)state;
	/* (the test's base is root's 0700: the users must pass through it) */
	assert_int_equal(chmod(base, 0755), 0);
	in_base(parent, sizeof(parent), "nobody");
	assert_int_equal(mkdir(parent, 0700), 0);
	assert_int_equal(chown(parent, 65534, 65534), 0);
	assert_int_equal(as_user(65534, make_root_child, parent), 0);
	snprintf(note, sizeof(note), "%s/made", parent);
	f = fopen(note, "r");
	assert_non_null(f);
	assert_non_null(fgets(made, sizeof(made), f));
	fclose(f);
	assert_int_equal(lstat(made, &st), 0);
	assert_int_equal(st.st_uid, 65534);
	assert_int_equal(st.st_mode & 07777, 0700);
	/* the parent open to others (sticky, as /var/tmp), the root still is not */
	assert_int_equal(chmod(parent, 01777), 0);
	assert_int_equal(as_user(65533, intrude_child, made), 0);
	snprintf(path, sizeof(path), "%s/1-splice", made);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_made_fresh_and_ours, base_setup, base_teardown),
		cmocka_unit_test_setup_teardown(test_parent_refused, base_setup, base_teardown),
		cmocka_unit_test_setup_teardown(test_parent_through_a_symlink_refused, base_setup, base_teardown),
		cmocka_unit_test_setup_teardown(test_parent_below_anothers_directory_refused, base_setup,
						base_teardown),
		cmocka_unit_test_setup_teardown(test_missing_parent_made_and_removed, base_setup, base_teardown),
		cmocka_unit_test_setup_teardown(test_swapped_destination, base_setup, base_teardown),
		cmocka_unit_test_setup_teardown(test_remove_all_read_only, base_setup, base_teardown),
		cmocka_unit_test_setup_teardown(test_impostor_left_alone, base_setup, base_teardown),
		cmocka_unit_test_setup_teardown(test_non_root_agent, base_setup, base_teardown),
	};

	return test_run("agent_root", tests, ARRAY_LEN(tests), NULL, 0);
}
