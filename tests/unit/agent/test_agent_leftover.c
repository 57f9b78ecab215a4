/*
 * The copies removed after the client left (agent_leftover.c): a root
 * handed to its remover is renamed and goes without the agent, listed
 * while it goes (agent_remover_list.c); a later agent removes a leftover
 * whose remover is gone, waits for one whose remover holds it, and leaves
 * what is not a root of ours, in its own parent and, through the list, in
 * another. HOME is the test's own (base/home): the list is made there.
 */
#define _GNU_SOURCE
#include "testutil.h"

#include "agent/agent_leftover.h"
#include "agent/agent_remover_list.h"
#include "agent/agent_root.h"
#include "stream/agent_startup.h"
#include "clock.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ID "00112233445566778899aabbccddeeff"

#define SCRATCH_BASE_TAG "leftover"
#include "scratch_base.h"

#define LIST "home/.cache/xfercmp/removers"

/* base, and HOME in it: a remover lists itself in the test's own home */
static int home_setup(void **state)
{
	char home[128];

	if (base_setup(state) < 0)
		return -1;
	snprintf(home, sizeof(home), "%s/home", base);
	return mkdir(home, 0700) == 0 && setenv("HOME", home, 1) == 0 ? 0 : -1;
}

static bool exists(const char *name)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", base, name);
	return lstat(path, &st) == 0;
}

/* A root as an agent leaves it to a remover: 0700, marker, a copy with a read-only directory. */
static void make_leftover(const char *name, int files)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && mkdir -m 700 %s && cd %s && echo " ID " > " AGENT_ROOT_MARKER
		 " && mkdir -p 1-splice/d/e && for i in $(seq %d); do echo $i > 1-splice/d/f$i; done"
		 " && ln -s /etc 1-splice/link && chmod 555 1-splice/d",
		 base, name, name, files);
	assert_int_equal(system(cmd), 0);
}

static int open_parent(void)
{
	int fd = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC);

	assert_true(fd >= 0);
	return fd;
}

static void test_names(void **state)
{
	(void)state;
	assert_true(agent_leftover_name("xfercmp.aB3xY9.removing"));
	assert_false(agent_leftover_name("xfercmp.aB3xY9"));
	assert_false(agent_leftover_name("xfercmp.aB3xY.removing"));
	assert_false(agent_leftover_name("xfercmp.aB3xY9.removingx"));
	assert_false(agent_leftover_name("xfercmp.aB/xY9.removing"));
	assert_false(agent_leftover_name("xfercmp-aB3xY9.removing"));
	assert_false(agent_leftover_name(""));
}

/* Handed to its remover, the root is renamed at once and goes without this process. */
static void test_detached_removal(void **state)
{
	struct agent_root r;
	char name[64], cmd[4400];
	clock_ns t0;

	(void)state;
	assert_int_equal(agent_root_make(&r, base, ID), 0);
	snprintf(cmd, sizeof(cmd), "cd '%s' && mkdir -p a/b && touch a/b/x a/y && chmod 555 a/b", r.path);
	assert_int_equal(system(cmd), 0);
	snprintf(name, sizeof(name), "%s", r.name);
	assert_int_equal(agent_root_remove_detached(&r), 0);
	assert_false(exists(name));
	assert_true(agent_leftover_name(r.name));
	/* still held by the remover or already gone: never a free root to take */
	t0 = clock_now();
	while (exists(r.name) && clock_seconds(t0, clock_now()) < 30) {
		const struct timespec tick = { 0, 20 * 1000000L };

		nanosleep(&tick, NULL);
	}
	assert_false(exists(r.name));
	/* listed while it worked, its entry dropped when done */
	assert_true(exists(LIST));
	t0 = clock_now();
	snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A '%s/" LIST "')\"", base);
	while (system(cmd) != 0 && clock_seconds(t0, clock_now()) < 10) {
		const struct timespec tick = { 0, 20 * 1000000L };

		nanosleep(&tick, NULL);
	}
	assert_int_equal(system(cmd), 0);
	agent_root_close(&r);
}

/* A leftover whose remover is gone: removed, read-only directory and all. */
static void test_abandoned_is_finished(void **state)
{
	struct agent_leftover_progress p = { 0 };
	int pfd = open_parent();

	(void)state;
	make_leftover("xfercmp.Abc123.removing", 50);
	assert_int_equal(agent_leftovers_finish(pfd, base, "xfercmp.own000", &p), 0);
	assert_false(exists("xfercmp.Abc123.removing"));
	assert_int_equal(atomic_load(&p.roots), 1);
	/* 50 files, the link, d, e, the copy's root, the marker */
	assert_true(atomic_load(&p.removal.removed) >= 54);
	close(pfd);
}

/* What is not a root of ours stays: no marker, a link, others' mode, the own root's name. */
static void test_not_ours_stays(void **state)
{
	struct agent_leftover_progress p = { 0 };
	char cmd[512];
	int pfd = open_parent();

	(void)state;
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && mkdir -m 700 xfercmp.NoMark.removing && touch xfercmp.NoMark.removing/keep && "
		 "mkdir -m 755 xfercmp.Open00.removing && echo " ID " > xfercmp.Open00.removing/" AGENT_ROOT_MARKER
		 " && mkdir -m 700 target && echo " ID " > target/" AGENT_ROOT_MARKER
		 " && ln -s target xfercmp.Link00.removing", base);
	assert_int_equal(system(cmd), 0);
	make_leftover("xfercmp.Own000.removing", 2);
	assert_int_equal(agent_leftovers_finish(pfd, base, "xfercmp.Own000.removing", &p), 0);
	assert_true(exists("xfercmp.NoMark.removing/keep"));
	assert_true(exists("xfercmp.Open00.removing"));
	assert_true(exists("xfercmp.Link00.removing"));
	assert_true(exists("target/" AGENT_ROOT_MARKER));
	assert_true(exists("xfercmp.Own000.removing"));
	assert_int_equal(atomic_load(&p.roots), 0);
	close(pfd);
}

