/*
 * The copies removed after the client left (agent_leftover.c): a root
 * handed to its remover is renamed and goes without the agent; a later
 * agent removes a leftover whose remover is gone, waits for one whose
 * remover holds it, and leaves what is not a root of ours.
 */
#define _GNU_SOURCE
#include "testutil.h"

#include "agent/agent_leftover.h"
#include "agent/agent_root.h"
#include "stream/agent_startup.h"
#include "clock.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ID "00112233445566778899aabbccddeeff"

#define SCRATCH_BASE_TAG "leftover"
#include "scratch_base.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test_setup_teardown(test_detached_removal, base_setup, base_teardown),
		cmocka_unit_test_setup_teardown(test_abandoned_is_finished, base_setup, base_teardown),
		cmocka_unit_test_setup_teardown(test_not_ours_stays, base_setup, base_teardown),
		cmocka_unit_test_setup_teardown(test_held_is_waited_for, base_setup, base_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
