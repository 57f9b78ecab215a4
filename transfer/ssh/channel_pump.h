#ifndef XFERCMP_CHANNEL_PUMP_H
#define XFERCMP_CHANNEL_PUMP_H

/*
 * A thread that carries bytes both ways between one end of a socket pair and
 * an SSH channel: the ssh client process that OpenSSH's scp talks to over a
 * socket pair. With it in the path, each request and each reply crosses a
 * local socket and wakes another task, as it does for the real scp. Also
 * the pump of a direct-tcpip tunnel to the agent (ssh_tunnel.h).
 *
 * While the pump runs it alone uses the channel's session: the caller reads
 * and writes only its own end of the pair.
 */

#include <libssh/libssh.h>

#include <pthread.h>

struct channel_pump {
	ssh_channel ch;
	int fd;			/* the pump's end of the pair */
	pthread_t thread;
	int running;
	char error[512];	/* why the pump stopped early; "" when it did not */
};

/*
 * Starts the pump on ch and sets *caller_fd to the caller's end of the pair.
 * Returns 0 or -1 (error set; nothing left running or open).
 */
int channel_pump_start(struct channel_pump *p, ssh_channel ch, int *caller_fd);

/*
 * Waits for the pump to end and closes its end. The caller closes (or
 * shuts down for writing) its own end first, which tells the pump to send
 * EOF on the channel; the pump ends when the far end has ended too (its EOF
 * or close: sftp-server exited, the agent closed the connection), passing
 * on what comes until then, or dropping it once the caller's end is closed.
 * So when this returns the far end has read every byte (sshd drops what it
 * still holds for the far end when the session is disconnected). The far
 * end's EOF before the caller's shuts the caller's end down for writing: it
 * reads EOF and may still write, as with TCP. Safe on a zeroed pump that was
 * never started, and twice.
 */
void channel_pump_stop(struct channel_pump *p);

#endif
