#ifndef XFERCMP_RAW_STREAM_H
#define XFERCMP_RAW_STREAM_H

/*
 * The client half of the agent's "receive" request, shared by every raw-TCP
 * strategy and the network probe: ask the agent to receive with a named
 * receiver on n streams, open the data connections, and, after the sender
 * has sent everything, collect the agent's account of what arrived.
 */

#include "client/agent_client.h"
#include "stream/xfer_stats.h"

/*
 * Opens n data connections of job (a destination from agent_client_prepare)
 * into fds[], several at once (raw_stream.c says how many), and, when keys
 * is not NULL, each one's client-to-agent key into keys[i]: what its
 * sender tags its segments with (stream/seal_stream.h). Returns 0 or -1
 * (error set; nothing left open).
 */
int raw_stream_open(struct agent_client *agent, uint64_t job, const char *receiver, unsigned n,
		    int *fds, unsigned char (*keys)[WIRE_KEY_BYTES]);

/*
 * raw_stream_open, with the agent asked to size its receive buffers for a
 * stream of rcvbuf_bdp_bytes in flight (the link's bandwidth-delay
 * product; 0: leave them to autotuning). What it granted comes back in the
 * finish's recv_stats.
 */
int raw_stream_open_sized(struct agent_client *agent, uint64_t job, const char *receiver, unsigned n,
			  double rcvbuf_bdp_bytes, int *fds, unsigned char (*keys)[WIRE_KEY_BYTES]);

/*
 * Closes the fds (the receivers see EOF) and waits for the agent's reply,
 * filling *received. send_rc is the sender's result: when it failed, its
 * error is kept and the agent's is dropped. Returns 0 or -1 (error set).
 */
int raw_stream_finish(struct agent_client *agent, int *fds, unsigned n, int send_rc,
		      struct recv_stats *received);

#endif
