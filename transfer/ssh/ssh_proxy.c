/*
 * The proxy of a session: ProxyJump made a command, and the children libssh
 * forks for a ProxyCommand kept from outliving a failed connect
 * (ssh_conn_parts.h).
 */
#define _GNU_SOURCE
#include "ssh/ssh_conn_parts.h"

#include "err.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/*
 * ProxyJump as OpenSSH runs it: its own ssh with the same config, -W to the
 * target through the last jump, the earlier ones as -J. Into buf.
 */
int ssh_proxy_jump_command(const char *config_file, const char *jump, char *buf, size_t len)
{
	const char *last = strrchr(jump, ',');
	char cfg[2200] = "";
	int n;

	if (config_file) {
		size_t k = 0;

		/* single quotes for /bin/sh, a quote inside as '\'' */
		cfg[k++] = '-', cfg[k++] = 'F', cfg[k++] = ' ', cfg[k++] = '\'';
		for (const char *c = config_file; *c && k + 6 < sizeof(cfg); c++) {
			if (*c == '\'') {
				memcpy(cfg + k, "'\\''", 4);
				k += 4;
			} else {
				cfg[k++] = *c;
			}
		}
		cfg[k++] = '\'';
		cfg[k++] = ' ';
		cfg[k] = '\0';
	}
	if (strpbrk(jump, "'\"\\$`;&|<> \t\n"))
		return err_set("ProxyJump '%s': unexpected characters in the jump host", jump);
	if (last)
		n = snprintf(buf, len, "ssh %s-J %.*s -W '[%%h]:%%p' %s", cfg, (int)(last - jump), jump,
			     last + 1);
	else
		n = snprintf(buf, len, "ssh %s-W '[%%h]:%%p' %s", cfg, jump);
	if (n < 0 || (size_t)n >= len)
		return err_set("ProxyJump '%s': the command is too long", jump);
	return 0;
}

/*
 * libssh forks a ProxyCommand (ProxyJump's ssh -W too) from the thread that
 * connects, and the child inherits that thread's mask, in which the
 * interrupt watcher blocks SIGINT, SIGTERM and SIGHUP: the proxy then
 * ignored every stop and outlived xfercmp. Every child of this process gets
 * an empty mask and SIGPIPE's default back instead.
 */
static pthread_once_t proxy_fork_once = PTHREAD_ONCE_INIT;

static void child_signal_defaults(void)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
}

static void proxy_fork_setup(void)
{
	pthread_atfork(NULL, NULL, child_signal_defaults);
}

void ssh_proxy_fork_setup(void)
{
	pthread_once(&proxy_fork_once, proxy_fork_setup);
}

/*
 * The children the calling thread forked and not yet reaped, from
 * /proc/self/task/TID/children (Linux, CONFIG_PROC_CHILDREN); 0 when it
 * cannot be read. While the thread is in ssh_connect, a new one is libssh's
 * ProxyCommand.
 */
size_t ssh_proxy_children(pid_t *pids, size_t max)
{
	char path[64], buf[1024];
	size_t n = 0, len;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/children", (long)syscall(SYS_gettid));
	if (!(f = fopen(path, "r")))
		return 0;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = '\0';
	for (char *p = buf, *end; n < max; p = end) {
		long pid = strtol(p, &end, 10);

		if (end == p)
			break;
		pids[n++] = (pid_t)pid;
	}
	return n;
}

/* Has pid (a child not reaped) exited? Its /proc stat reads state Z then. */
static int exited(pid_t pid)
{
	char path[64], buf[256], *state;
	size_t len;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if (!(f = fopen(path, "r")))
		return 1;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = '\0';
	/* "PID (COMM) STATE ...": COMM may hold anything, the last ')' ends it */
	state = strrchr(buf, ')');
	return !state || state[1] == '\0' || state[2] == 'Z' || state[2] == 'X';
}

/*
 * After a failed connect, ends the proxy children the connect started (those
 * in after, not in before): libssh sends its proxy SIGTERM and then waits for
 * it without a bound, so one that ignores SIGTERM (or inherited it ignored)
 * held the run there forever. SIGTERM, up to 1 s for it to exit, then
 * SIGKILL; libssh's own wait then reaps it at once.
 */
void ssh_proxy_end_new_children(const pid_t *before, size_t nbefore)
{
	pid_t after[SSH_PROXY_MAX_CHILDREN];
	size_t nafter = ssh_proxy_children(after, SSH_PROXY_MAX_CHILDREN);

	for (size_t i = 0; i < nafter; i++) {
		int known = 0;

		for (size_t k = 0; k < nbefore && !known; k++)
			known = after[i] == before[k];
		if (known)
			continue;
		kill(after[i], SIGTERM);
		for (int ms = 0; ms < 1000 && !exited(after[i]); ms += 20)
			nanosleep(&(struct timespec){ 0, 20 * 1000000L }, NULL);
		if (!exited(after[i]))
			kill(after[i], SIGKILL);
	}
}
