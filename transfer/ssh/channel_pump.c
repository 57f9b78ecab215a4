/*
 * The pump between a socket pair and an SSH channel (channel_pump.h). OpenSSH's
 * scp runs `ssh -s sftp` as a child and talks to it over a socket pair; every
 * SFTP request and reply of a real `scp -r` crosses it. A model without that
 * hop ran 0.72-0.81x the real scp's time on 120,000 small files, whose four
 * round trips each are where the hop costs (docs/BENCHMARKS.md).
 */
#define _GNU_SOURCE
#include "ssh/channel_pump.h"

#include "err.h"
#include "fsutil.h"
#include "ssh/ssh_conn.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/*
 * What one read moves. OpenSSH's ssh reads its side of the pair up to 32 KiB
 * at a time (CHANNEL_MAX_READ); the fidelity figures of docs/BENCHMARKS.md
 * were measured with this 64 KiB.
 */
#define PUMP_CHUNK (64u << 10)

static void stopped(struct channel_pump *p, const char *what)
{
	char e[400];

	snprintf(p->error, sizeof(p->error), "%s: %s", what,
		 ssh_conn_error_text(ssh_channel_get_session(p->ch), e, sizeof(e),
				     "connection lost"));
}

/*
 * How far each way has got. A stream ends as TCP's does, one way at a time:
 * the caller's EOF goes on as the channel's EOF, the channel's EOF as a
 * half-close of the caller's end, and the pump ends only when both have.
 */
struct pump_state {
	int sent_eof;		/* the caller finished writing: EOF sent on the channel */
	int remote_eof;		/* the far end finished: the caller's end is half-closed */
	int caller_gone;	/* the caller no longer reads: what comes is dropped */
};

/*
 * Replies: whatever the channel holds goes to the caller. 1 moved, 0 none,
 * 2 the far end has ended (SSH_EOF, nothing left unread), -1 stop.
 */
static int channel_to_caller(struct channel_pump *p, struct pump_state *st, uint8_t *buf)
{
	int avail = ssh_channel_poll(p->ch, 0);
	int n;

	if (avail == SSH_ERROR) {
		stopped(p, "the ssh connection broke");
		return -1;
	}
	if (avail == SSH_EOF)
		return 2;
	if (avail == 0)
		return 0;
	n = ssh_channel_read_nonblocking(p->ch, buf, avail < (int)PUMP_CHUNK ? (uint32_t)avail :
									       PUMP_CHUNK, 0);
	if (n == SSH_ERROR) {
		stopped(p, "cannot read the ssh channel");
		return -1;
	}
	if (st->caller_gone)
		return 1;
	/*
	 * send, not write: EPIPE rather than SIGPIPE, which once killed a test
	 * tool in CI. The caller closed its end: it stops; so does the pump,
	 * unless the caller had finished writing, and the pump only waits for
	 * the far end's EOF.
	 */
	if (fs_send_all(p->fd, buf, (size_t)n) < 0) {
		if (!st->sent_eof)
			return -1;
		st->caller_gone = 1;
	}
	return 1;
}

/* Requests: what the caller wrote goes on the channel. 0 went on, -1 stop. */
static int caller_to_channel(struct channel_pump *p, struct pump_state *st, uint8_t *buf)
{
	ssize_t n = read(p->fd, buf, PUMP_CHUNK);

	if (n < 0 && errno == EINTR)
		return 0;
	if (n <= 0) {
		/*
		 * The caller is done: the far end (sftp-server, the agent) sees
		 * EOF once sshd has passed on all it holds. The session must
		 * live until then: sshd drops what it holds for the far end
		 * when the client disconnects, and a fresh-clone CI run lost so
		 * the last 32 KiB of a 3 MiB file and 1 MiB of a 1 GiB splice.
		 * The pump waits for the far end's EOF (pump_main).
		 */
		if (ssh_channel_send_eof(p->ch) == SSH_ERROR) {
			stopped(p, "cannot send EOF on the ssh channel");
			return -1;
		}
		st->sent_eof = 1;
		return 0;
	}
	/*
	 * a write can be short: libssh waits for the peer's window for its
	 * default 10 s at most (the session has no timeout of its own), which a
	 * bulk stream into a slow receiver (a tunnel to the agent) reaches
	 */
	for (ssize_t done = 0; done < n;) {
		int w = ssh_channel_write(p->ch, buf + done, (uint32_t)(n - done));

		if (w == SSH_ERROR || ssh_channel_is_closed(p->ch)) {
			stopped(p, "cannot write the ssh channel");
			return -1;
		}
		done += w;
	}
	return 0;
}

