#ifndef XFERCMP_RESOURCE_H
#define XFERCMP_RESOURCE_H

/* The resources the model charges a transfer's time to (docs/MODEL.md). */

enum resource {
	RES_NETWORK,	/* the link's rate: bytes on the wire */
	RES_LATENCY,	/* waiting on the wire: round trips beyond their CPU, handshakes, slow start */
	RES_DISK,	/* bytes read cold and written to durable */
	RES_METADATA,	/* per-file work: opens, creates, a serial protocol's per-request work */
	RES_CPU,	/* compression, ciphers, both ends' processes on shared cores */
	RES_COUNT	/* as a share index: "other"; as a verdict: nothing attributable */
};

/* "network", "latency", "disk", "metadata", "cpu"; "other" for RES_COUNT. */
const char *resource_name(enum resource r);

/* "network-bound", ..., "cpu-bound"; "unattributed" for RES_COUNT. */
const char *resource_verdict_name(enum resource r);

#endif
