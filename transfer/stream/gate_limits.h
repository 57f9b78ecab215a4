#ifndef XFERCMP_GATE_LIMITS_H
#define XFERCMP_GATE_LIMITS_H

/*
 * What the agent's gate (agent/agent_gate.h, which explains them) promises
 * a client, so both ends agree without the client reaching into the agent:
 * one source address holds at most GATE_PER_ADDR waiting places, and a
 * waiting connection younger than GATE_MIN_AGE_MS is never pushed out.
 */
#define AGENT_GATE_PER_ADDR 4
#define AGENT_GATE_MIN_AGE_MS 1000

#endif
