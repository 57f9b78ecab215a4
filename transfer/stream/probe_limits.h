#ifndef XFERCMP_PROBE_LIMITS_H
#define XFERCMP_PROBE_LIMITS_H

/*
 * What both ends of a probe agree on: the time budget every probe takes, and
 * the caps of the probes the agent runs for the client (agent/agent_probes.h),
 * which the client may ask for and the agent enforces.
 */

#define PROBE_DEFAULT_SECONDS 2.0
#define PROBE_MAX_SECONDS 60.0

/* 0 when seconds is a budget a probe takes (above 0, at most PROBE_MAX_SECONDS), else -1
 * (error set). */
int probe_check_budget(double seconds);

/* Network: bytes one phase (1 stream, or n streams together) may send. */
#define PROBE_NET_MAX_BYTES (8ull << 30)
/* Network: the most streams the sweep measures (the agent's "discard" receiver takes as many). */
#define PROBE_NET_MAX_STREAMS 64u
/*
 * Network: the sweep's budget is cut into this many measuring times: 7 steps
 * (1 to 64 streams) and room for their connections' set-up.
 */
#define PROBE_NET_SWEEP_SLOTS 8
/* Network: 1-byte round trips timed (after a few untimed ones). */
#define PROBE_RTT_COUNT 1000
/* Destination disk: bytes written by default, and the most a request may ask for. */
#define PROBE_DISK_DEFAULT_BYTES (1ull << 30)
#define PROBE_DISK_MAX_BYTES (64ull << 30)
/* Destination metadata: files created by default, and the most a request may ask for. */
#define PROBE_CREATE_DEFAULT_FILES 20000ull
#define PROBE_CREATE_MAX_FILES 1000000ull
/*
 * Metadata probes at a concurrency: the most files in flight (threads) one
 * probe may ask for, and the most depths one probe phase measures (1, a
 * receiver's or sender's depth, that times -P streams).
 */
#define PROBE_MAX_DEPTH 256u
#define PROBE_DEPTHS_MAX 4

#endif