struct holder {
	int fd;
	int hold_ms;
};

static void *release_later(void *arg)
{
	struct holder *h = arg;
	const struct timespec t = { h->hold_ms / 1000, (h->hold_ms % 1000) * 1000000L };

	nanosleep(&t, NULL);
	close(h->fd);
	return NULL;
}

/* A leftover whose remover holds its lock is waited for, then finished. */
static void test_held_is_waited_for(void **state)
{
	struct agent_leftover_progress p = { 0 };
	char path[256];
	struct holder h = { .hold_ms = 600 };
	pthread_t t;
	clock_ns t0;
	int pfd = open_parent();

	(void)state;
	make_leftover("xfercmp.Held00.removing", 5);
	snprintf(path, sizeof(path), "%s/xfercmp.Held00.removing", base);
	h.fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(h.fd >= 0);
	assert_int_equal(flock(h.fd, LOCK_EX), 0);
	t0 = clock_now();
	assert_int_equal(pthread_create(&t, NULL, release_later, &h), 0);
	assert_int_equal(agent_leftovers_finish(pfd, base, "", &p), 0);
	/* it cannot have taken the root before the lock was let go */
	assert_true(clock_seconds(t0, clock_now()) >= 0.5);
	pthread_join(t, NULL);
	assert_false(exists("xfercmp.Held00.removing"));
	assert_int_equal(atomic_load(&p.waiting), 0);
	close(pfd);
}

/* An entry of the list naming root path (relative to base), its remover gone. */
static void list_entry(const char *entry, const char *root)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "mkdir -p -m 700 '%s/" LIST "' && printf '%%s' '%s/%s' > '%s/" LIST "/%s'",
		 base, base, root, base, entry);
	assert_int_equal(system(cmd), 0);
}

/* A remover that died in another parent: the list leads to its root, which goes; so does its entry. */
static void test_listed_elsewhere_finished(void **state)
{
	struct agent_leftover_progress p = { 0 };
	char cmd[256];

	(void)state;
	snprintf(cmd, sizeof(cmd), "mkdir -m 755 '%s/other'", base);
	assert_int_equal(system(cmd), 0);
	make_leftover("other/xfercmp.Else00.removing", 20);
	list_entry("1-2", "other/xfercmp.Else00.removing");
	/* and what the list names that is not ours, or not a remover's root, stays */
	snprintf(cmd, sizeof(cmd), "cd '%s/other' && mkdir -m 700 xfercmp.NoMk00.removing xfercmp.Plain0", base);
	assert_int_equal(system(cmd), 0);
	list_entry("3-4", "other/xfercmp.NoMk00.removing");
	list_entry("5-6", "other/xfercmp.Plain0");
	assert_int_equal(agent_remover_list_finish(&p), 0);
	assert_false(exists("other/xfercmp.Else00.removing"));
	assert_int_equal(atomic_load(&p.roots), 1);
	assert_true(atomic_load(&p.removal.removed) >= 24);
	assert_true(exists("other/xfercmp.NoMk00.removing"));
	assert_true(exists("other/xfercmp.Plain0"));
	assert_false(exists(LIST "/1-2"));
	assert_false(exists(LIST "/3-4"));
	assert_false(exists(LIST "/5-6"));
}

/* A listed remover at work: waited for until it has removed its root and its entry. */
struct remover {
	int fd;
	char root[160], entry[160];
};

static void *remove_later(void *arg)
{
	struct remover *m = arg;
	const struct timespec t = { 0, 600 * 1000000L };
	char cmd[512];

	nanosleep(&t, NULL);
	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx '%s' && rm -rf '%s'", m->root, m->root);
	if (system(cmd) == 0)
		unlink(m->entry);
	close(m->fd);
	return NULL;
}

static void test_listed_held_waited_for(void **state)
{
	struct agent_leftover_progress p = { 0 };
	struct remover m;
	pthread_t t;
	clock_ns t0;

	(void)state;
	make_leftover("xfercmp.Busy00.removing", 5);
	list_entry("7-8", "xfercmp.Busy00.removing");
	snprintf(m.root, sizeof(m.root), "%s/xfercmp.Busy00.removing", base);
	snprintf(m.entry, sizeof(m.entry), "%s/" LIST "/7-8", base);
	m.fd = open(m.entry, O_RDONLY | O_CLOEXEC);
	assert_true(m.fd >= 0);
	assert_int_equal(flock(m.fd, LOCK_EX), 0);
	t0 = clock_now();
	assert_int_equal(pthread_create(&t, NULL, remove_later, &m), 0);
	assert_int_equal(agent_remover_list_finish(&p), 0);
	assert_true(clock_seconds(t0, clock_now()) >= 0.5);
	pthread_join(t, NULL);
	assert_false(exists("xfercmp.Busy00.removing"));
	assert_false(exists(LIST "/7-8"));
	/* none of it was the waiter's to remove */
	assert_int_equal(atomic_load(&p.removal.removed), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test_setup_teardown(test_detached_removal, home_setup, base_teardown),
		cmocka_unit_test_setup_teardown(test_abandoned_is_finished, base_setup, base_teardown),
		cmocka_unit_test_setup_teardown(test_not_ours_stays, base_setup, base_teardown),
		cmocka_unit_test_setup_teardown(test_held_is_waited_for, base_setup, base_teardown),
		cmocka_unit_test_setup_teardown(test_listed_elsewhere_finished, home_setup, base_teardown),
		cmocka_unit_test_setup_teardown(test_listed_held_waited_for, home_setup, base_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
