/*
 * Unit tests for the agent cache's check without SFTP (agent_upload.h):
 * agent_cache_script's text is run here by /bin/sh, as the host's shell
 * would, with HOME set to a scratch directory, and agent_cache_ready reads
 * its lines. The copy is ready only as agent_upload would leave it: both
 * directories ours and tight, the copy of this SHA-256, nothing to prune.
 * Anything else sends the run to the upload path, which fixes or refuses.
 */
#define _GNU_SOURCE
#include "testutil.h"

#include "client/agent_upload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NAME "xfercmp-agent-0.1.0-p6-00000000deadbeef"
#define CONTENT "agent"

struct home {
	char dir[128], cache[192], ours[256], copy[384];
	struct agent_local agent;
};

/* The SHA-256 of CONTENT, computed by the same sha256sum the script runs (no constant to get wrong). */
static void content_sha256(char out[65])
{
	FILE *p = popen("printf '" CONTENT "' | sha256sum", "r");
	char line[128] = "";

	assert_non_null(p);
	assert_non_null(fgets(line, sizeof(line), p));
	pclose(p);
	assert_true(strlen(line) > 64);
	memcpy(out, line, 64);
	out[64] = '\0';
}

/* A home as a run that uploaded the agent leaves it: ~/.cache 0755, ~/.cache/xfercmp 0700, the copy. */
static void home_make(struct home *h)
{
	memset(h, 0, sizeof(*h));
	test_mkdtemp(h->dir, sizeof(h->dir), "agent-cache");
	snprintf(h->cache, sizeof(h->cache), "%s/.cache", h->dir);
	snprintf(h->ours, sizeof(h->ours), "%s/xfercmp", h->cache);
	snprintf(h->copy, sizeof(h->copy), "%s/" NAME, h->ours);
	assert_int_equal(mkdir(h->cache, 0755), 0);
	assert_int_equal(mkdir(h->ours, 0700), 0);
	test_put_file(h->copy, CONTENT, 0700);
	snprintf(h->agent.name, sizeof(h->agent.name), "%s", NAME);
	content_sha256(h->agent.sha256);
}

static void home_remove(struct home *h)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", h->dir);
	assert_int_equal(system(cmd), 0);
}

/* Runs the script with HOME at h and asks whether the copy is ready for uid. */
static bool ready(struct home *h, long uid)
{
	char script[2048], lines[AGENT_CACHE_LINES][512];
	FILE *p;

	assert_int_equal(agent_cache_script(&h->agent, script, sizeof(script)), 0);
	assert_int_equal(setenv("HOME", h->dir, 1), 0);
	p = popen(script, "r");
	assert_non_null(p);
	for (int i = 0; i < AGENT_CACHE_LINES; i++) {
		if (!fgets(lines[i], sizeof(lines[i]), p))
			lines[i][0] = '\0';
		lines[i][strcspn(lines[i], "\n")] = '\0';
	}
	assert_int_equal(pclose(p), 0);
	return agent_cache_ready(&h->agent, lines, uid);
}

static void test_ready_as_uploaded(void **state)
{
	struct home h;

	(void)state;
	home_make(&h);
	assert_true(ready(&h, (long)getuid()));
	/* an unknown uid on the host: the owner is not checked, as the upload's check does not */
	assert_true(ready(&h, -1));
	/* two more cached agents, three in all: what the prune keeps */
	snprintf(h.copy, sizeof(h.copy), "%s/xfercmp-agent-0.0.9-p5-0000000000000001", h.ours);
	test_put_file(h.copy, "old", 0700);
	snprintf(h.copy, sizeof(h.copy), "%s/xfercmp-agent-0.0.9-p5-0000000000000002", h.ours);
	test_put_file(h.copy, "older", 0700);
	assert_true(ready(&h, (long)getuid()));
	home_remove(&h);
}

static void test_not_ready_without_the_copy(void **state)
{
	struct home h;

	(void)state;
	home_make(&h);
	/* another content under the name */
	test_put_file(h.copy, "changed", 0700);
	assert_false(ready(&h, (long)getuid()));
	/* no copy */
	assert_int_equal(unlink(h.copy), 0);
	assert_false(ready(&h, (long)getuid()));
	/* no cache at all */
	home_remove(&h);
	assert_false(ready(&h, (long)getuid()));
}

