#ifndef XFERCMP_SOCKBUF_PLAN_H
#define XFERCMP_SOCKBUF_PLAN_H

/*
 * How big one stream's socket buffer must be for the measured path, whether
 * to set it or leave it to Linux's autotuning, and, when this machine's
 * sysctls keep it from that size, which sysctl to raise and to what. Pure
 * arithmetic (tests/unit/stream/test_sockbuf_plan.c); stream/sock_size.c
 * reads the sysctls and applies the plan to a socket.
 *
 * What Linux does (net/core/sock.c, socket(7)): setsockopt(SO_SNDBUF, v)
 * sets the buffer to 2 * min(v, net.core.wmem_max) ("to allow space for
 * bookkeeping overhead") and locks it: autotuning no longer grows it.
 * SO_SNDBUFFORCE / SO_RCVBUFFORCE (CAP_NET_ADMIN) skip the net.core cap.
 * Left alone, autotuning grows the buffer up to the third value of
 * net.ipv4.tcp_wmem (tcp_rmem on the receiving side), counted the same way,
 * overhead included. So an explicit size is worth setting only when the
 * stream needs more than autotuning reaches and the explicit one is larger.
 */

#include <stdbool.h>
#include <stddef.h>

/*
 * The buffer a stream needs is this many times its bandwidth-delay product:
 * the kernel's own doubling for bookkeeping (socket(7)). Measured on the
 * testbed at 20 ms: an autotuned 4 MiB send buffer carried 147-170 MB/s,
 * 2.9-3.4 MB a round trip, 0.70-0.81 of the buffer.
 */
#define SOCKBUF_PER_BDP 2.0
/*
 * The most one socket is given, whatever the path: 256 MiB (a 50 Gbit/s
 * link at 20 ms needs 250 MB); the memory is the session's, one stream.
 */
#define SOCKBUF_MAX_BYTES (256.0 * 1024 * 1024)

enum sockbuf_side { SOCKBUF_SEND, SOCKBUF_RECV };

/* This machine's limits for one side (0 = unknown). */
struct sockbuf_limits {
	double auto_max;	/* net.ipv4.tcp_wmem / tcp_rmem, third value: autotuning's ceiling */
	double set_max;		/* net.core.wmem_max / rmem_max: the most setsockopt takes (then doubled) */
	bool may_force;		/* CAP_NET_ADMIN: SO_*BUFFORCE passes set_max */
};

struct sockbuf_plan {
	enum sockbuf_side side;
	double bdp_bytes;	/* link x round trip */
	double want_bytes;	/* the buffer the stream needs: SOCKBUF_PER_BDP x bdp, at most SOCKBUF_MAX_BYTES */
	double request_bytes;	/* the value to pass to setsockopt; 0: leave autotuning on */
	bool force;		/* with SO_SNDBUFFORCE / SO_RCVBUFFORCE */
	double expect_bytes;	/* the buffer the stream will have: 2 x request, or what autotuning reaches */
	bool capped;		/* expect_bytes < want_bytes: this machine's sysctls hold it back */
	/* when capped: the autotuning sysctl to raise and its least third value */
	const char *auto_sysctl;	/* "net.ipv4.tcp_wmem" or "net.ipv4.tcp_rmem" */
	double auto_at_least;
	/* ... or the net.core one that lets an explicit size through, and its least value */
	const char *set_sysctl;		/* "net.core.wmem_max" or "net.core.rmem_max" */
	double set_at_least;
};

/*
 * Plans one side's buffer for a stream with bdp_bytes in flight (the link's
 * rate times the round trip: net_window_bdp_bytes). Unknown (<= 0):
 * autotuning, not capped.
 */
void sockbuf_plan_make(enum sockbuf_side side, double bdp_bytes, const struct sockbuf_limits *lim,
		       struct sockbuf_plan *p);

/*
 * One line for the report when p is capped, e.g. "raise net.ipv4.tcp_wmem
 * max to at least 52 MB (or net.core.wmem_max to 26 MB) for 10.4 Gbit/s at
 * 20.0 ms"; "" when it is not. Returns buf.
 */
const char *sockbuf_plan_advice(const struct sockbuf_plan *p, double link_bytes_per_s, double rtt_s,
				char *buf, size_t len);

#endif
