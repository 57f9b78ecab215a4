/*
 * The reference strategies: the system's own scp, rsync, tar, ssh and zstd,
 * run as a user would run them and measured like xfercmp's own strategies,
 * to check how faithful those models are. Also the user's own command
 * (cmd:NAME=COMMAND, reference_cmd.h).
 *
 * Each stage of a pipeline is a child process (fork/exec, no shell: the
 * pipes are made here), in one process group per run, with SIGTERM as its
 * parent-death signal. Values that a shell parses (the host's side of ssh,
 * scp -O's target) are quoted with ssh_shell_quote. Each stage's stderr is
 * collected; when one fails, the error names it, its exit status and the
 * first line it wrote. The host's sides are the host's own programs, run by
 * its sshd; real-tar-nc's mirror is the agent's libarchive extraction
 * (tar_extract.c).
 *
 * Not counted: wire bytes (the programs do not say; real-tar-nc's are the
 * agent's count) and round trips.
 */
#define _GNU_SOURCE
#include "strategy/reference_cmd.h"

#include "err.h"
#include "client/raw_stream.h"
#include "ssh/ssh_conn.h"
#include "ssh/ssh_exec.h"
#include "ssh/ssh_target.h"
#include "strategy/strategy.h"

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

#define REF_MAX_STAGES 3
#define REF_STDERR_KEEP 1024	/* bytes of each stage's stderr kept for the message */
#define REF_POLL_MS 200
#define REF_PROBE_TIMEOUT_MS 15000

/* The process group of the pipeline running now (0: none), for reference_stop_running. */
static atomic_int running_group;

void reference_stop_running(void)
{
	int pgid = atomic_load(&running_group);

	if (pgid > 0)
		kill(-pgid, SIGTERM);
}

/* ---------------------------------------------------------------- programs */

/* Finds program in $PATH. Returns 1 with its path in path, 0 if absent. */
static int ref_which(const char *program, char *path, size_t len)
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

/* Returns 0 if every program is in $PATH here, else 1 with the reason in why. */
static int ref_need_local(const char *const *programs, char *why, size_t len)
{
	char path[PATH_MAX];

	for (; *programs; programs++)
		if (!ref_which(*programs, path, sizeof(path))) {
			snprintf(why, len, "'%s' is not installed here (not found in PATH)", *programs);
			return 1;
		}
	return 0;
}

/*
 * What the host has besides the tar and zstd the SSH target looked for:
 * asked once per SSH target over its libssh session, then cached.
 */
static struct {
	const struct ssh_target *ssh;
	int has_rsync, has_scp;
	char error[256];
} host_programs;

static int ref_probe_host(const struct xfer_target *t)
{
	static const char script[] =
		"command -v rsync >/dev/null 2>&1 && echo rsync || echo no-rsync; "
		"command -v scp >/dev/null 2>&1 && echo scp || echo no-scp";
	char lines[2][64];
	struct ssh_exec x;
	int rc = 0;

	if (host_programs.ssh == t->ssh)
		return host_programs.error[0] ? -1 : 0;
	memset(&host_programs, 0, sizeof(host_programs));
	host_programs.ssh = t->ssh;
	if (ssh_exec_start(t->ssh->session, script, &x) < 0)
		rc = -1;
	for (int i = 0; i < 2 && rc == 0; i++)
		if (ssh_exec_read_line(&x, lines[i], sizeof(lines[i]), REF_PROBE_TIMEOUT_MS) < 0)
			rc = -1;
	if (rc == 0 && ssh_exec_finish(&x, NULL) < 0)
		rc = -1;
	ssh_exec_release(&x);
	if (rc < 0) {
		snprintf(host_programs.error, sizeof(host_programs.error), "%s", err_msg());
		return -1;
	}
	host_programs.has_rsync = !strcmp(lines[0], "rsync");
	host_programs.has_scp = !strcmp(lines[1], "scp");
	return 0;
}

/* Returns 0 if the host has program, else 1 with the reason in why. */
static int ref_need_remote(const struct xfer_target *t, const char *program, char *why, size_t len)
{
	int has;

	if (!strcmp(program, "tar")) {
		has = t->ssh->has_tar;
	} else if (!strcmp(program, "zstd")) {
		has = t->ssh->has_zstd;
	} else {
		if (ref_probe_host(t) < 0) {
			snprintf(why, len, "cannot look for %s on host '%s': %s", program, t->label,
				 host_programs.error);
			return 1;
		}
		has = !strcmp(program, "rsync") ? host_programs.has_rsync : host_programs.has_scp;
	}
	if (has)
		return 0;
	snprintf(why, len, "host '%s' has no %s program (install the %s package there)", t->label,
		 program, !strcmp(program, "scp") ? "openssh-client" : program);
	return 1;
}

