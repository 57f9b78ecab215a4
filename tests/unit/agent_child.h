/*
 * A real agent for unit tests (header only, as testutil.h): `xfercmp serve
 * --once` in a child process on loopback, its parent directory made by
 * test_mkdtemp, its token TEST_AGENT_TOKEN. Include after testutil.h.
 * Used by tests/unit/agent/test_agent_session.c and tests/unit/run/test_runner.c.
 */
#ifndef XFERCMP_AGENT_CHILD_H
#define XFERCMP_AGENT_CHILD_H

#include "agent/agent.h"
#include "err.h"
#include "stream/agent_startup.h"

#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define TEST_AGENT_TOKEN "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

struct agent_child {
	char base[128], root[160], token_file[160], host[64], port[16];
	pid_t pid;
	int session_idle_s;	/* 0: the agent's default */
};

/* Starts the agent on listen (127.0.0.1:0 when NULL); a->host and a->port say where it listens. */
static inline void agent_child_start_on(struct agent_child *a, const char *listen)
{
	char line[256];
	int out[2];
	FILE *f;

	test_mkdtemp(a->base, sizeof(a->base), "xfercmp-session");
	snprintf(a->root, sizeof(a->root), "%s/root", a->base);
	snprintf(a->token_file, sizeof(a->token_file), "%s/token", a->base);
	f = fopen(a->token_file, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", TEST_AGENT_TOKEN);
	fclose(f);
	/* as a token file should be: readable by its owner alone */
	assert_int_equal(chmod(a->token_file, 0600), 0);
	assert_int_equal(pipe(out), 0);
	a->pid = fork();
	assert_true(a->pid >= 0);
	if (a->pid == 0) {
		/* no cmocka here: the child only serves */
		struct agent_opts o = {
			.listen = listen ? listen : "127.0.0.1:0", .root = a->root, .token_file = a->token_file,
			.once = 1, .idle_timeout_s = 60, .session_idle_s = a->session_idle_s,
		};

		dup2(out[1], 1);
		close(out[0]);
		close(out[1]);
		if (agent_serve(&o) < 0) {
			fprintf(stderr, "agent: %s\n", err_msg());
			_exit(1);
		}
		_exit(0);
	}
	close(out[1]);
	f = fdopen(out[0], "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	assert_int_equal(agent_listening_parse(line, a->host, sizeof(a->host), a->port, sizeof(a->port)), 0);
}

static inline void agent_child_start(struct agent_child *a)
{
	agent_child_start_on(a, NULL);
}

/* Waits for the agent to end its --once session; it must exit 0 and leave no root. */
static inline void agent_child_wait_keep_base(struct agent_child *a)
{
	int status;

	assert_int_equal(waitpid(a->pid, &status, 0), a->pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* the root went, and the parent the agent made for it */
	assert_int_equal(access(a->root, F_OK), -1);
}

#endif
