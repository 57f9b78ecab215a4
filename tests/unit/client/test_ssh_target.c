/*
 * Unit tests for the SSH target's fallback cleanup (ssh_target_cleanup_command):
 * the command text is run here by /bin/sh, as the host's shell would, on a
 * scratch root holding what a tree may leave read-only, as root and as the
 * root's non-root owner (a child that setuid()s to nobody: the tests run as
 * root). It removes all, never through a link, and keeps the marker when it
 * cannot remove the rest; it takes only a root of this run: ours, and whose
 * marker holds the run's session id.
 */
#define _GNU_SOURCE
#include "testutil.h"

#include "stream/agent_startup.h"
#include "client/ssh_target.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOBODY 65534
#define ID "0123456789abcdef0123456789abcdef"

struct scratch {
	char base[64];	/* 0777: nobody may remove the root in it */
	char root[128];
	char outside[128];
};

static char *join(char *buf, size_t len, const char *dir, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", dir, name);

	assert_true(n > 0 && (size_t)n < len);
	return buf;
}

static void touch(const char *dir, const char *name, mode_t mode)
{
	char path[512];
	int fd = open(join(path, sizeof(path), dir, name), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
}

/* Replaces the marker's text with id and a newline, as the agent writes it. */
static void write_marker(const char *root, const char *id)
{
	char path[512];
	FILE *f = fopen(join(path, sizeof(path), root, AGENT_ROOT_MARKER), "w");

	assert_non_null(f);
	fprintf(f, "%s\n", id);
	assert_int_equal(fclose(f), 0);
}

/* Runs "WHAT 'path'" with /bin/sh; it must succeed. */
static void sh_ok(const char *what, const char *path)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "%s '%s'", what, path);
	assert_int_equal(system(cmd), 0);
}

/*
 * root/ (owned by owner) holds the marker, ro/ (0555, a file, a nested 0000
 * directory with a file), a 0000 file, and a link to outside/ (0555, a file).
 */
static void make_scratch(struct scratch *s, uid_t owner)
{
	char ro[256], shut[256], link[256], chown_cmd[64];

	snprintf(s->base, sizeof(s->base), "/tmp/xfercmp-sshtarget-XXXXXX");
	assert_non_null(mkdtemp(s->base));
	assert_int_equal(chmod(s->base, 0777), 0);
	assert_int_equal(mkdir(join(s->root, sizeof(s->root), s->base, "xfercmp.root"), 0700), 0);
	assert_int_equal(mkdir(join(s->outside, sizeof(s->outside), s->base, "outside"), 0755), 0);
	touch(s->outside, "keep", 0644);
	touch(s->root, AGENT_ROOT_MARKER, 0644);
	write_marker(s->root, ID);
	assert_int_equal(mkdir(join(ro, sizeof(ro), s->root, "ro"), 0755), 0);
	touch(ro, "a", 0444);
	assert_int_equal(mkdir(join(shut, sizeof(shut), ro, "shut"), 0755), 0);
	touch(shut, "b", 0600);
	touch(s->root, "closed-file", 0000);
	assert_int_equal(symlink(s->outside, join(link, sizeof(link), s->root, "to-outside")), 0);
	assert_int_equal(symlink(s->outside, join(link, sizeof(link), ro, "to-outside")), 0);
	snprintf(chown_cmd, sizeof(chown_cmd), "chown -hR %u:%u", (unsigned)owner, (unsigned)owner);
	sh_ok(chown_cmd, s->root);
	sh_ok(chown_cmd, s->outside);
	assert_int_equal(chmod(shut, 0000), 0);
	assert_int_equal(chmod(ro, 0555), 0);
	assert_int_equal(chmod(s->outside, 0555), 0);
}

static void drop_scratch(const struct scratch *s)
{
	sh_ok("chmod -R u+rwx", s->base);
	sh_ok("rm -rf", s->base);
}

/*
 * Runs the fallback's command for the roots in parent with /bin/sh as uid;
 * its first line of output into out.
 */