/* ---------------------------------------------------------------- command lines */

/* A NULL-terminated argv whose strings it owns; an allocation failure is reported once, at the end. */
struct ref_argv {
	char **v;
	size_t n, cap;
	int failed;
};

static void ref_arg(struct ref_argv *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void ref_arg(struct ref_argv *a, const char *fmt, ...)
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

static void ref_argv_free(struct ref_argv *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	memset(a, 0, sizeof(*a));
}

/* s quoted for a POSIX shell, malloc'ed (NULL, error set, when out of memory). */
static char *ref_shell_quote(const char *s)
{
	size_t cap = 4 * strlen(s) + 3;
	char *q = malloc(cap);

	if (!q) {
		err_set("out of memory");
		return NULL;
	}
	if (ssh_shell_quote(s, q, cap) < 0) {
		free(q);
		return NULL;
	}
	return q;
}

/*
 * s quoted for rsync's own split of its -e command: single quotes, a quote
 * inside doubled (rsync takes no backslashes). malloc'ed, or NULL.
 */
static char *ref_rsync_quote(const char *s)
{
	char *q = malloc(2 * strlen(s) + 3), *p = q;

	if (!q) {
		err_set("out of memory");
		return NULL;
	}
	*p++ = '\'';
	for (; *s; s++) {
		if (*s == '\'')
			*p++ = '\'';
		*p++ = *s;
	}
	*p++ = '\'';
	*p = '\0';
	return q;
}

/*
 * How ssh, scp and rsync reach the host as xfercmp's own session did: the
 * same -F file, the same host key policy, never a prompt (nobody answers
 * one), and HOST's user and port as options, since scp and rsync take no
 * host:port.
 */
struct ref_host {
	struct ssh_conn_target parts;
	char scp_host[300];	/* the host before ":path": an IPv6 address in brackets */
};

static int ref_host_parse(const struct xfer_target *t, struct ref_host *h)
{
	if (ssh_conn_parse_target(t->label, &h->parts) < 0)
		return -1;
	snprintf(h->scp_host, sizeof(h->scp_host), strchr(h->parts.host, ':') ? "[%s]" : "%s",
		 h->parts.host);
	return 0;
}

/* Adds the ssh options to a, one word each. */
static void ref_ssh_options(struct ref_argv *a, const struct xfer_target *t, const struct ref_host *h)
{
	if (t->ssh_config) {
		ref_arg(a, "-F");
		ref_arg(a, "%s", t->ssh_config);
	}
	ref_arg(a, "-o");
	ref_arg(a, "BatchMode=yes");
	if (t->accept_new_hostkey) {
		ref_arg(a, "-o");
		ref_arg(a, "StrictHostKeyChecking=accept-new");
	}
	if (h->parts.user[0]) {
		ref_arg(a, "-o");
		ref_arg(a, "User=%s", h->parts.user);
	}
	if (h->parts.port) {
		ref_arg(a, "-o");
		ref_arg(a, "Port=%u", h->parts.port);
	}
}

/* ---------------------------------------------------------------- pipelines */

struct ref_stage {
	struct ref_argv argv;	/* argv[0] is looked up in PATH */
	const char *label;	/* for messages; NULL: argv[0] */
	pid_t pid;
	int err_fd;		/* read end of its stderr, -1 once closed */
	char err[REF_STDERR_KEEP];
	size_t err_len;
	int status;
	int exited;
};

static const char *ref_label(const struct ref_stage *s)
{
	return s->label ? s->label : s->argv.v[0];
}

static int ref_stage_ok(const struct ref_stage *s)
{
	return WIFEXITED(s->status) && WEXITSTATUS(s->status) == 0;
}

/* A failure caused by the next stage dying first: SIGPIPE, or EPIPE reported. */
static int ref_stage_secondary(const struct ref_stage *s)
{
	return (WIFSIGNALED(s->status) && WTERMSIG(s->status) == SIGPIPE) ||
	       strstr(s->err, "Broken pipe");
}

/* The first line of the stage's stderr that is not blank, into buf. */
static void ref_first_line(const struct ref_stage *s, char *buf, size_t len)
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
			return;
		}
		p += n;
		if (*p)
			p++;
	}
}

