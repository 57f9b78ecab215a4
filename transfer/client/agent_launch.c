#define _GNU_SOURCE
#include "client/agent_launch.h"

#include "stream/agent_startup.h"
#include "err.h"
#include "fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LAUNCH_TIMEOUT_MS 10000

/* Reads one line from fd within timeout_ms; used for the agent's first line. */
static int read_line(int fd, char *buf, size_t len, int timeout_ms)
{
	size_t got = 0;

	while (got + 1 < len) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;
		int r = poll(&p, 1, timeout_ms);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return err_set("agent did not start within %d s", timeout_ms / 1000);
		n = read(fd, buf + got, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (buf[got] == '\n')
			break;
		got++;
	}
	buf[got] = '\0';
	return 0;
}

/* Closes whichever ends of the three pipes are open. */
static void close_pipes(int in[2], int out[2], int err_pipe[2])
{
	int *all[] = { in, out, err_pipe };

	for (size_t k = 0; k < 3; k++)
		for (int e = 0; e < 2; e++)
			if (all[k][e] >= 0)
				close(all[k][e]);
}

int agent_launch_local(struct agent_process *p, const char *root)
{
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, err_pipe[2] = { -1, -1 };
	char line[512], errbuf[512] = "";

	memset(p, 0, sizeof(*p));
	p->pid = -1;
	p->stdin_fd = -1;
	snprintf(p->host, sizeof(p->host), "127.0.0.1");
	if (wire_token_generate(p->token) < 0)
		return -1;
	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(err_pipe, O_CLOEXEC) < 0 ||
	    (p->pid = fork()) < 0) {
		err_errno("cannot start the agent");
		close_pipes(in, out, err_pipe);
		p->pid = -1;
		return -1;
	}
	if (p->pid == 0) {
		const char *argv[12];
		int a = 0;

		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(err_pipe[1], 2);
		argv[a++] = "xfercmp";
		argv[a++] = "serve";
		argv[a++] = "--listen";
		argv[a++] = "127.0.0.1:0";
		argv[a++] = "--once";
		argv[a++] = "--token-file";
		argv[a++] = "-";
		if (root) {
			argv[a++] = "--root";
			argv[a++] = root;
		}
		argv[a] = NULL;
		execv("/proc/self/exe", (char *const *)(uintptr_t)argv);
		fprintf(stderr, "cannot run the agent: %s\n", strerror(errno));
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	close(err_pipe[1]);
	p->stdin_fd = in[1];
	if (fs_write_all(p->stdin_fd, p->token, WIRE_TOKEN_HEX) < 0 ||
	    fs_write_all(p->stdin_fd, "\n", 1) < 0) {
		err_errno("cannot hand the agent its token");
		goto fail;
	}
	if (read_line(out[0], line, sizeof(line), LAUNCH_TIMEOUT_MS) < 0)
		goto fail;
	if (!line[0]) {
		/* it exited: its stderr says why */
		ssize_t n = read(err_pipe[0], errbuf, sizeof(errbuf) - 1);

		errbuf[n > 0 ? n : 0] = '\0';
		errbuf[strcspn(errbuf, "\n")] = '\0';
		err_set("agent did not start: %s", errbuf[0] ? errbuf : "it exited");
		goto fail;
	}
	if (agent_listening_parse(line, NULL, 0, p->port, sizeof(p->port)) < 0) {
		err_wrap("agent did not start");
		goto fail;
	}
	close(out[0]);
	close(err_pipe[0]);
	return 0;
fail:
	close(out[0]);
	close(err_pipe[0]);
	agent_process_stop(p);
	return -1;
}

/* How long a local agent may take to clean up and exit after its stdin closes. */
#define AGENT_STOP_WAIT_MS 60000

static int wait_exit(pid_t pid, int ms)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };

	for (int waited = 0; waited <= ms; waited += 10) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return 1;
		nanosleep(&tick, NULL);
	}
	return 0;
}

void agent_process_stop(struct agent_process *p)
{
	if (p->stdin_fd >= 0) {
		close(p->stdin_fd);
		p->stdin_fd = -1;
	}
	if (p->pid <= 0)
		return;
	/*
	 * EOF on its stdin makes the agent remove its root and exit. Removing
	 * the parked destinations takes a while: 40,000 files took over 7 s on
	 * this 2-core VM under load, and SIGTERM 5 s in left the root behind
	 * (the agent's own remover was still at work when SIGKILL came).
	 */
	if (!wait_exit(p->pid, AGENT_STOP_WAIT_MS)) {
		kill(p->pid, SIGTERM);
		if (!wait_exit(p->pid, 2000)) {
			kill(p->pid, SIGKILL);
			waitpid(p->pid, NULL, 0);
		}
	}
	p->pid = -1;
}
