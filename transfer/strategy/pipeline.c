/*
 * The pipeline runner (pipeline.h): fork/exec, the pipes between the
 * stages, their stderr, and the message when one fails.
 */
#define _GNU_SOURCE
#include "strategy/pipeline.h"

#include "err.h"
#include "text_escape.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define POLL_MS 200

/* The process group of the pipeline running now (0: none), for pipeline_stop_running. */
static atomic_int running_group;

void pipeline_stop_running(void)
{
	int pgid = atomic_load(&running_group);

	if (pgid > 0)
		kill(-pgid, SIGTERM);
}

/* Finds program in $PATH. Returns 1 with its path in path, 0 if absent. */
int pipeline_which(const char *program, char *path, size_t len)
{
	const char *dirs = getenv("PATH");
	struct stat st;

	if (!dirs || !*dirs)
		dirs = "/usr/local/bin:/usr/bin:/bin";
	while (*dirs) {
		size_t n = strcspn(dirs, ":");

		/* an empty entry (the current directory, to execvp) is skipped */
		if (n > 0 && (size_t)snprintf(path, len, "%.*s/%s", (int)n, dirs, program) < len &&
		    stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0)
			return 1;
		dirs += n;
		if (*dirs == ':')
			dirs++;
	}
	return 0;
}

void pipeline_arg(struct pipeline_argv *a, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (a->failed)
		return;
	if (a->n + 2 > a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 16;
		char **v = realloc(a->v, cap * sizeof(*v));

		if (!v) {
			a->failed = 1;
			return;
		}
		a->v = v;
		a->cap = cap;
	}
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		a->failed = 1;
	else
		a->v[a->n++] = s;
	va_end(ap);
	if (a->v)
		a->v[a->n] = NULL;
}

void pipeline_argv_free(struct pipeline_argv *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	memset(a, 0, sizeof(*a));
}

static const char *stage_label(const struct pipeline_stage *s)
{
	return s->label ? s->label : s->argv.v[0];
}

static int stage_ok(const struct pipeline_stage *s)
{
	return WIFEXITED(s->status) && WEXITSTATUS(s->status) == 0;
}

/* A failure caused by the next stage dying first: SIGPIPE, or EPIPE reported. */
static int stage_secondary(const struct pipeline_stage *s)
{
	return (WIFSIGNALED(s->status) && WTERMSIG(s->status) == SIGPIPE) ||
	       strstr(s->err, "Broken pipe");
}

/* The first line of the stage's stderr that is not blank, into buf. */
static void stage_first_line(const struct pipeline_stage *s, char *buf, size_t len)
{
	const char *p = s->err;

	buf[0] = '\0';
	while (*p) {
		size_t n = strcspn(p, "\n");
		size_t skip = strspn(p, " \t\r");

		if (skip < n) {
			while (n > skip && (p[n - 1] == '\r' || p[n - 1] == ' '))
				n--;
			snprintf(buf, len, "%.*s", (int)(n - skip), p + skip);
			/* a remote tool's words (ssh carries the host's stderr): shown as text */
			text_escape_inplace(buf, len);
			return;
		}
		p += n;
		if (*p)
			p++;
	}
}

/* Sets the error for a failed stage: who, how it ended, what it said. Returns -1. */
static int stage_error(const struct pipeline_stage *s)
{
	char line[400];

	stage_first_line(s, line, sizeof(line));
	if (WIFSIGNALED(s->status)) {
		const char *sig = sigabbrev_np(WTERMSIG(s->status));

		return err_set("%s killed by signal %s%s%s", stage_label(s), sig ? sig : "?",
			       line[0] ? ": " : "", line);
	}
	if (line[0])
		return err_set("%s failed (exit %d): %s", stage_label(s), WEXITSTATUS(s->status), line);
	return err_set("%s failed (exit %d) and said nothing on stderr", stage_label(s),
		       WEXITSTATUS(s->status));
}

