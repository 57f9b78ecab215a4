#ifndef XFERCMP_GATE_LIMITS_H
#define XFERCMP_GATE_LIMITS_H

/*
 * What the agent's gate (agent/agent_gate.h) and its client agree on,
 * without the client reaching into the agent: the client opens at most
 * AGENT_GATE_PER_ADDR connections at once (the gate holds more: they never
 * push each other out), and tries a connection the agent closed before
 * answering once more, AGENT_GATE_RETRY_MS later (a gate whose every place
 * a key holder's handshake took frees within the agent's 5 s hello limit).
 */
#define AGENT_GATE_PER_ADDR 4
#define AGENT_GATE_RETRY_MS 1000

#endif
