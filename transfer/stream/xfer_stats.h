#ifndef XFERCMP_XFER_STATS_H
#define XFERCMP_XFER_STATS_H

#include <stdint.h>

/* What a sender counts: bytes it read from the source, bytes it put on the wire. */
struct send_stats {
	uint64_t files;		/* files (or ranges) sent */
	uint64_t bytes_read;	/* content bytes read from the source */
	uint64_t wire_bytes;	/* bytes handed to the socket or channel, framing included */
	uint64_t round_trips;	/* requests that waited for a reply (per-file protocols) */
};

/* What a receiver counts. */
struct recv_stats {
	uint64_t files;		/* files (or ranges) written */
	uint64_t bytes;		/* content bytes written */
	uint64_t wire_bytes;	/* bytes read from the socket, framing included */
};

#endif
