#ifndef XFERCMP_SFTP_CONN_H
#define XFERCMP_SFTP_CONN_H

/*
 * An SFTP v3 session on an SSH channel (the host's `sftp` subsystem), spoken
 * by hand with sftp_wire.c rather than through libssh's SFTP API: libssh
 * 0.10 waits for the reply to every write, and the scp model must keep many
 * writes in flight as OpenSSH's scp does. Requests go out whole; replies are
 * read one at a time, in the order the server sends them.
 *
 * Requests and replies pass through a channel_pump thread over a socket
 * pair, as the real scp's pass through its ssh child. While the connection
 * is open that thread alone uses the ssh session.
 *
 * All calls block; the session must have no timeout (ssh_conn_open leaves
 * none).
 */

#include "ssh/channel_pump.h"
#include "ssh/sftp_wire.h"

#include <libssh/libssh.h>

#include <stddef.h>
#include <stdint.h>

/* The largest reply read: status, handle and attrs replies are far smaller. */
#define SFTP_REPLY_MAX (64 * 1024)

struct sftp_conn {
	ssh_channel ch;
	struct channel_pump pump;
	int fd;			/* our end of the pump's socket pair; -1 when closed */
	uint32_t next_id;
	uint8_t rx[SFTP_REPLY_MAX];	/* the last reply's body */
};

/*
 * Opens a channel on s, starts the sftp subsystem and does the version
 * exchange (the server must speak version 3 or later; requests are v3).
 * Returns 0 or -1 (error set, naming the missing `Subsystem sftp` line when
 * the host refuses the subsystem). sftp_conn_close is needed either way.
 */
int sftp_conn_open(struct sftp_conn *c, ssh_session s);

/* Stops the pump and closes the channel (the server's sftp-server exits). Safe to call twice. */
void sftp_conn_close(struct sftp_conn *c);

/* A fresh request id. */
uint32_t sftp_conn_id(struct sftp_conn *c);

/* Sends len bytes (whole encoded messages) on the channel. Returns 0 or -1 (error set). */
int sftp_conn_send(struct sftp_conn *c, const void *buf, size_t len);

/*
 * Reads the next reply into c->rx and parses it into r (r's pointers point
 * into c->rx until the next call). Returns 0 or -1 (error set: the session
 * ended, or the reply is too large or malformed).
 */
int sftp_conn_recv(struct sftp_conn *c, struct sftp_reply *r);

/*
 * The error for a reply to a request on remote path that is not what was
 * asked for: a status other than ok names the status and the server's
 * message; another type or id says so. Always returns -1 (error set).
 */
int sftp_conn_fail(const struct sftp_reply *r, const char *what, const char *path);

#endif
