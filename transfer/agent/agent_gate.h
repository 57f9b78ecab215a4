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
 *
 * The handshake (wire_auth.h) is made in the gate too, one step at a time
 * as each frame arrives: a peer that sends a good hello and then stalls
 * before its proof of the key waits here, its deadline running from its
 * connect, while others pass (agent_gate_accept). No frame is read before
 * it has wholly arrived, so no peer can make the agent wait on it.
 */

#include "clock.h"
#include "stream/gate_limits.h"
#include "stream/wire_auth.h"

#include <json-c/json.h>
#include <sys/socket.h>

#define AGENT_GATE_MAX 8
#define AGENT_GATE_MAX_HELLO 4096	/* a hello is a short JSON object */

/* What a waiting connection has to send next. */
enum agent_gate_stage { AGENT_GATE_HELLO, AGENT_GATE_AUTH };

struct agent_gate_entry {
	int fd;
	enum agent_gate_stage stage;
	clock_ns born, deadline;	/* the deadline runs from the connect, for the whole handshake */
	struct sockaddr_storage addr;
	struct wire_binding binding;	/* for AGENT_GATE_AUTH: what the agent answered */
};

struct agent_gate {
	int lfd;	/* the listening socket; not owned */
	unsigned n;
	struct agent_gate_entry e[AGENT_GATE_MAX];
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
 * (-1: no limit), for one whose next frame (its stage's: HELLO, or AUTH for
 * one put back with agent_gate_hold) has fully arrived. Returns its fd (the
 * caller owns it; the frame is still unread) with its entry in *ready, -2
 * when the time ran out, or -1 (error set) when the listening socket failed.
 */
int agent_gate_next(struct agent_gate *g, int timeout_ms, struct agent_gate_entry *ready);

/* Puts ready (from agent_gate_next) back to wait for its AUTH, with binding b. */
void agent_gate_hold(struct agent_gate *g, const struct agent_gate_entry *ready,
		     const struct wire_binding *b);

/*
 * Checks a peer's HELLO before the agent answers it: 0 to go on, -1 with
 * the error set (sent to the peer) to refuse it.
 */
typedef int (*agent_hello_check)(void *arg, json_object *hello);

/*
 * Waits, at most timeout_ms (-1: no limit), for a peer that completes the
 * handshake with the session key: its HELLO passes check, the agent
 * answers with its proof, the peer's AUTH proves the key. A peer that
 * fails any step is told and closed; one that stalls waits in the gate
 * while others go on. Returns the fd (owned by the caller) with *chan
 * authenticated and *b what it is bound to (role, job, stream), -2 when the
 * time ran out, -1 (error set) when the listening socket failed.
 */
int agent_gate_accept(struct agent_gate *g, const unsigned char key[WIRE_KEY_BYTES], int timeout_ms,
		      agent_hello_check check, void *arg, struct wire_chan *chan,
		      struct wire_binding *b);

/* Closes the connections still waiting. */
void agent_gate_release(struct agent_gate *g);

#endif
