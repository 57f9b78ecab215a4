/*
 * Unit tests for common/fsutil.c. The write helpers: every byte arrives
 * through partial writes, and fs_send_all reports a closed peer as EPIPE
 * without raising SIGPIPE (the default action of which ends the process,
 * so the test itself would die if it came). The tree removal: read-only and
 * 0000 directories go, as root and as the tree's non-root owner (a child
 * that setuid()s to nobody: the tests run as root), links are never
 * followed, and a marker goes last.
 */
#define _GNU_SOURCE
#include "testutil.h"

#include "err.h"
#include "fsutil.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define LEN (3u << 20)

struct drain {
	int fd;
	uint8_t *got;
	size_t len;
};

/* Reads the socket to its end in small reads, so the writer sees partial writes. */
static void *drain_socket(void *arg)
{
	struct drain *d = arg;
	ssize_t n;

	while (d->len < LEN && (n = read(d->fd, d->got + d->len, 4096)) > 0)
		d->len += (size_t)n;
	return NULL;
}

static void check_all_bytes_arrive(int (*write_fn)(int, const void *, size_t))
{
	uint8_t *data = malloc(LEN);
	struct drain d = { .got = malloc(LEN) };
	int sv[2], sndbuf = 4096;
	pthread_t t;

	assert_non_null(data);
	assert_non_null(d.got);
	for (size_t i = 0; i < LEN; i++)
		data[i] = (uint8_t)(i * 2654435761u >> 24);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)), 0);
	d.fd = sv[1];
	assert_int_equal(pthread_create(&t, NULL, drain_socket, &d), 0);
	assert_int_equal(write_fn(sv[0], data, LEN), 0);
	close(sv[0]);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(d.len, LEN);
	assert_memory_equal(d.got, data, LEN);
	close(sv[1]);
	free(d.got);
	free(data);
}

static void test_write_all_whole(void **state)
{
	(void)state;
	check_all_bytes_arrive(fs_write_all);
}

static void test_send_all_whole(void **state)
{
	(void)state;
	check_all_bytes_arrive(fs_send_all);
}

static void test_send_all_closed_peer_is_epipe(void **state)
{
	void (*old)(int) = signal(SIGPIPE, SIG_DFL);
	char buf[64] = "x";
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	close(sv[1]);
	errno = 0;
	assert_int_equal(fs_send_all(sv[0], buf, sizeof(buf)), -1);
	assert_int_equal(errno, EPIPE);
	close(sv[0]);
	signal(SIGPIPE, old);
}

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

static void put_file(const char *dir, const char *name, mode_t mode)
{
	char path[512];
	int fd;

	fd = open(path_of(path, sizeof(path), dir, name), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "data\n", 5), 5);
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
}

static void put_dir(char *path, size_t len, const char *parent, const char *name)
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
static void make_tree(struct rm_fixture *f, uid_t owner)
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
static void check_outside_kept(const struct rm_fixture *f)
{
	char keep[256];
	struct stat st;

	assert_int_equal(lstat(f->outside, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0555);
	assert_int_equal(lstat(path_of(keep, sizeof(keep), f->outside, "keep"), &st), 0);
	assert_int_equal(st.st_size, 5);
}

static void drop_fixture(struct rm_fixture *f)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx '%s' && rm -rf '%s'", f->base, f->base);
	assert_int_equal(system(cmd), 0);
}

/*
 * Runs fs_remove_tree(path), or fs_remove_marked_tree when marker is set, in
 * a child that became uid (root stays root). Returns the call's result; the
 * child's error message is copied to msg.
 */
static int remove_as(uid_t uid, const char *path, const char *marker, char *msg, size_t len)
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
		rc = marker ? fs_remove_marked_tree(path, marker) : fs_remove_tree(path);
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

static void check_tree_removed(uid_t uid)
{
	struct rm_fixture f;
	char msg[1024];
	struct stat st;

	make_tree(&f, uid);
	if (remove_as(uid, f.tree, NULL, msg, sizeof(msg)) < 0)
		fail_msg("fs_remove_tree failed: %s", msg);
	assert_int_equal(lstat(f.tree, &st), -1);
	assert_int_equal(errno, ENOENT);
	check_outside_kept(&f);
	drop_fixture(&f);
}

static void test_remove_tree_read_only_dirs_as_root(void **state)
{
	(void)state;
	check_tree_removed(0);
}

static void test_remove_tree_read_only_dirs_as_owner(void **state)
{
	(void)state;
	check_tree_removed(NOBODY);
}

