/*
 * What the agent session tests share: a real agent in a child process on
 * loopback, its destinations counted, a destination prepared and cleaned up.
 */
#ifndef XFERCMP_TEST_AGENT_SESSION_FIXTURE_H
#define XFERCMP_TEST_AGENT_SESSION_FIXTURE_H

#include "testutil.h"
#include "seal_testutil.h"

#include "agent_child.h"
#include "agent/agent.h"
#include "client/agent_client.h"
#include "client/agent_remove.h"
#include "client/raw_stream.h"
#include "fsutil.h"
#include "manifest.h"
#include "stream/frames.h"
#include "stream/seal.h"
#include "tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>


#define TOKEN TEST_AGENT_TOKEN

static inline int destinations(const char *root);

/* agent_child_wait_keep_base, and only the token is left in the base, which goes. */
static inline void agent_child_wait(struct agent_child *a)
{
	agent_child_wait_keep_base(a);
	assert_int_equal(destinations(a->base), 1);
	assert_int_equal(fs_remove_tree(a->base), 0);
}

/* Destination directories in the root (everything but the marker file). */
static inline int destinations(const char *root)
{
	DIR *d = opendir(root);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static inline uint64_t prepare(struct agent_client *c)
{
	char dest[4096], fs[32];
	uint64_t job = 0;
	int rc;

	/* fails, too, when the reply lacks the job */
	rc = agent_client_prepare(c, "splice", &job, dest, sizeof(dest), fs, sizeof(fs));
	if (rc < 0)
		print_error("prepare: %s\n", err_msg());
	assert_int_equal(rc, 0);
	assert_true(job != 0);
	return job;
}

/* Returns whether the agent parked the destination rather than removed it. */
static inline bool cleanup(struct agent_client *c, uint64_t job)
{
	bool was_parked = false;

	assert_int_equal(agent_client_cleanup(c, job, &was_parked), 0);
	return was_parked;
}

#endif