static void test_not_ready_when_a_directory_needs_fixing(void **state)
{
	struct home h;
	char moved[300];

	(void)state;
	home_make(&h);
	/* another owner */
	assert_false(ready(&h, (long)getuid() + 1));
	/* ~/.cache/xfercmp readable by others: made 0700 by the upload's path */
	assert_int_equal(chmod(h.ours, 0755), 0);
	assert_false(ready(&h, (long)getuid()));
	assert_int_equal(chmod(h.ours, 0700), 0);
	/* ~/.cache writable by the group */
	assert_int_equal(chmod(h.cache, 0775), 0);
	assert_false(ready(&h, (long)getuid()));
	assert_int_equal(chmod(h.cache, 0755), 0);
	assert_true(ready(&h, (long)getuid()));
	/* ~/.cache/xfercmp a link to a directory holding the copy: refused by the upload's path */
	snprintf(moved, sizeof(moved), "%s/elsewhere", h.dir);
	assert_int_equal(rename(h.ours, moved), 0);
	assert_int_equal(symlink(moved, h.ours), 0);
	assert_false(ready(&h, (long)getuid()));
	home_remove(&h);
}

static void test_not_ready_when_the_prune_has_work(void **state)
{
	struct home h;
	char path[400];

	(void)state;
	home_make(&h);
	/* an upload left over */
	snprintf(path, sizeof(path), "%s/" NAME ".tmp4242", h.ours);
	test_put_file(path, "part", 0600);
	assert_false(ready(&h, (long)getuid()));
	assert_int_equal(unlink(path), 0);
	/* four cached agents: one more than the prune keeps */
	for (int i = 1; i <= 3; i++) {
		snprintf(path, sizeof(path), "%s/xfercmp-agent-0.0.%d-p5-000000000000000%d", h.ours, i, i);
		test_put_file(path, "old", 0700);
	}
	assert_false(ready(&h, (long)getuid()));
	home_remove(&h);
}

static void test_lines_it_does_not_know(void **state)
{
	struct home h;
	char lines[AGENT_CACHE_LINES][512];

	(void)state;
	memset(&h, 0, sizeof(h));
	snprintf(h.agent.name, sizeof(h.agent.name), "%s", NAME);
	memset(h.agent.sha256, 'a', 64);
	snprintf(lines[0], sizeof(lines[0]), "directory|0|755");
	snprintf(lines[1], sizeof(lines[1]), "directory|0|700");
	snprintf(lines[2], sizeof(lines[2]), "%.64s  -", h.agent.sha256);
	snprintf(lines[3], sizeof(lines[3]), "1 0");
	assert_true(agent_cache_ready(&h.agent, lines, 0));
	/* each line wrong in turn, or cut short */
	snprintf(lines[0], sizeof(lines[0]), "missing");
	assert_false(agent_cache_ready(&h.agent, lines, 0));
	snprintf(lines[0], sizeof(lines[0]), "directory|0|");
	assert_false(agent_cache_ready(&h.agent, lines, 0));
	snprintf(lines[0], sizeof(lines[0]), "directory|0|755");
	snprintf(lines[1], sizeof(lines[1]), "symbolic link|0|777");
	assert_false(agent_cache_ready(&h.agent, lines, 0));
	snprintf(lines[1], sizeof(lines[1]), "directory|0|700");
	snprintf(lines[2], sizeof(lines[2]), "%.63s", h.agent.sha256);
	assert_false(agent_cache_ready(&h.agent, lines, 0));
	snprintf(lines[2], sizeof(lines[2]), "%.64sb  -", h.agent.sha256);
	assert_false(agent_cache_ready(&h.agent, lines, 0));
	snprintf(lines[2], sizeof(lines[2]), "%.64s  -", h.agent.sha256);
	snprintf(lines[3], sizeof(lines[3]), "1");
	assert_false(agent_cache_ready(&h.agent, lines, 0));
	snprintf(lines[3], sizeof(lines[3]), "1 0 x");
	assert_false(agent_cache_ready(&h.agent, lines, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ready_as_uploaded),
		cmocka_unit_test(test_not_ready_without_the_copy),
		cmocka_unit_test(test_not_ready_when_a_directory_needs_fixing),
		cmocka_unit_test(test_not_ready_when_the_prune_has_work),
		cmocka_unit_test(test_lines_it_does_not_know),
	};

	return test_run("agent_cache", tests, ARRAY_LEN(tests), NULL, 0);
}