static void *pump_main(void *arg)
{
	struct channel_pump *p = arg;
	struct pump_state st = { 0 };
	uint8_t *buf = malloc(PUMP_CHUNK);
	int rc = buf ? 0 : -1;

	if (!buf)
		snprintf(p->error, sizeof(p->error), "out of memory for the ssh pump");
	while (rc == 0 && !(st.sent_eof && st.remote_eof)) {
		ssh_session s = ssh_channel_get_session(p->ch);
		struct pollfd pf[2] = {
			{ .fd = p->fd, .events = POLLIN },
			{ .fd = ssh_get_fd(s), .events = POLLIN },
		};

		/* libssh may hold replies it read while writing: hand those over before sleeping */
		rc = st.remote_eof ? 0 : channel_to_caller(p, &st, buf);
		if (rc == 1) {
			rc = 0;
			continue;
		}
		if (rc == 2) {
			if (st.sent_eof)
				break;	/* both ways have ended: every byte went on */
			/*
			 * the caller reads EOF and may still write (a half-close);
			 * libssh reads the session no more for this channel, so
			 * its socket is not watched for input (it would wake the
			 * pump for nothing); a write still waits for the window
			 */
			shutdown(p->fd, SHUT_WR);
			st.remote_eof = 1;
			rc = 0;
			continue;
		}
		if (rc < 0)
			break;
		/*
		 * ... and bytes it queued because the socket was full then (a non-
		 * blocking read sends window adjusts). Sleeping on input alone can
		 * wait for replies the host will not send before those bytes arrive:
		 * a bench run hung so for 20 minutes, gdb showing SSH_WRITE_PENDING
		 * and both TCP queues empty. Wake when the socket can take them too,
		 * and send them (timeout 0: without blocking).
		 */
		if (st.remote_eof)
			pf[1].events = 0;
		if (ssh_get_poll_flags(s) & SSH_WRITE_PENDING)
			pf[1].events |= POLLOUT;
		/*
		 * a way that has ended is not watched: a closed end reports
		 * POLLHUP whatever is asked, and would wake the pump for nothing
		 */
		if (st.sent_eof)
			pf[0].fd = -1;
		if (!pf[1].events)
			pf[1].fd = -1;
		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			snprintf(p->error, sizeof(p->error), "ssh pump: poll: %s", strerror(errno));
			break;
		}
		if ((pf[1].revents & POLLOUT) && ssh_blocking_flush(s, 0) == SSH_ERROR) {
			stopped(p, "cannot write to the ssh connection");
			break;
		}
		if (pf[0].revents)
			rc = caller_to_channel(p, &st, buf);
	}
	free(buf);
	/* the caller, blocked on its end, sees EOF */
	shutdown(p->fd, SHUT_RDWR);
	return NULL;
}

int channel_pump_start(struct channel_pump *p, ssh_channel ch, int *caller_fd)
{
	int sv[2], e;

	p->ch = ch;
	p->fd = -1;
	p->running = 0;
	p->error[0] = '\0';
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return err_errno("cannot create the socket pair to the ssh pump");
	p->fd = sv[1];
	e = pthread_create(&p->thread, NULL, pump_main, p);
	if (e != 0) {
		close(sv[0]);
		close(sv[1]);
		p->fd = -1;
		errno = e;
		return err_errno("cannot start the ssh pump thread");
	}
	p->running = 1;
	*caller_fd = sv[0];
	return 0;
}

void channel_pump_stop(struct channel_pump *p)
{
	if (!p->running)
		return;
	pthread_join(p->thread, NULL);
	p->running = 0;
	close(p->fd);
	p->fd = -1;
}
