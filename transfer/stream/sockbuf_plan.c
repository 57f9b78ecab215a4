/* One stream's socket buffer for the measured path (sockbuf_plan.h). */
#include "stream/sockbuf_plan.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static bool known(double v)
{
	return v > 0 && isfinite(v);
}

void sockbuf_plan_make(enum sockbuf_side side, double bdp_bytes, const struct sockbuf_limits *lim,
		       struct sockbuf_plan *p)
{
	double explicit_sk, ask;

	memset(p, 0, sizeof(*p));
	p->side = side;
	p->auto_sysctl = side == SOCKBUF_SEND ? "net.ipv4.tcp_wmem" : "net.ipv4.tcp_rmem";
	p->set_sysctl = side == SOCKBUF_SEND ? "net.core.wmem_max" : "net.core.rmem_max";
	if (!known(bdp_bytes))
		return;
	p->bdp_bytes = bdp_bytes;
	p->want_bytes = fmin(SOCKBUF_PER_BDP * p->bdp_bytes, SOCKBUF_MAX_BYTES);
	/* autotuning reaches it (or nothing is known of its ceiling): leave it on */
	if (!known(lim->auto_max) || p->want_bytes <= lim->auto_max) {
		p->expect_bytes = p->want_bytes;
		return;
	}
	/* the kernel doubles what it is asked */
	ask = p->want_bytes / 2;
	if (!lim->may_force && known(lim->set_max) && ask > lim->set_max)
		ask = lim->set_max;
	if (!lim->may_force && !known(lim->set_max))
		ask = 0;
	explicit_sk = 2 * ask;
	if (explicit_sk > lim->auto_max) {
		p->request_bytes = ask;
		p->force = lim->may_force;
		p->expect_bytes = explicit_sk;
	} else {
		p->expect_bytes = lim->auto_max;
	}
	p->capped = p->expect_bytes < p->want_bytes * (1 - 1e-9);
	if (p->capped) {
		p->auto_at_least = p->want_bytes;
		p->set_at_least = p->want_bytes / 2;
	}
}

const char *sockbuf_plan_advice(const struct sockbuf_plan *p, double link_bytes_per_s, double rtt_s,
				char *buf, size_t len)
{
	if (!p->capped) {
		if (len)
			buf[0] = '\0';
		return buf;
	}
	snprintf(buf, len, "raise %s max to at least %.0f MB (or %s to %.0f MB) for %.1f Gbit/s at %.1f ms",
		 p->auto_sysctl, p->auto_at_least / 1e6, p->set_sysctl, p->set_at_least / 1e6,
		 link_bytes_per_s * 8 / 1e9, rtt_s * 1e3);
	return buf;
}
