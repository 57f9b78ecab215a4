/*
 * Unit tests for common/fsutil.c. The write helpers: every byte arrives
 * through partial writes, and fs_send_all reports a closed peer as EPIPE
 * without raising SIGPIPE (the default action of which ends the process,
 * so the test itself would die if it came). The tree removal: read-only and
 * 0000 directories go, as root and as the tree's non-root owner (a child
 * that setuid()s to nobody: the tests run as root), links are never
 * followed, and a marker goes last. The listing: only the names its filter
 * keeps and that fit a slot, at most the count asked, the descriptor left
 * where it was.
 */
#define _GNU_SOURCE
#include "testutil.h"

#include "err.h"
#include "fsutil.h"
#include "rm_fixture.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
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

/* fs_remove_tree, or fs_remove_marked_tree when marker is set (rm_fixture.h) */
static int serial_remove(const char *path, const char *marker)
{
	return marker ? fs_remove_marked_tree(path, marker) : fs_remove_tree(path);
}

static void test_remove_tree_read_only_dirs_as_root(void **state)
{
	(void)state;
	rm_fixture_check_removed(serial_remove, 0);
}

static void test_remove_tree_read_only_dirs_as_owner(void **state)
{
	(void)state;
	rm_fixture_check_removed(serial_remove, NOBODY);
}

/* A link given as the path itself is unlinked; its target stays. A missing path is no error. */
static void test_remove_tree_link_is_not_followed(void **state)
{
	(void)state;
	rm_fixture_check_link(serial_remove);
}

/*
 * What the owner cannot remove (a directory of root's, 0555, holding a
 * file): the call fails naming the place, goes on with the rest, and the
 * marker stays; root then removes it all, the marker last.
 */
static void test_remove_marked_tree_keeps_marker_on_failure(void **state)
{
	(void)state;
	rm_fixture_check_marker(serial_remove);
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

static int starts_with_a(const char *name, const void *ctx)
{
	(void)ctx;
	return name[0] == 'a';
}

static void test_dir_names(void **state)
{
	char dir[] = "/tmp/xfercmp-test-dirnames.XXXXXX", path[256], *names = NULL;
	const char *make[] = { "a1", "a2", "a-name-too-long-for-its-slot", "b1", "a3" };
	unsigned n = 99, seen = 0;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	for (size_t i = 0; i < ARRAY_LEN(make); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, make[i]);
		assert_int_equal(mkdir(path, 0700), 0);
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(fs_dir_names(fd, 10, 8, starts_with_a, NULL, &names, &n), 0);
	assert_int_equal(n, 3);	/* a1, a2, a3: not b1, nor the name that does not fit 8 bytes */
	for (unsigned i = 0; i < n; i++) {
		const char *name = names + (size_t)i * 8;

		assert_int_equal(strlen(name), 2);
		assert_int_equal(name[0], 'a');
		seen |= 1u << (name[1] - '0');
	}
	assert_int_equal(seen, 0xe);
	free(names);
	/* at most max, and the caller's descriptor still reads the directory from its start */
	assert_int_equal(fs_dir_names(fd, 2, 8, starts_with_a, NULL, &names, &n), 0);
	assert_int_equal(n, 2);
	free(names);
	assert_int_equal(fs_dir_names(fd, 0, 8, starts_with_a, NULL, &names, &n), 0);
	assert_int_equal(n, 0);
	free(names);
	/* not a directory: -1, errno set, nothing to free */
	assert_int_equal(fs_dir_names(-1, 10, 8, starts_with_a, NULL, &names, &n), -1);
	assert_int_equal(errno, EBADF);
	assert_null(names);
	close(fd);
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
		cmocka_unit_test(test_dir_names),
	};

	return test_run("fsutil", tests, ARRAY_LEN(tests), NULL, 0);
}
