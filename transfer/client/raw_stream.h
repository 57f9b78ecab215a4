#ifndef XFERCMP_RAW_STREAM_H
#define XFERCMP_RAW_STREAM_H

/*
 * The client half of the agent's "receive" request, shared by every raw-TCP
 * strategy: ask the agent to receive with a named receiver on n streams,
 * open the data connections, and, after the strategy has sent everything,
 * collect the agent's account of what arrived.
 */

#include "strategy/strategy.h"

/* Opens n data connections into fds[]. Returns 0 or -1 (error set; nothing left open). */
int raw_stream_open(struct xfer_run *run, const char *receiver, unsigned n, int *fds);

/*
 * Closes the fds (the receivers see EOF) and waits for the agent's reply,
 * filling run->received. send_rc is the sender's result: when it failed, its
 * error is kept and the agent's is dropped. Returns 0 or -1 (error set).
 */
int raw_stream_finish(struct xfer_run *run, int *fds, unsigned n, int send_rc);

#endif
