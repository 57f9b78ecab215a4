#ifndef XFERCMP_SOCK_SIZE_H
#define XFERCMP_SOCK_SIZE_H

/*
 * This machine's socket-buffer sysctls, and a sockbuf_plan (stream/
 * sockbuf_plan.h) applied to one socket: the sender's SO_SNDBUF on the
 * client, the receiver's SO_RCVBUF (SO_RCVBUFFORCE as root) on the agent.
 */

#include "stream/sockbuf_plan.h"

/* The third number of a sysctl such as net.ipv4.tcp_wmem ("4096 16384 4194304"), or 0. */
double sock_size_sysctl_max(const char *path);

/*
 * Fills *lim for side from /proc/sys (0 for what cannot be read).
 * may_force only for the receiving side and only as root: the agent may
 * raise its own receive buffer; the client leaves the user's caps alone.
 */
void sock_size_limits(enum sockbuf_side side, struct sockbuf_limits *lim);

/*
 * Sets fd's buffer when p asks for one (p->request_bytes > 0; a refused
 * FORCE falls back to the plain option, capped by net.core); leaves
 * autotuning on otherwise. Returns the buffer the kernel reports for fd now
 * (getsockopt), 0 when it cannot be read.
 */
double sock_size_apply(int fd, const struct sockbuf_plan *p);

#endif
