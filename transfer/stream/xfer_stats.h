#ifndef XFERCMP_XFER_STATS_H
#define XFERCMP_XFER_STATS_H

#include "stream/sockbuf_plan.h"

#include <stdbool.h>
#include <stdint.h>

/* What a sender counts: bytes it read from the source, bytes it put on the wire. */
struct send_stats {
	uint64_t files;		/* files (or ranges) sent */
	uint64_t bytes_read;	/* content bytes read from the source */
	uint64_t wire_bytes;	/* bytes handed to the socket or channel, framing included */
	uint64_t round_trips;	/* requests that waited for a reply (per-file protocols) */
	/*
	 * A sender of one thread (the tar stream's): seconds from its start to
	 * its last byte, less what it waited for the stream's next stage to
	 * take its bytes; its own stage, the source's waits in it (0: not
	 * measured).
	 */
	double own_s;
};

/* What a receiver counts. */
struct recv_stats {
	uint64_t files;		/* files (or ranges) written */
	uint64_t bytes;		/* content bytes written */
	uint64_t wire_bytes;	/* bytes read from the socket, framing included */
	/*
	 * CPU seconds of the receiving threads themselves (not the io-wq
	 * workers they hand writes to): what the round-trip probe's echo
	 * spent, so the probe can tell a round trip's CPU from its wait.
	 */
	double cpu_s;
	/*
	 * When the client asked the agent to size its receive buffers
	 * (raw_stream_open_sized): the buffer stream 0 was granted and the
	 * agent's limits, for the report's advice. Not summed over streams.
	 */
	bool rcvbuf_sized;
	double rcvbuf_bytes;
	struct sockbuf_limits rcvbuf_limits;
};

#endif
