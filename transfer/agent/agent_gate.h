#ifndef XFERCMP_AGENT_GATE_H
#define XFERCMP_AGENT_GATE_H

/*
 * The agent's door: connections that have not yet said hello wait here, and
 * only one whose whole HELLO frame has arrived is handed on, so a stranger
 * that connects and says nothing (or trickles bytes) never holds up the
 * agent. At most AGENT_GATE_MAX connections wait at once, each at most
 * AGENT_HELLO_TIMEOUT_MS; then it is closed.
 *
 * A hello carries a tag made with the session key (wire_auth.h): only a key
 * holder's hello is answered, and a key holder's connection is never pushed
 * out, whatever its address. A stranger's hello is refused at once. When
 * the gate is full, a newcomer pushes out the oldest silent connection of
 * the address that holds the most places (never a key holder's), so a flood
 * of silent connections, even from the client's own address (a NAT, other
 * users of one machine, sshd's own address for a tunnel), pushes out its
 * own oldest first and never keeps the client out: its hello comes within
 * milliseconds of its connect (seen here, 0.2-2 ms on loopback and the
 * testbed) and is read before AGENT_GATE_MAX newcomers could follow it.
 * Only a gate full of key holders refuses a newcomer.
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

#define AGENT_GATE_MAX 16
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
