#ifndef XFERCMP_SSH_EXEC_H
#define XFERCMP_SSH_EXEC_H

/*
 * A remote command on an SSH exec channel, used two ways: as a byte sink
 * (`tar -xf -` reading what we write) and as a reader of the command's
 * first output line (the agent bootstrap learns the agent's port from it).
 *
 * What the command writes to stderr is taken off the channel as soon as
 * libssh reads it (a channel callback), whatever call is running: a command
 * that complains a lot never stalls on a full channel window, and the first
 * line is at hand for the error message when it fails. Its stdout is left
 * on the channel for ssh_exec_read_line and discarded by ssh_exec_finish;
 * a command that writes more than the channel window (about 1.2 MiB) to
 * stdout before reading all its input stalls: the sinks used here (`cat >`,
 * `tar -x`) write nothing there.
 *
 * All calls block; the session must have no timeout (ssh_conn_open leaves
 * none), else libssh ends waits early and reads look like end of file.
 */

#include "stream/tar_stream.h"

#include <libssh/callbacks.h>
#include <libssh/libssh.h>

#include <stddef.h>
#include <stdint.h>

/* stderr kept for messages; the rest is counted and dropped. */
#define SSH_EXEC_STDERR_MAX (64 * 1024)

/* The most handed to one ssh_channel_write: it ends each call with a blocking flush. */
#define SSH_EXEC_WRITE_MAX (1024 * 1024)

struct ssh_exec {
	ssh_channel ch;
	char *stderr_buf;	/* the command's stderr, NUL-terminated, first SSH_EXEC_STDERR_MAX bytes */
	size_t stderr_len;
	uint64_t stderr_total;	/* bytes it wrote to stderr in all */
	uint64_t bytes_written;	/* bytes written to its stdin */
	int eof_sent;
	int exit_status;	/* -1 until the exit-status message comes */
	char exit_signal[32];	/* "" unless killed by a signal ("TERM", "KILL") */
	struct ssh_channel_callbacks_struct cb;	/* points at this struct: do not move it */
};

/*
 * Opens a session channel on s and runs command (a remote shell command
 * line: quote what comes from elsewhere with ssh_shell_quote). x is
 * initialized here and must stay at the same address until
 * ssh_exec_release, which the caller calls after success and failure alike.
 * Returns 0 or -1 (error set).
 */
int ssh_exec_start(ssh_session s, const char *command, struct ssh_exec *x);

/*
 * Writes all len bytes to the command's stdin, in pieces of at most
 * SSH_EXEC_WRITE_MAX, looping on short counts; pass large buffers (256 KiB
 * to 1 MiB): every call ends with a blocking flush. If the command exits
 * before reading everything, the error says how it ended and what it wrote
 * to stderr. Returns 0 or -1 (error set).
 */
int ssh_exec_write(struct ssh_exec *x, const void *buf, size_t len);

/* Tells the command its stdin is complete (once; later calls do nothing). Returns 0 or -1. */
int ssh_exec_send_eof(struct ssh_exec *x);

/*
 * Reads the next line of the command's stdout into buf (NUL-terminated,
 * without "\n" or "\r\n"), waiting at most timeout_ms (< 0: no limit). Reads
 * byte by byte, so nothing after the line is taken off the channel. Returns
 * the line's length, or -1 (error set) on timeout, on a line that does not
 * fit in len - 1 bytes, or when the output ends first (the error then says
 * how the command ended and what it wrote to stderr).
 */
int ssh_exec_read_line(struct ssh_exec *x, char *buf, size_t len, int timeout_ms);

/*
 * Ends the command: sends EOF (if not yet sent), discards its stdout until
 * end of file, collects its stderr, and waits for its exit status, stored in
 * *exit_status (may be NULL; -1 if killed by a signal or none came). Blocks
 * until the command exits. Returns 0 when it exited with status 0; -1 with
 * the error "remote command failed (exit N): <first line of stderr>" (or
 * "killed by signal S") otherwise.
 */
int ssh_exec_finish(struct ssh_exec *x, int *exit_status);

/*
 * One exec: runs command, reads nlines lines of its output (each within
 * timeout_ms) into lines[] and waits for it to end well. Returns 0 or -1
 * (error set).
 */
int ssh_exec_lines(ssh_session s, const char *command, char lines[][512], int nlines,
		   int timeout_ms);

/*
 * Closes and frees the channel and the stderr buffer; safe on a zeroed or
 * released x. Call it before closing the session: ssh_free frees the channel.
 */
void ssh_exec_release(struct ssh_exec *x);

/*
 * A byte sink over the command's stdin (tar_stream.h): write is
 * ssh_exec_write, close is ssh_exec_send_eof. ssh_exec_finish still has to
 * be called for the exit status.
 */
void ssh_exec_sink(struct ssh_exec *x, struct byte_sink *out);

/*
 * Quotes in as one word for a POSIX shell: 'in', each ' written as '\''.
 * Writes at most len bytes including the NUL. Returns the quoted length,
 * or -1 (error set) if it does not fit.
 */
int ssh_shell_quote(const char *in, char *out, size_t len);

#endif
