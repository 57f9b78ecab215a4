#ifndef XFERCMP_AGENT_GATE_H
#define XFERCMP_AGENT_GATE_H

/*
 * The agent's door: connections that have not yet said hello wait here, and
 * only one whose whole HELLO frame has arrived is handed on, so a stranger
 * that connects and says nothing (or trickles bytes) never holds up the
 * agent. At most AGENT_GATE_MAX connections wait at once (a new one pushes
 * out the oldest), each at most AGENT_HELLO_TIMEOUT_MS; then it is closed.
 * Nothing but a hello is ever read from them: the token check, and with it
 * every request, happens only after the gate.
 */

#include "clock.h"

#define AGENT_GATE_MAX 8
#define AGENT_GATE_MAX_HELLO 4096	/* a hello is a short JSON object */

struct agent_gate {
	int lfd;	/* the listening socket; not owned */
	unsigned n;
	int fd[AGENT_GATE_MAX];
	clock_ns deadline[AGENT_GATE_MAX];
};

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