/* A link given as the path itself is unlinked; its target stays. */
static void test_remove_tree_link_is_not_followed(void **state)
{
	struct rm_fixture f;
	char link[256];
	struct stat st;

	(void)state;
	make_tree(&f, 0);
	assert_int_equal(symlink(f.outside, path_of(link, sizeof(link), f.base, "top-link")), 0);
	assert_int_equal(fs_remove_tree(link), 0);
	assert_int_equal(lstat(link, &st), -1);
	check_outside_kept(&f);
	drop_fixture(&f);
}

/*
 * What the owner cannot remove (a directory of root's, 0555, holding a
 * file): the call fails naming the place, goes on with the rest, and the
 * marker stays; root then removes it all, the marker last.
 */
static void test_remove_marked_tree_keeps_marker_on_failure(void **state)
{
	struct rm_fixture f;
	char path[256], msg[1024];
	struct stat st;

	(void)state;
	make_tree(&f, NOBODY);
	put_file(f.tree, ".marker", 0644);
	assert_int_equal(chown(path_of(path, sizeof(path), f.tree, ".marker"), NOBODY, NOBODY), 0);
	put_dir(path, sizeof(path), f.tree, "roots");
	put_file(path, "stuck", 0644);
	assert_int_equal(chmod(path, 0555), 0);
	assert_int_equal(remove_as(NOBODY, f.tree, ".marker", msg, sizeof(msg)), -1);
	assert_contains(msg, f.tree);
	assert_contains(msg, "roots/stuck");
	assert_int_equal(lstat(path_of(path, sizeof(path), f.tree, ".marker"), &st), 0);
	/* the rest went all the same */
	assert_int_equal(lstat(path_of(path, sizeof(path), f.tree, "ro555"), &st), -1);
	assert_int_equal(lstat(path_of(path, sizeof(path), f.tree, "closed0000"), &st), -1);
	assert_int_equal(remove_as(0, f.tree, ".marker", msg, sizeof(msg)), 0);
	assert_int_equal(lstat(f.tree, &st), -1);
	check_outside_kept(&f);
	drop_fixture(&f);
}

/* issue 44: --json into a missing directory was found out only after the whole run */
static void test_check_writable(void **state)
{
	char dir[] = "/tmp/xfercmp-test-writable-XXXXXX", path[256];

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(fs_check_writable("-"), 0);
	snprintf(path, sizeof(path), "%s/report.json", dir);
	assert_int_equal(fs_check_writable(path), 0);
	assert_int_equal(access(path, F_OK), -1);	/* nothing created */
	snprintf(path, sizeof(path), "%s/missing/report.json", dir);
	assert_int_equal(fs_check_writable(path), -1);
	assert_contains(err_msg(), "does not exist");
	assert_int_equal(fs_check_writable(dir), -1);
	assert_contains(err_msg(), "is a directory");
	snprintf(path, sizeof(path), "%s/file", dir);
	close(open(path, O_CREAT | O_WRONLY, 0644));
	assert_int_equal(fs_check_writable(path), 0);
	snprintf(path, sizeof(path), "%s/file/report.json", dir);
	assert_int_equal(fs_check_writable(path), -1);
	assert_contains(err_msg(), "is not a directory");
	assert_int_equal(fs_check_writable(""), -1);
	/* a directory's tree to copy */
	assert_int_equal(fs_check_readable_dir(dir), 0);
	snprintf(path, sizeof(path), "%s/file", dir);
	assert_int_equal(fs_check_readable_dir(path), -1);
	assert_contains(err_msg(), "not a directory");
	snprintf(path, sizeof(path), "%s/missing", dir);
	assert_int_equal(fs_check_readable_dir(path), -1);
	assert_contains(err_msg(), "no such directory");
	assert_int_equal(fs_remove_tree(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_writable),
		cmocka_unit_test(test_write_all_whole),
		cmocka_unit_test(test_send_all_whole),
		cmocka_unit_test(test_send_all_closed_peer_is_epipe),
		cmocka_unit_test(test_remove_tree_read_only_dirs_as_root),
		cmocka_unit_test(test_remove_tree_read_only_dirs_as_owner),
		cmocka_unit_test(test_remove_tree_link_is_not_followed),
		cmocka_unit_test(test_remove_marked_tree_keeps_marker_on_failure),
	};

	return test_run("fsutil", tests, ARRAY_LEN(tests), NULL, 0);
}
