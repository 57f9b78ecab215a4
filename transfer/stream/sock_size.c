/* Socket buffers sized from a plan (sock_size.h). */
#include "stream/sock_size.h"

#include <limits.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

double sock_size_sysctl_max(const char *path)
{
	FILE *f = fopen(path, "r");
	double v[3] = { 0, 0, 0 };
	int got;

	if (!f)
		return 0;
	got = fscanf(f, "%lf %lf %lf", &v[0], &v[1], &v[2]);
	fclose(f);
	/* a one-number sysctl (net.core.wmem_max) is its own maximum */
	return got == 3 ? v[2] : got == 1 ? v[0] : 0;
}

void sock_size_limits(enum sockbuf_side side, struct sockbuf_limits *lim)
{
	bool send = side == SOCKBUF_SEND;

	lim->auto_max = sock_size_sysctl_max(send ? "/proc/sys/net/ipv4/tcp_wmem" : "/proc/sys/net/ipv4/tcp_rmem");
	lim->set_max = sock_size_sysctl_max(send ? "/proc/sys/net/core/wmem_max" : "/proc/sys/net/core/rmem_max");
	lim->may_force = !send && geteuid() == 0;
}

double sock_size_apply(int fd, const struct sockbuf_plan *p)
{
	bool send = p->side == SOCKBUF_SEND;
	int granted = 0;
	socklen_t len = sizeof(granted);

	if (p->request_bytes > 0) {
		int v = p->request_bytes > INT_MAX / 2 ? INT_MAX / 2 : (int)p->request_bytes;

		if (!p->force || setsockopt(fd, SOL_SOCKET, send ? SO_SNDBUFFORCE : SO_RCVBUFFORCE, &v, sizeof(v)) < 0)
			setsockopt(fd, SOL_SOCKET, send ? SO_SNDBUF : SO_RCVBUF, &v, sizeof(v));
	}
	if (getsockopt(fd, SOL_SOCKET, send ? SO_SNDBUF : SO_RCVBUF, &granted, &len) < 0)
		return 0;
	return granted;
}
