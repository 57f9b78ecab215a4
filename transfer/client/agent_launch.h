#ifndef XFERCMP_AGENT_LAUNCH_H
#define XFERCMP_AGENT_LAUNCH_H

#include "stream/wire.h"

#include <sys/types.h>

/*
 * Starting an agent the client owns. The token goes over the agent's stdin,
 * never on a command line; the agent's first line of output names its port;
 * the agent lives as long as its stdin stays open, so it dies with us.
 */
struct agent_process {
	pid_t pid;
	int stdin_fd;	/* closing it ends the agent */
	char host[64];
	char port[16];
	char token[WIRE_TOKEN_HEX + 1];
};

/* Starts `xfercmp serve` on 127.0.0.1 from this very binary. Returns 0 or -1 (error set). */
int agent_launch_local(struct agent_process *p, const char *root);

/* Ends the agent (closes stdin, then TERM, then KILL) and reaps it. */
void agent_process_stop(struct agent_process *p);

#endif