/* Sets the error for a failed stage: who, how it ended, what it said. Returns -1. */
static int ref_stage_error(const struct ref_stage *s)
{
	char line[400];

	ref_first_line(s, line, sizeof(line));
	if (WIFSIGNALED(s->status)) {
		const char *sig = sigabbrev_np(WTERMSIG(s->status));

		return err_set("%s killed by signal %s%s%s", ref_label(s), sig ? sig : "?",
			       line[0] ? ": " : "", line);
	}
	if (line[0])
		return err_set("%s failed (exit %d): %s", ref_label(s), WEXITSTATUS(s->status), line);
	return err_set("%s failed (exit %d) and said nothing on stderr", ref_label(s),
		       WEXITSTATUS(s->status));
}

/*
 * In the child, between fork and exec: only async-signal-safe calls.
 * Sources are first copied above 2 so that no dup2 overwrites another.
 */
static void ref_child(const char *path, char *const *argv, int in, int out, int err, pid_t pgid,
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
static void ref_read_stderr(struct ref_stage *s)
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
static void ref_wait(struct ref_stage *st, unsigned n)
{
	for (;;) {
		struct pollfd p[REF_MAX_STAGES];
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

					ref_read_stderr(&st[i]);
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
		if (poll(p, np, REF_POLL_MS) <= 0)
			continue;
		for (unsigned i = 0; i < n; i++)
			for (unsigned k = 0; k < np; k++)
				if (st[i].err_fd == p[k].fd && p[k].revents)
					ref_read_stderr(&st[i]);
	}
}

/* Moves fd above 2 (when stdin, stdout or stderr were closed, new fds land there). */
static int ref_fd_high(int fd)
{
	int high;

	if (fd < 0 || fd > 2)
		return fd;
	high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return high;
}

static void ref_close(int *fd)
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
static int ref_pipeline(struct ref_stage *st, unsigned n, int out_fd)
{
	char paths[REF_MAX_STAGES][PATH_MAX];
	int devnull, in_fd, rc = 0;
	pid_t pgid = 0, self = getpid();
	unsigned started = 0;

	for (unsigned i = 0; i < n; i++) {
		st[i].pid = -1;
		st[i].err_fd = -1;
		st[i].err_len = 0;
		st[i].err[0] = '\0';
		st[i].exited = 0;
		if (st[i].argv.failed || !st[i].argv.n)
			return err_set("out of memory for a command line");
		if (!ref_which(st[i].argv.v[0], paths[i], sizeof(paths[i])))
			return err_set("'%s' is not installed here (not found in PATH)", st[i].argv.v[0]);
	}
	devnull = ref_fd_high(open("/dev/null", O_RDWR | O_CLOEXEC));
	if (devnull < 0)
		return err_errno("cannot open /dev/null");
	in_fd = devnull;
	for (; started < n; started++) {
		struct ref_stage *s = &st[started];
		int errp[2] = { -1, -1 }, datap[2] = { -1, -1 }, out;
		int last = started == n - 1;

		if (pipe2(errp, O_CLOEXEC) < 0 || (!last && pipe2(datap, O_CLOEXEC) < 0)) {
			rc = err_errno("cannot make a pipe for %s", ref_label(s));
		} else {
			errp[0] = ref_fd_high(errp[0]);
			errp[1] = ref_fd_high(errp[1]);
			datap[0] = ref_fd_high(datap[0]);
			datap[1] = ref_fd_high(datap[1]);
			if (errp[0] < 0 || errp[1] < 0 || (!last && (datap[0] < 0 || datap[1] < 0)))
				rc = err_errno("cannot make a pipe for %s", ref_label(s));
		}
		out = last ? (out_fd >= 0 ? out_fd : devnull) : datap[1];
		if (rc == 0) {
			s->pid = fork();
			if (s->pid == 0)
				ref_child(paths[started], s->argv.v, in_fd, out, errp[1], pgid, self);
			if (s->pid < 0)
				rc = err_errno("cannot start %s", ref_label(s));
		}
		if (s->pid > 0) {
			if (!pgid)
				pgid = s->pid;
			/* also here: whichever runs first, the group exists before it is used */
			setpgid(s->pid, pgid);
			atomic_store(&running_group, (int)pgid);
		}
		ref_close(&errp[1]);
		ref_close(&datap[1]);
		if (in_fd != devnull)
			ref_close(&in_fd);
		in_fd = datap[0];
		s->err_fd = errp[0];
		if (rc < 0) {
			ref_close(&in_fd);
			ref_close(&s->err_fd);
			if (pgid)
				kill(-pgid, SIGTERM);
			break;
		}
	}
	if (in_fd != devnull)
		ref_close(&in_fd);
	close(devnull);
	ref_wait(st, started);
	atomic_store(&running_group, 0);
	if (rc < 0)
		return rc;
	for (unsigned i = 0; i < n; i++)
		if (!ref_stage_ok(&st[i]) && !ref_stage_secondary(&st[i]))
			return ref_stage_error(&st[i]);
	for (unsigned i = n; i-- > 0;)
		if (!ref_stage_ok(&st[i]))
			return ref_stage_error(&st[i]);
	return 0;
}

static void ref_stages_free(struct ref_stage *st, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		ref_argv_free(&st[i].argv);
}

/* Runs the stages, frees them, and on success accounts the whole manifest as sent. */
static int ref_finish(struct xfer_run *run, struct ref_stage *st, unsigned n, int out_fd)
{
	int rc = ref_pipeline(st, n, out_fd);

	ref_stages_free(st, n);
	if (rc == 0) {
		run->sent.files = run->manifest->count;
		run->sent.bytes_read = run->manifest->total_bytes;
	}
	return rc;
}

int reference_run_shell(struct xfer_run *run, const char *label, const char *command)
{
	struct ref_stage st[1] = { 0 };

	ref_arg(&st[0].argv, "sh");
	ref_arg(&st[0].argv, "-c");
	ref_arg(&st[0].argv, "%s", command);
	st[0].label = label;
	return ref_finish(run, st, 1, -1);
}

/* ---------------------------------------------------------------- the strategies */

/* scp -r SRC/. HOST:DEST (SFTP): OpenSSH 9 copies the tree's contents into DEST. */
static int scp_run(struct xfer_run *run)
{
	struct ref_stage st[1] = { 0 };
	struct ref_host h;

	if (ref_host_parse(run->target, &h) < 0)
		return -1;
	ref_arg(&st[0].argv, "scp");
	ref_arg(&st[0].argv, "-r");
	ref_arg(&st[0].argv, "-q");
	ref_ssh_options(&st[0].argv, run->target, &h);
	ref_arg(&st[0].argv, "--");
	ref_arg(&st[0].argv, "%s/.", run->src_root);
	ref_arg(&st[0].argv, "%s:%s", h.scp_host, run->dest);
	return ref_finish(run, st, 1, -1);
}

/*
 * scp -O -r SRC/a SRC/b ... HOST:DEST. The legacy sink refuses "." as a
 * name ("unexpected filename: ."), so each top-level entry is named, as a
 * shell glob of SRC would; and it hands the target to the host's shell
 * unquoted, so the target is quoted here (scp itself cannot take a ' in it).
 */
static int scp_legacy_run(struct xfer_run *run)
{
	const struct manifest *m = run->manifest;
	struct ref_stage st[1] = { 0 };
	struct ref_host h;
	size_t total = 0, entries = 0;
	long arg_max = sysconf(_SC_ARG_MAX);
	char *dest;

	if (strchr(run->dest, '\''))
		return err_set("scp -O cannot write to '%s': its target goes through the host's shell "
			       "and scp cannot take a quote in it", run->dest);
	if (ref_host_parse(run->target, &h) < 0 || !(dest = ref_shell_quote(run->dest)))
		return -1;
	ref_arg(&st[0].argv, "scp");
	ref_arg(&st[0].argv, "-O");
	ref_arg(&st[0].argv, "-r");
	ref_arg(&st[0].argv, "-q");
	ref_ssh_options(&st[0].argv, run->target, &h);
	ref_arg(&st[0].argv, "--");
	for (size_t i = 0; i < m->count; i++) {
		const char *p = m->entries[i].path;
		size_t n = strcspn(p, "/");

		/* sorted: a top-level name's entries are together */
		if (i > 0 && !strncmp(m->entries[i - 1].path, p, n) &&
		    (m->entries[i - 1].path[n] == '/' || m->entries[i - 1].path[n] == '\0'))
			continue;
		ref_arg(&st[0].argv, "%s/%.*s", run->src_root, (int)n, p);
		total += strlen(run->src_root) + n + 2 + sizeof(char *);
		entries++;
	}
	ref_arg(&st[0].argv, "%s:%s", h.scp_host, dest);
	free(dest);
	if (arg_max > 0 && total > (size_t)arg_max / 2) {
		ref_stages_free(st, 1);
		return err_set("the source has too many top-level entries (%zu) for one scp command line",
			       entries);
	}
	return ref_finish(run, st, 1, -1);
}

/*
 * rsync -a -s -e 'ssh OPTIONS' SRC/ HOST:DEST/. -s (--protect-args, rsync 3.0
 * on) sends DEST past the host's shell, so a --remote-dir with a space or a
 * '$' stays one path: rsync did that by default only from 3.2.4.
 */
static int rsync_run(struct xfer_run *run)
{
	struct ref_stage st[1] = { 0 };
	struct ref_argv ssh = { 0 };
	struct ref_host h;
	char *e = NULL;
	size_t len = 0;
	FILE *f;
	int rc = 0;

	if (ref_host_parse(run->target, &h) < 0)
		return -1;
	ref_arg(&ssh, "ssh");
	ref_ssh_options(&ssh, run->target, &h);
	if (ssh.failed || !(f = open_memstream(&e, &len))) {
		ref_argv_free(&ssh);
		return err_set("out of memory for the rsync command line");
	}
	for (size_t i = 0; i < ssh.n && rc == 0; i++) {
		char *q = ref_rsync_quote(ssh.v[i]);

		if (!q)
			rc = -1;
		else
			fprintf(f, "%s%s", i ? " " : "", q);
		free(q);
	}
	fclose(f);
	ref_argv_free(&ssh);
	if (rc < 0) {
		free(e);
		return -1;
	}
	ref_arg(&st[0].argv, "rsync");
	ref_arg(&st[0].argv, "-a");
	ref_arg(&st[0].argv, "-s");
	ref_arg(&st[0].argv, "-e");
	ref_arg(&st[0].argv, "%s", e);
	ref_arg(&st[0].argv, "--");
	ref_arg(&st[0].argv, "%s/", run->src_root);
	ref_arg(&st[0].argv, "%s:%s/", h.scp_host, run->dest);
	free(e);
	return ref_finish(run, st, 1, -1);
}

/* ssh OPTIONS -- HOST REMOTE into a, REMOTE being a shell command line for the host. */
static void ref_ssh_stage(struct ref_argv *a, const struct xfer_target *t, const struct ref_host *h,
			  const char *remote)
{
	ref_arg(a, "ssh");
	ref_ssh_options(a, t, h);
	ref_arg(a, "--");
	ref_arg(a, "%s", h->parts.host);
	ref_arg(a, "%s", remote);
}

static void ref_tar_create(struct ref_argv *a, const char *src)
{
	ref_arg(a, "tar");
	ref_arg(a, "-cf");
	ref_arg(a, "-");
	ref_arg(a, "-C");
	ref_arg(a, "%s", src);
	ref_arg(a, ".");
}

/*
 * tar -cf - -C SRC . | [zstd -L -Tn |] ssh HOST '[zstd -d |] tar -xf - -C DEST'.
 * zstd at --zstd-level and --zstd-threads, as the zstd-ssh model.
 */
static int tar_ssh_pipeline(struct xfer_run *run, int compress)
{
	struct ref_stage st[3] = { 0 };
	struct ref_host h;
	char *dest, remote[PATH_MAX * 4 + 64];
	unsigned n = 0;
	int level = run->opts->zstd_level;

	if (ref_host_parse(run->target, &h) < 0 || !(dest = ref_shell_quote(run->dest)))
		return -1;
	snprintf(remote, sizeof(remote), "%star -xf - -C %s", compress ? "zstd -dc | " : "", dest);
	free(dest);
	ref_tar_create(&st[n++].argv, run->src_root);
	if (compress) {
		struct ref_argv *a = &st[n++].argv;

		ref_arg(a, "zstd");
		ref_arg(a, "-q");
		if (level < 0)
			ref_arg(a, "--fast=%d", -level);
		else if (level > 19)
			ref_arg(a, "--ultra");
		if (level >= 0)
			ref_arg(a, "-%d", level ? level : 3);
		/* the model's 0 workers compresses in the writer's thread: for zstd(1), -T0 is every core */
		if (run->opts->zstd_threads == 0)
			ref_arg(a, "--single-thread");
		else
			ref_arg(a, "-T%u", run->opts->zstd_threads);
		ref_arg(a, "-c");
	}
	ref_ssh_stage(&st[n++].argv, run->target, &h, remote);
	return ref_finish(run, st, n, -1);
}

static int tar_ssh_run(struct xfer_run *run)
{
	return tar_ssh_pipeline(run, 0);
}

static int tar_zstd_ssh_run(struct xfer_run *run)
{
	return tar_ssh_pipeline(run, 1);
}

/* GNU tar's stream straight into one of the agent's data connections. */
static int tar_nc_run(struct xfer_run *run)
{
	struct ref_stage st[1] = { 0 };
	int fd, rc;

	ref_tar_create(&st[0].argv, run->src_root);
	if (raw_stream_open(run->target->agent, run->job, "tar", 1, &fd) < 0) {
		ref_stages_free(st, 1);
		return -1;
	}
	rc = ref_finish(run, st, 1, fd);
	rc = raw_stream_finish(run->target->agent, &fd, 1, rc, &run->received);
	/* every byte tar wrote went through the one connection the agent counted */
	if (rc == 0)
		run->sent.wire_bytes = run->received.wire_bytes;
	return rc;
}

/* ---------------------------------------------------------------- availability */

static int scp_available(const struct xfer_target *t, char *why, size_t len)
{
	static const char *const local[] = { "scp", "ssh", NULL };

	return strategy_needs_ssh(t, why, len) || ref_need_local(local, why, len);
}

static int scp_legacy_available(const struct xfer_target *t, char *why, size_t len)
{
	return scp_available(t, why, len) || ref_need_remote(t, "scp", why, len);
}

static int rsync_available(const struct xfer_target *t, char *why, size_t len)
{
	static const char *const local[] = { "rsync", "ssh", NULL };

	return strategy_needs_ssh(t, why, len) || ref_need_local(local, why, len) ||
	       ref_need_remote(t, "rsync", why, len);
}

static int tar_ssh_available(const struct xfer_target *t, char *why, size_t len)
{
	static const char *const local[] = { "tar", "ssh", NULL };

	return strategy_needs_ssh(t, why, len) || ref_need_local(local, why, len) ||
	       ref_need_remote(t, "tar", why, len);
}

static int tar_zstd_ssh_available(const struct xfer_target *t, char *why, size_t len)
{
	static const char *const local[] = { "zstd", NULL };

	return tar_ssh_available(t, why, len) || ref_need_local(local, why, len) ||
	       ref_need_remote(t, "zstd", why, len);
}

static int tar_nc_available(const struct xfer_target *t, char *why, size_t len)
{
	static const char *const local[] = { "tar", NULL };

	(void)t;
	return ref_need_local(local, why, len);
}

const struct strategy strategy_real_scp = {
	.name = "real-scp",
	.summary = "the system's scp -r (SFTP protocol): SRC/. to HOST:DEST",
	.flags = STRATEGY_REFERENCE | STRATEGY_SSH | STRATEGY_PER_FILE,
	.available = scp_available,
	.run = scp_run,
};

const struct strategy strategy_real_scp_legacy = {
	.name = "real-scp-legacy",
	.summary = "the system's scp -O -r (legacy SCP protocol), each top-level entry to HOST:DEST",
	.flags = STRATEGY_REFERENCE | STRATEGY_SSH | STRATEGY_PER_FILE,
	.available = scp_legacy_available,
	.run = scp_legacy_run,
};

const struct strategy strategy_real_rsync = {
	.name = "real-rsync",
	.summary = "the system's rsync -a over ssh into an empty HOST:DEST/",
	.flags = STRATEGY_REFERENCE | STRATEGY_SSH,
	.available = rsync_available,
	.run = rsync_run,
};

const struct strategy strategy_real_tar_ssh = {
	.name = "real-tar-ssh",
	.summary = "tar -cf - | ssh HOST tar -xf -: GNU tar and OpenSSH on both sides",
	.flags = STRATEGY_REFERENCE | STRATEGY_SSH,
	.available = tar_ssh_available,
	.run = tar_ssh_run,
};

const struct strategy strategy_real_tar_zstd_ssh = {
	.name = "real-tar-zstd-ssh",
	.summary = "tar -cf - | zstd -T | ssh HOST 'zstd -d | tar -xf -', at --zstd-level",
	.flags = STRATEGY_REFERENCE | STRATEGY_SSH | STRATEGY_COMPRESSED,
	.available = tar_zstd_ssh_available,
	.run = tar_zstd_ssh_run,
};

const struct strategy strategy_real_tar_nc = {
	.name = "real-tar-nc",
	.summary = "GNU tar -cf - into one TCP stream, no ssh (the agent extracts with libarchive)",
	.flags = STRATEGY_REFERENCE | STRATEGY_RAW_TCP,
	.available = tar_nc_available,
	.run = tar_nc_run,
};
