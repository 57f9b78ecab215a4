/*
 * A remote command on an SSH exec channel: stdin as a byte sink, stdout's
 * first line as a reply, stderr kept for error messages. See ssh_exec.h.
 */
#include "ssh/ssh_exec.h"

#include "clock.h"
#include "err.h"
#include "text_escape.h"
#include "ssh/ssh_conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Channel callback: libssh calls it for every data packet, in whatever call
 * is reading packets (a write waiting for window, a read, a flush). Taking
 * stderr here frees the channel window at once; stdout is left (return 0)
 * for ssh_channel_read.
 */
static int on_data(ssh_session s, ssh_channel ch, void *data, uint32_t len, int is_stderr,
		   void *userdata)
{
	struct ssh_exec *x = userdata;
	size_t room = SSH_EXEC_STDERR_MAX - x->stderr_len;
	size_t keep = len < room ? len : room;

	(void)s;
	(void)ch;
	if (!is_stderr)
		return 0;
	if (keep && x->stderr_buf) {
		memcpy(x->stderr_buf + x->stderr_len, data, keep);
		x->stderr_len += keep;
		x->stderr_buf[x->stderr_len] = '\0';
	}
	x->stderr_total += len;
	return (int)len;
}

static void on_exit_status(ssh_session s, ssh_channel ch, int status, void *userdata)
{
	struct ssh_exec *x = userdata;

	(void)s;
	(void)ch;
	x->exit_status = status;
}

static void on_exit_signal(ssh_session s, ssh_channel ch, const char *signal, int core,
			   const char *errmsg, const char *lang, void *userdata)
{
	struct ssh_exec *x = userdata;

	(void)s;
	(void)ch;
	(void)core;
	(void)errmsg;
	(void)lang;
	snprintf(x->exit_signal, sizeof(x->exit_signal), "%s", signal ? signal : "?");
}

/* libssh's last error on the channel's session, without a trailing newline. */
static const char *channel_error(const struct ssh_exec *x, char *buf, size_t len)
{
	return ssh_conn_error_text(ssh_channel_get_session(x->ch), buf, len, "connection lost");
}

/* The first non-empty line of the command's stderr, at most len - 1 bytes; "" if none. */
static const char *stderr_first_line(const struct ssh_exec *x, char *buf, size_t len)
{
	const char *p = x->stderr_buf ? x->stderr_buf : "";
	size_t n;

	while (*p == '\n' || *p == '\r' || *p == ' ' || *p == '\t')
		p++;
	n = strcspn(p, "\r\n");
	if (n >= len)
		n = len - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	/* the host's words: shown as text (text_escape.h) */
	text_escape_inplace(buf, len);
	return buf;
}

/*
 * The error for a command that has ended (or whose channel closed): its exit
 * status or signal and its first stderr line. what says what we were doing.
 */
static int ended_error(struct ssh_exec *x, const char *what)
{
	char line[256];
	int status = x->exit_status;

	/*
	 * The status (or signal) may still be on its way: it comes just before
	 * the channel closes. The callbacks record it; the return value is
	 * ambiguous (see ssh_exec_finish).
	 */
	if (status == -1 && !x->exit_signal[0]) {
		(void)ssh_channel_get_exit_status(x->ch);
		status = x->exit_status;
	}
	stderr_first_line(x, line, sizeof(line));
	if (x->exit_signal[0])
		return err_set("remote command killed by signal %s%s%s", x->exit_signal,
			       line[0] ? ": " : "", line);
	if (status > 0)
		return err_set("remote command failed (exit %d): %s", status,
			       line[0] ? line : "(nothing on stderr)");
	if (status == 0)
		return err_set("remote command exited (status 0) %s%s%s", what, line[0] ? ": " : "",
			       line);
	return err_set("remote command ended without an exit status %s%s%s", what,
		       line[0] ? ": " : "", line);
}