/*
 * In the child, between fork and exec: only async-signal-safe calls.
 * Sources are first copied above 2 so that no dup2 overwrites another.
 */
static void run_child(const char *path, char *const *argv, int in, int out, int err, pid_t pgid,
		      pid_t parent)
{
	static const char msg[] = "cannot execute ";
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t none;

	setpgid(0, pgid);
	/* xfercmp blocks its termination signals and ignores SIGPIPE: exec keeps both */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	sigaction(SIGPIPE, &dfl, NULL);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(127);
	in = fcntl(in, F_DUPFD, 10);
	out = fcntl(out, F_DUPFD, 10);
	err = fcntl(err, F_DUPFD, 10);
	if (in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
		_exit(127);
	close_range(3, ~0U, 0);
	execve(path, argv, environ);
	if (write(2, msg, sizeof(msg) - 1) > 0 && write(2, path, strlen(path)) > 0)
		(void)!write(2, "\n", 1);
	_exit(127);
}

/* Reads what is there from s's stderr, keeping the first bytes; closes it at its end. */
static void read_stderr(struct pipeline_stage *s)
{
	char buf[4096];
	ssize_t n = read(s->err_fd, buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close(s->err_fd);
		s->err_fd = -1;
		return;
	}
	if (s->err_len < sizeof(s->err) - 1) {
		size_t keep = sizeof(s->err) - 1 - s->err_len;

		if (keep > (size_t)n)
			keep = (size_t)n;
		memcpy(s->err + s->err_len, buf, keep);
		s->err_len += keep;
		s->err[s->err_len] = '\0';
	}
}

/*
 * Waits for every stage, reading their stderr meanwhile. A program may
 * leave a process behind that holds stderr open (a daemonized ssh master),
 * so the end is when every stage has exited, not when stderr closes.
 */
static void wait_stages(struct pipeline_stage *st, unsigned n)
{
	for (;;) {
		struct pollfd p[PIPELINE_MAX_STAGES];
		unsigned np = 0, running = 0;

		for (unsigned i = 0; i < n; i++) {
			if (!st[i].exited && st[i].pid > 0) {
				pid_t r = waitpid(st[i].pid, &st[i].status, WNOHANG);

				if (r == st[i].pid || (r < 0 && errno == ECHILD))
					st[i].exited = 1;
				else
					running++;
			}
			if (st[i].err_fd >= 0)
				p[np++] = (struct pollfd){ .fd = st[i].err_fd, .events = POLLIN };
		}
		if (!running) {
			/* what is left in the pipes, without waiting for a writer that lingers */
			for (unsigned i = 0; i < n; i++) {
				if (st[i].err_fd < 0)
					continue;
				fcntl(st[i].err_fd, F_SETFL, O_NONBLOCK);
				while (st[i].err_fd >= 0 && st[i].err_len < sizeof(st[i].err) - 1) {
					size_t before = st[i].err_len;

					read_stderr(&st[i]);
					if (st[i].err_fd >= 0 && st[i].err_len == before)
						break;
				}
				if (st[i].err_fd >= 0) {
					close(st[i].err_fd);
					st[i].err_fd = -1;
				}
			}
			return;
		}
		if (np == 0) {
			/* nothing left to read: block until each has exited */
			for (unsigned i = 0; i < n; i++) {
				if (st[i].exited || st[i].pid <= 0)
					continue;
				while (waitpid(st[i].pid, &st[i].status, 0) < 0 && errno == EINTR)
					;
				st[i].exited = 1;
			}
			continue;
		}
		if (poll(p, np, POLL_MS) <= 0)
			continue;
		for (unsigned i = 0; i < n; i++)
			for (unsigned k = 0; k < np; k++)
				if (st[i].err_fd == p[k].fd && p[k].revents)
					read_stderr(&st[i]);
	}
}

/* Moves fd above 2 (when stdin, stdout or stderr were closed, new fds land there). */
static int fd_high(int fd)
{
	int high;

	if (fd < 0 || fd > 2)
		return fd;
	high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return high;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/*
 * Runs st[0] | st[1] | ... with stdin from /dev/null and the last stage's
 * stdout into out_fd (-1: /dev/null), and waits for all of them. Returns 0
 * when every stage exited 0; else -1 with the error of the stage that
 * failed first for its own reason (one that died of a broken pipe only
 * followed another's failure).
 */
int pipeline_run(struct pipeline_stage *st, unsigned n, int out_fd)
{
	char paths[PIPELINE_MAX_STAGES][PATH_MAX];
	int devnull, in_fd, rc = 0;
	pid_t pgid = 0, self = getpid();
	unsigned started = 0;

	if (n > PIPELINE_MAX_STAGES)
		return err_set("a pipeline of %u programs: at most %d", n, PIPELINE_MAX_STAGES);
	for (unsigned i = 0; i < n; i++) {
		st[i].pid = -1;
		st[i].err_fd = -1;
		st[i].err_len = 0;
		st[i].err[0] = '\0';
		st[i].exited = 0;
		if (st[i].argv.failed || !st[i].argv.n)
			return err_set("out of memory for a command line");
		if (!pipeline_which(st[i].argv.v[0], paths[i], sizeof(paths[i])))
			return err_set("'%s' is not installed here (not found in PATH)", st[i].argv.v[0]);
	}
	devnull = fd_high(open("/dev/null", O_RDWR | O_CLOEXEC));
	if (devnull < 0)
		return err_errno("cannot open /dev/null");
	in_fd = devnull;
	for (; started < n; started++) {
		struct pipeline_stage *s = &st[started];
		int errp[2] = { -1, -1 }, datap[2] = { -1, -1 }, out;
		int last = started == n - 1;

		if (pipe2(errp, O_CLOEXEC) < 0 || (!last && pipe2(datap, O_CLOEXEC) < 0)) {
			rc = err_errno("cannot make a pipe for %s", stage_label(s));
		} else {
			errp[0] = fd_high(errp[0]);
			errp[1] = fd_high(errp[1]);
			datap[0] = fd_high(datap[0]);
			datap[1] = fd_high(datap[1]);
			if (errp[0] < 0 || errp[1] < 0 || (!last && (datap[0] < 0 || datap[1] < 0)))
				rc = err_errno("cannot make a pipe for %s", stage_label(s));
		}
		out = last ? (out_fd >= 0 ? out_fd : devnull) : datap[1];
		if (rc == 0) {
			s->pid = fork();
			if (s->pid == 0)
				run_child(paths[started], s->argv.v, in_fd, out, errp[1], pgid, self);
			if (s->pid < 0)
				rc = err_errno("cannot start %s", stage_label(s));
		}
		if (s->pid > 0) {
			if (!pgid)
				pgid = s->pid;
			/* also here: whichever runs first, the group exists before it is used */
			setpgid(s->pid, pgid);
			atomic_store(&running_group, (int)pgid);
		}
		close_fd(&errp[1]);
		close_fd(&datap[1]);
		if (in_fd != devnull)
			close_fd(&in_fd);
		in_fd = datap[0];
		s->err_fd = errp[0];
		if (rc < 0) {
			close_fd(&in_fd);
			close_fd(&s->err_fd);
			if (pgid)
				kill(-pgid, SIGTERM);
			break;
		}
	}
	if (in_fd != devnull)
		close_fd(&in_fd);
	close(devnull);
	wait_stages(st, started);
	atomic_store(&running_group, 0);
	if (rc < 0)
		return rc;
	for (unsigned i = 0; i < n; i++)
		if (!stage_ok(&st[i]) && !stage_secondary(&st[i]))
			return stage_error(&st[i]);
	for (unsigned i = n; i-- > 0;)
		if (!stage_ok(&st[i]))
			return stage_error(&st[i]);
	return 0;
}

void pipeline_stages_free(struct pipeline_stage *st, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		pipeline_argv_free(&st[i].argv);
}
