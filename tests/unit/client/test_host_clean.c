/*
 * Unit tests for `xfercmp clean` (client/host_clean.c): the script run here
 * for HOST "local" with HOME and the scratch base (XFERCMP_SCRATCH) in a
 * directory of the test's, so nothing of this machine's is looked at. It
 * removes the cached agents and a marked root of ours (a read-only directory
 * in it included), and leaves what is not ours: a root with no marker, with
 * a marker that is not a session id or is a link, another user's, a link
 * named like a root, a link in the cache; a root this process holds open is
 * left as in use until it is closed, and without GNU find (which tells)
 * none is removed. The script's lines are parsed strictly.
 */
#define _GNU_SOURCE
#include "testutil.h"

#include "client/host_clean.h"
#include "stream/agent_startup.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#define ID "0123456789abcdef0123456789abcdef"
#define NOBODY 65534

static char base[64];

static const char *at(const char *rel)
{
	static char buf[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", base, rel);
	return buf[i];
}

/* A root named name in the scratch base, with marker text (NULL: none). */
static void make_root(const char *name, const char *marker)
{
	char path[256], m[300];

	snprintf(path, sizeof(path), "scratch/%s", name);
	assert_int_equal(mkdir(at(path), 0700), 0);
	if (marker) {
		snprintf(m, sizeof(m), "%s/" AGENT_ROOT_MARKER, at(path));
		test_put_file(m, marker, 0600);
	}
}

struct seen {
	unsigned n;
	struct host_clean_item items[32];
};

static void collect(void *ctx, const struct host_clean_item *it)
{
	struct seen *s = ctx;

	if (s->n < ARRAY_LEN(s->items))
		s->items[s->n++] = *it;
}

/* The item whose path ends in name; fails when there is none. */
static const struct host_clean_item *item(const struct seen *s, const char *name)
{
	size_t k = strlen(name);

	for (unsigned i = 0; i < s->n; i++) {
		size_t n = strlen(s->items[i].path);

		if (n >= k && !strcmp(s->items[i].path + n - k, name))
			return &s->items[i];
	}
	print_error("no item for '%s' among %u\n", name, s->n);
	fail();
	return NULL;
}

static int run_clean(struct seen *s, struct host_clean_counts *c)
{
	struct host_clean_opts o = { .conn = { .target = "local" } };

	memset(s, 0, sizeof(*s));
	return host_clean_run(&o, collect, s, c);
}

static void test_clean_local(void **state)
{
	struct host_clean_counts c;
	struct seen s;
	struct stat st;
	char ro[300];
	int held;

	(void)state;
	snprintf(base, sizeof(base), "/tmp/xfercmp-clean-XXXXXX");
	assert_non_null(mkdtemp(base));
	setenv("HOME", at("home"), 1);
	setenv("XFERCMP_SCRATCH", at("scratch"), 1);
	assert_int_equal(mkdir(at("home"), 0700), 0);
	assert_int_equal(mkdir(at("home/.cache"), 0700), 0);
	assert_int_equal(mkdir(at("home/.cache/xfercmp"), 0700), 0);
	assert_int_equal(mkdir(at("scratch"), 0755), 0);
	test_put_file(at("home/.cache/xfercmp/xfercmp-agent-0.1.0-p2-00000000000000aa"), "0123456789", 0755);
	test_put_file(at("home/.cache/xfercmp/xfercmp-agent-0.1.0-p2-00000000000000aa.tmp42"), "01234", 0600);
	test_put_file(at("precious"), ID "\n", 0644);
	assert_int_equal(symlink(at("precious"), at("home/.cache/xfercmp/xfercmp-agent-link")), 0);
	/* ours: a marked root with a read-only directory in it */
	make_root("xfercmp.Ours01", ID "\n");
	snprintf(ro, sizeof(ro), "%s/ro", at("scratch/xfercmp.Ours01"));
	assert_int_equal(mkdir(ro, 0755), 0);
	test_put_file(at("scratch/xfercmp.Ours01/ro/f"), "data", 0444);
	assert_int_equal(chmod(ro, 0555), 0);
	/* not ours */
	make_root("xfercmp.NoMrk1", NULL);
	make_root("xfercmp.BadMrk", "hello\n");
	make_root("xfercmp.TwoIds", ID "\n" ID "\n");
	make_root("xfercmp.LnkMrk", NULL);
	assert_int_equal(symlink(at("precious"), at("scratch/xfercmp.LnkMrk/" AGENT_ROOT_MARKER)), 0);
	make_root("xfercmp.Other1", ID "\n");
	assert_int_equal(chown(at("scratch/xfercmp.Other1/" AGENT_ROOT_MARKER), NOBODY, NOBODY), 0);
	assert_int_equal(chown(at("scratch/xfercmp.Other1"), NOBODY, NOBODY), 0);
	assert_int_equal(mkdir(at("elsewhere"), 0700), 0);
	test_put_file(at("elsewhere/" AGENT_ROOT_MARKER), ID "\n", 0600);
	assert_int_equal(symlink(at("elsewhere"), at("scratch/xfercmp.Link01")), 0);
	/* ours, but held open as a running agent holds its root */
	make_root("xfercmp.InUse1", ID "\n");
	held = open(at("scratch/xfercmp.InUse1"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(held >= 0);

	assert_int_equal(run_clean(&s, &c), 0);
	assert_int_equal(item(&s, "-00000000000000aa")->state, HOST_CLEAN_REMOVED);
	assert_int_equal(item(&s, "-00000000000000aa")->bytes, 10);
	assert_int_equal(item(&s, "aa.tmp42")->state, HOST_CLEAN_REMOVED);
	assert_int_equal(item(&s, "xfercmp-agent-link")->state, HOST_CLEAN_NOT_OURS);
	assert_int_equal(item(&s, "xfercmp.Ours01")->state, HOST_CLEAN_REMOVED);
	assert_true(item(&s, "xfercmp.Ours01")->bytes >= 4096);
	assert_int_equal(item(&s, "xfercmp.NoMrk1")->state, HOST_CLEAN_NOT_OURS);
	assert_string_equal(item(&s, "xfercmp.NoMrk1")->why, "no xfercmp marker in it");
	assert_int_equal(item(&s, "xfercmp.BadMrk")->state, HOST_CLEAN_NOT_OURS);
	assert_int_equal(item(&s, "xfercmp.TwoIds")->state, HOST_CLEAN_NOT_OURS);
	assert_int_equal(item(&s, "xfercmp.LnkMrk")->state, HOST_CLEAN_NOT_OURS);
	assert_int_equal(item(&s, "xfercmp.Other1")->state, HOST_CLEAN_NOT_OURS);
	assert_string_equal(item(&s, "xfercmp.Other1")->why, "owned by another user");
	assert_int_equal(item(&s, "xfercmp.Link01")->state, HOST_CLEAN_NOT_OURS);
	assert_int_equal(item(&s, "xfercmp.InUse1")->state, HOST_CLEAN_IN_USE);
	assert_int_equal(item(&s, "xfercmp.InUse1")->pid, getpid());
	assert_int_equal(c.removed, 3);
	assert_int_equal(c.left_ours, 1);
	assert_int_equal(c.not_ours, 7);
	/* what was removed is gone, the rest is all there */
	assert_int_equal(lstat(at("scratch/xfercmp.Ours01"), &st), -1);
	assert_int_equal(lstat(at("home/.cache/xfercmp/xfercmp-agent-0.1.0-p2-00000000000000aa"), &st), -1);
	assert_int_equal(stat(at("precious"), &st), 0);
	assert_int_equal(stat(at("elsewhere/" AGENT_ROOT_MARKER), &st), 0);
	assert_int_equal(stat(at("scratch/xfercmp.NoMrk1"), &st), 0);
	assert_int_equal(stat(at("scratch/xfercmp.Other1/" AGENT_ROOT_MARKER), &st), 0);
	assert_int_equal(stat(at("scratch/xfercmp.InUse1/" AGENT_ROOT_MARKER), &st), 0);

	/* closed, it goes; then nothing of ours is left */
	close(held);
	assert_int_equal(run_clean(&s, &c), 0);
	assert_int_equal(item(&s, "xfercmp.InUse1")->state, HOST_CLEAN_REMOVED);
	assert_int_equal(c.removed, 1);
	assert_int_equal(run_clean(&s, &c), 0);
	assert_int_equal(c.removed + c.left_ours, 0);
	assert_int_equal(c.not_ours, 7);
	{
		char cmd[256];

		snprintf(cmd, sizeof(cmd), "chmod -R u+rwx '%s' && rm -rf '%s'", base, base);
		assert_int_equal(system(cmd), 0);
	}
}

/*
 * A host whose find has no -printf (busybox): no root can be told in use or
 * not, so none is removed; each is said not removed, with why.
 */
static void test_clean_without_gnu_find(void **state)
{
	const char *path = getenv("PATH");
	char newpath[4096], cmd[256];
	struct host_clean_counts c;
	struct seen s;
	struct stat st;

	(void)state;
	snprintf(base, sizeof(base), "/tmp/xfercmp-clean-XXXXXX");
	assert_non_null(mkdtemp(base));
	setenv("HOME", at("home"), 1);
	setenv("XFERCMP_SCRATCH", at("scratch"), 1);
	assert_int_equal(mkdir(at("home"), 0700), 0);
	assert_int_equal(mkdir(at("scratch"), 0755), 0);
	assert_int_equal(mkdir(at("bin"), 0755), 0);
	test_put_file(at("bin/find"), "#!/bin/sh\nfor a; do [ \"$a\" = -printf ] && { echo 'find: unknown predicate' >&2; "
			    "exit 1; }; done\nexec /usr/bin/find \"$@\"\n", 0755);
	make_root("xfercmp.Ours02", ID "\n");
	snprintf(newpath, sizeof(newpath), "%s:%s", at("bin"), path ? path : "/usr/bin:/bin");
	setenv("PATH", newpath, 1);
	assert_int_equal(run_clean(&s, &c), 0);
	setenv("PATH", path ? path : "/usr/bin:/bin", 1);
	assert_int_equal(item(&s, "xfercmp.Ours02")->state, HOST_CLEAN_FAILED);
	assert_contains(item(&s, "xfercmp.Ours02")->why, "no GNU find");
	assert_int_equal(c.removed, 0);
	assert_int_equal(c.left_ours, 1);
	assert_int_equal(stat(at("scratch/xfercmp.Ours02/" AGENT_ROOT_MARKER), &st), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	assert_int_equal(system(cmd), 0);
}

static void test_parse(void **state)
{
	struct host_clean_item it;
	char text[3000];

	(void)state;
	assert_int_equal(host_clean_parse("R\troot\t4096\t/var/tmp/xfercmp.a\tb", &it), 1);
	assert_int_equal(it.kind, HOST_CLEAN_ROOT);
	assert_int_equal(it.state, HOST_CLEAN_REMOVED);
	assert_int_equal(it.bytes, 4096);
	assert_string_equal(it.path, "/var/tmp/xfercmp.a\tb");
	host_clean_item_text(&it, text, sizeof(text));
	assert_string_equal(text, "removed /var/tmp/xfercmp.a\tb (a scratch root, 4.00 KiB)");
	assert_int_equal(host_clean_parse("U\tagent\t77\t/h/.cache/xfercmp/xfercmp-agent-1", &it), 1);
	assert_int_equal(it.state, HOST_CLEAN_IN_USE);
	assert_int_equal(it.pid, 77);
	host_clean_item_text(&it, text, sizeof(text));
	assert_contains(text, "in use by process 77");
	assert_int_equal(host_clean_parse("F\troot\tcannot remove all of it\t/r/xfercmp.x", &it), 1);
	assert_int_equal(it.state, HOST_CLEAN_FAILED);
	assert_string_equal(it.why, "cannot remove all of it");
	host_clean_item_text(&it, text, sizeof(text));
	assert_contains(text, "remove it with: chmod -R u+rwx '/r/xfercmp.x' && rm -rf '/r/xfercmp.x'");
	assert_int_equal(host_clean_parse("L\troot\towned by another user\t/r/xfercmp.y", &it), 1);
	host_clean_item_text(&it, text, sizeof(text));
	assert_string_equal(text, "left /r/xfercmp.y (owned by another user)");
	assert_int_equal(host_clean_parse("E", &it), 0);
	assert_int_equal(host_clean_parse("", &it), -1);
	assert_int_equal(host_clean_parse("R\troot\tmany\t/x", &it), -1);
	assert_int_equal(host_clean_parse("R\tfile\t1\t/x", &it), -1);
	assert_int_equal(host_clean_parse("X\troot\t1\t/x", &it), -1);
	assert_int_equal(host_clean_parse("R\troot\t1", &it), -1);
}

/* Each parent once, quoted for the shell: a parent's name never runs as a command. */
static void test_script(void **state)
{
	const char *parents[] = { "/var/tmp", "/data/a b'c;touch /tmp/x", "/var/tmp" };
	char buf[16384];

	(void)state;
	assert_int_equal(host_clean_script(parents, 3, buf, sizeof(buf)), 0);
	assert_contains(buf, "p='/data/a b'\\''c;touch /tmp/x';");
	assert_non_null(strstr(buf, "p='/var/tmp';"));
	assert_null(strstr(strstr(buf, "p='/var/tmp';") + 1, "p='/var/tmp';"));
	assert_int_equal(host_clean_script(parents, 3, buf, 600), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_script),
		cmocka_unit_test(test_clean_local),
		cmocka_unit_test(test_clean_without_gnu_find),
	};

	return test_run("host_clean", tests, ARRAY_LEN(tests), NULL, 0);
}