int ssh_exec_start(ssh_session s, const char *command, struct ssh_exec *x)
{
	char e[512];

	memset(x, 0, sizeof(*x));
	x->exit_status = -1;
	x->stderr_buf = malloc(SSH_EXEC_STDERR_MAX + 1);
	if (!x->stderr_buf)
		return err_set("out of memory for the remote command's stderr");
	x->stderr_buf[0] = '\0';
	x->ch = ssh_channel_new(s);
	if (!x->ch)
		return err_set("cannot create an ssh channel: %s", ssh_get_error(s));
	if (ssh_channel_open_session(x->ch) != SSH_OK)
		return err_set("cannot open an ssh session channel: %s", channel_error(x, e, sizeof(e)));
	ssh_callbacks_init(&x->cb);
	x->cb.userdata = x;
	x->cb.channel_data_function = on_data;
	x->cb.channel_exit_status_function = on_exit_status;
	x->cb.channel_exit_signal_function = on_exit_signal;
	if (ssh_set_channel_callbacks(x->ch, &x->cb) != SSH_OK)
		return err_set("cannot set the ssh channel callbacks: %s",
			       channel_error(x, e, sizeof(e)));
	if (ssh_channel_request_exec(x->ch, command) != SSH_OK)
		return err_set("cannot run remote command '%s': %s", command,
			       channel_error(x, e, sizeof(e)));
	return 0;
}

/* A write failed: say why, from how the command ended if it did. */
static int write_error(struct ssh_exec *x)
{
	char e[512];

	if (ssh_channel_is_eof(x->ch) || x->exit_status != -1 || x->exit_signal[0])
		return ended_error(x, "before reading all its input");
	return err_set("cannot write to the remote command: %s", channel_error(x, e, sizeof(e)));
}

int ssh_exec_write(struct ssh_exec *x, const void *buf, size_t len)
{
	const char *p = buf;

	if (x->eof_sent)
		return err_set("cannot write to the remote command: its input was already closed");
	while (len > 0) {
		uint32_t n = len > SSH_EXEC_WRITE_MAX ? SSH_EXEC_WRITE_MAX : (uint32_t)len;
		int rc;

		/*
		 * A non-blocking look at incoming packets: the stderr callback
		 * takes what the command said, and an exit shows up now rather
		 * than as a failed write later.
		 */
		if (ssh_channel_poll(x->ch, 1) == SSH_ERROR)
			return write_error(x);
		rc = ssh_channel_write(x->ch, p, n);
		if (rc == SSH_ERROR)
			return write_error(x);
		if (rc == 0)
			return err_set("cannot write to the remote command: the channel took no data "
				       "(the ssh session has a timeout)");
		p += rc;
		len -= (size_t)rc;
		x->bytes_written += (uint64_t)rc;
	}
	return 0;
}

int ssh_exec_send_eof(struct ssh_exec *x)
{
	char e[512];

	if (x->eof_sent)
		return 0;
	x->eof_sent = 1;
	/* A command that already closed its side needs no EOF; finish reports how it ended. */
	if (ssh_channel_send_eof(x->ch) != SSH_OK && !ssh_channel_is_eof(x->ch))
		return err_set("cannot close the remote command's input: %s",
			       channel_error(x, e, sizeof(e)));
	return 0;
}

int ssh_exec_read_line(struct ssh_exec *x, char *buf, size_t len, int timeout_ms)
{
	clock_ns deadline = clock_now() + (clock_ns)(timeout_ms < 0 ? 0 : timeout_ms) * 1000000u;
	size_t n = 0;
	char e[512];

	if (len < 2)
		return err_set("line buffer too small");
	for (;;) {
		int wait = -1, rc;
		char c;

		if (timeout_ms >= 0) {
			clock_ns now = clock_now();

			if (now >= deadline)
				return err_set("no output line from the remote command within %d ms%s%s",
					       timeout_ms, x->stderr_len ? "; its stderr: " : "",
					       x->stderr_len ? stderr_first_line(x, e, 200) : "");
			wait = (int)((deadline - now + 999999u) / 1000000u);
		}
		rc = ssh_channel_read_timeout(x->ch, &c, 1, 0, wait);
		if (rc == SSH_ERROR)
			return err_set("cannot read from the remote command: %s",
				       channel_error(x, e, sizeof(e)));
		if (rc == 0) {
			/* 0 is both "timed out" and "end of file". */
			if (ssh_channel_is_eof(x->ch))
				return ended_error(x, "without writing a line");
			continue;
		}
		if (c == '\n')
			break;
		if (n + 1 >= len)
			return err_set("first output line of the remote command is longer than %zu bytes",
				       len - 1);
		buf[n++] = c;
	}
	if (n > 0 && buf[n - 1] == '\r')
		n--;
	buf[n] = '\0';
	return (int)n;
}