static void run_cleanup(const char *parent, uid_t uid, char *out, size_t len)
{
	char command[2048];
	int p[2], status;
	ssize_t n;
	pid_t pid;

	assert_int_equal(ssh_target_cleanup_command(parent, ID, command, sizeof(command)), 0);
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int quiet = open("/dev/null", O_WRONLY | O_CLOEXEC);

		/* the host's find and rm say what they could not do: not for this output */
		dup2(p[1], 1);
		if (quiet >= 0)
			dup2(quiet, 2);
		if (uid != 0 && (setgroups(0, NULL) < 0 || setgid(uid) < 0 || setuid(uid) < 0))
			_exit(3);
		execl("/bin/sh", "sh", "-c", command, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	n = read(p[0], out, len - 1);
	close(p[0]);
	out[n > 0 ? n : 0] = '\0';
	out[strcspn(out, "\n")] = '\0';
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void check_outside_kept(const struct scratch *s)
{
	char keep[256];
	struct stat st;

	assert_int_equal(lstat(s->outside, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0555);
	assert_int_equal(lstat(join(keep, sizeof(keep), s->outside, "keep"), &st), 0);
}

static void check_removes_all(uid_t uid)
{
	struct scratch s;
	char out[64];
	struct stat st;

	make_scratch(&s, uid);
	run_cleanup(s.base, uid, out, sizeof(out));
	assert_string_equal(out, "removed");
	assert_int_equal(lstat(s.root, &st), -1);
	assert_int_equal(errno, ENOENT);
	check_outside_kept(&s);
	drop_scratch(&s);
}

static void test_cleanup_as_root(void **state)
{
	(void)state;
	check_removes_all(0);
}

static void test_cleanup_as_owner(void **state)
{
	(void)state;
	check_removes_all(NOBODY);
}

/* What nobody cannot remove (root's 0555 directory with a file): "failed", the marker stays. */
static void test_cleanup_failure_keeps_marker(void **state)
{
	struct scratch s;
	char out[64], path[256], marker[256];
	struct stat st;

	(void)state;
	make_scratch(&s, NOBODY);
	assert_int_equal(mkdir(join(path, sizeof(path), s.root, "roots"), 0755), 0);
	touch(path, "stuck", 0644);
	assert_int_equal(chmod(path, 0555), 0);
	run_cleanup(s.base, NOBODY, out, sizeof(out));
	assert_string_equal(out, "failed");
	assert_int_equal(lstat(join(marker, sizeof(marker), s.root, AGENT_ROOT_MARKER), &st), 0);
	/* a retry once it can be removed still finds the marker */
	assert_int_equal(chmod(path, 0777), 0);
	run_cleanup(s.base, NOBODY, out, sizeof(out));
	assert_string_equal(out, "removed");
	check_outside_kept(&s);
	drop_scratch(&s);
}

/* No marker, another run's id, another user's root, a root that is a link: not ours. */
static void test_cleanup_refuses_what_is_not_this_runs(void **state)
{
	struct scratch s;
	char out[64], marker[256], link[256], links[256], file[256];
	struct stat st;

	(void)state;
	make_scratch(&s, 0);
	join(marker, sizeof(marker), s.root, AGENT_ROOT_MARKER);
	join(file, sizeof(file), s.root, "closed-file");
	/* a link to a marked root, in a parent of its own: the link is not the root */
	assert_int_equal(mkdir(join(links, sizeof(links), s.base, "links"), 0755), 0);
	assert_int_equal(symlink(s.root, join(link, sizeof(link), links, "xfercmp.link")), 0);
	run_cleanup(links, 0, out, sizeof(out));
	assert_string_equal(out, "absent");
	assert_int_equal(lstat(marker, &st), 0);
	/* another run's root, from a run that shares the parent */
	write_marker(s.root, "ffffffffffffffffffffffffffffffff");
	run_cleanup(s.base, 0, out, sizeof(out));
	assert_string_equal(out, "absent");
	assert_int_equal(lstat(file, &st), 0);
	/* the right id, in a root another user owns (root's, run as nobody) */
	write_marker(s.root, ID);
	run_cleanup(s.base, NOBODY, out, sizeof(out));
	assert_string_equal(out, "absent");
	assert_int_equal(lstat(file, &st), 0);
	/* no marker at all */
	assert_int_equal(unlink(marker), 0);
	run_cleanup(s.base, 0, out, sizeof(out));
	assert_string_equal(out, "absent");
	assert_int_equal(lstat(file, &st), 0);
	drop_scratch(&s);
}

/* A parent with quotes and spaces reaches the shell as one word; an id is hex. */
static void test_cleanup_quotes_parent(void **state)
{
	char command[2048];

	(void)state;
	assert_int_equal(ssh_target_cleanup_command("/var/tmp/a b'c;rm -rf /", ID, command, sizeof(command)), 0);
	assert_contains(command, "p='/var/tmp/a b'\\''c;rm -rf /'; id=" ID ";");
	assert_int_equal(ssh_target_cleanup_command("/var/tmp/x", ID, command, 40), -1);
	assert_int_equal(ssh_target_cleanup_command("/var/tmp/x", "0;rm -rf /", command, sizeof(command)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cleanup_as_root),
		cmocka_unit_test(test_cleanup_as_owner),
		cmocka_unit_test(test_cleanup_failure_keeps_marker),
		cmocka_unit_test(test_cleanup_refuses_what_is_not_this_runs),
		cmocka_unit_test(test_cleanup_quotes_parent),
	};

	return test_run("ssh_target", tests, ARRAY_LEN(tests), NULL, 0);
}
