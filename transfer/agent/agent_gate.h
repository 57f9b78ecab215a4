#ifndef XFERCMP_AGENT_GATE_H
#define XFERCMP_AGENT_GATE_H

/*
 * The agent's door: connections that have not yet said hello wait here, and
 * only one whose whole HELLO frame has arrived is handed on, so a stranger
 * that connects and says nothing (or trickles bytes) never holds up the
 * agent. At most AGENT_GATE_MAX connections wait at once, each at most
 * AGENT_HELLO_TIMEOUT_MS; then it is closed. When the gate is full a
 * newcomer pushes out the oldest waiting connection, but never one younger
 * than AGENT_GATE_MIN_AGE_MS (a real client says hello within
 * milliseconds of connecting: seen here, 0.2-2 ms on loopback and the
 * testbed; it must not be pushed out before its hello is read), else the
 * newcomer is closed (the client retries once). One source address holds
 * at most AGENT_GATE_PER_ADDR places, so strangers from one machine cannot
 * fill the gate. A newcomer from the preferred address (the agent's SSH
 * client, SSH_CONNECTION's first field) always gets in, pushing out the
 * oldest stranger of any age.
 * Nothing but a hello is ever read from them: the key's proof, and with it
 * every request, happens only after the gate.
 */

#include "clock.h"

#include <sys/socket.h>

#define AGENT_GATE_MAX 8
#define AGENT_GATE_PER_ADDR 4
#define AGENT_GATE_MIN_AGE_MS 1000
#define AGENT_GATE_MAX_HELLO 4096	/* a hello is a short JSON object */

struct agent_gate {
	int lfd;	/* the listening socket; not owned */
	unsigned n;
	int fd[AGENT_GATE_MAX];
	clock_ns deadline[AGENT_GATE_MAX];
	clock_ns born[AGENT_GATE_MAX];
	struct sockaddr_storage addr[AGENT_GATE_MAX];
};

/*
 * The address whose connections always get in, for every gate of this
 * process (the agent's SSH client: SSH_CONNECTION's first field). NULL or
 * an unparsable text: none. Returns 1 when one is set, else 0.
 */
int agent_gate_prefer(const char *ip);

void agent_gate_init(struct agent_gate *g, int lfd);

/*
 * Accepts connections on the listening socket and waits, at most timeout_ms
 * (-1: no limit), for one whose HELLO frame has fully arrived. Returns its fd
 * (the caller owns it; the frame is still unread), -2 when the time ran out,
 * or -1 (error set) when the listening socket failed.
 */
int agent_gate_next(struct agent_gate *g, int timeout_ms);

/* Closes the connections still waiting. */
void agent_gate_release(struct agent_gate *g);

#endif