int ssh_exec_finish(struct ssh_exec *x, int *exit_status)
{
	char discard[16384], e[512];

	if (exit_status)
		*exit_status = -1;
	if (ssh_exec_send_eof(x) < 0)
		return -1;
	/* stdout to its end (stderr goes to the callback meanwhile); sshd sends EOF after both. */
	for (;;) {
		int rc = ssh_channel_read(x->ch, discard, sizeof(discard), 0);

		if (rc == SSH_ERROR) {
			if (ssh_channel_is_eof(x->ch))
				break;
			return err_set("lost the remote command's output: %s",
				       channel_error(x, e, sizeof(e)));
		}
		if (rc == 0 && ssh_channel_is_eof(x->ch))
			break;
	}
	/*
	 * ssh_channel_get_exit_status waits for the status or the channel's
	 * close; its -1 means both "error" and "no status" (killed by a
	 * signal), so the callbacks' record and the session tell them apart.
	 */
	if (x->exit_status == -1 && !x->exit_signal[0]) {
		(void)ssh_channel_get_exit_status(x->ch);
		if (x->exit_status == -1 && !x->exit_signal[0] &&
		    !ssh_is_connected(ssh_channel_get_session(x->ch)))
			return err_set("lost the remote command's exit status: %s",
				       channel_error(x, e, sizeof(e)));
	}
	if (exit_status)
		*exit_status = x->exit_status;
	if (x->exit_status == 0)
		return 0;
	return ended_error(x, "");
}

void ssh_exec_release(struct ssh_exec *x)
{
	if (x->ch) {
		/*
		 * libssh keeps a freed channel until the peer's close arrives:
		 * its callbacks must not point at x by then.
		 */
		if (x->cb.size)
			ssh_remove_channel_callbacks(x->ch, &x->cb);
		ssh_channel_free(x->ch);
	}
	free(x->stderr_buf);
	memset(x, 0, sizeof(*x));
	x->exit_status = -1;
}

static int sink_write(void *ctx, const void *buf, size_t len)
{
	return ssh_exec_write(ctx, buf, len);
}

static int sink_close(void *ctx)
{
	return ssh_exec_send_eof(ctx);
}

void ssh_exec_sink(struct ssh_exec *x, struct byte_sink *out)
{
	out->write = sink_write;
	out->close = sink_close;
	out->ctx = x;
}

int ssh_shell_quote(const char *in, char *out, size_t len)
{
	size_t o = 0;

	if (len < 3)
		goto too_long;
	out[o++] = '\'';
	for (const char *p = in; *p; p++) {
		const char *put = *p == '\'' ? "'\\''" : NULL;
		size_t n = put ? 4 : 1;

		/* room for this, the closing quote and the NUL */
		if (o + n + 2 > len)
			goto too_long;
		if (put) {
			memcpy(out + o, put, n);
		} else {
			out[o] = *p;
		}
		o += n;
	}
	out[o++] = '\'';
	out[o] = '\0';
	return (int)o;
too_long:
	return err_set("cannot quote '%.60s' for the remote shell: longer than %zu bytes", in,
		       len ? len - 1 : 0);
}

int ssh_exec_lines(ssh_session s, const char *command, char lines[][512], int nlines,
		   int timeout_ms)
{
	struct ssh_exec x;
	int rc = 0;

	if (ssh_exec_start(s, command, &x) < 0) {
		ssh_exec_release(&x);
		return -1;
	}
	for (int i = 0; i < nlines && rc == 0; i++)
		if (ssh_exec_read_line(&x, lines[i], sizeof(lines[i]), timeout_ms) < 0)
			rc = -1;
	if (rc == 0 && ssh_exec_finish(&x, NULL) < 0)
		rc = -1;
	ssh_exec_release(&x);
	return rc;
}
