/* A window-limited stream's wait, counted as latency (attribution_window.h). */
#include "model/attribution_window.h"
#include "model/attribution_text.h"

#include <math.h>

static double positive(double v)
{
	return v > 0 && isfinite(v) ? v : 0;
}

double attribution_window_wait(const struct attribution_input *in, const struct ceilings *c,
			       const double need[RES_COUNT])
{
	double cap = positive(c->stream_cap_bps), slowest = 0, wait;

	if (!(cap > 0) || !(positive(c->net_bps) > cap))
		return 0;
	for (int r = 0; r < RES_COUNT; r++) {
		if (r == RES_LATENCY || (in->structure == ATTR_SERIAL && r != RES_NETWORK))
			continue;
		if (positive(need[r]) > slowest)
			slowest = need[r];
	}
	wait = (double)in->wire_bytes / cap - slowest;
	return wait > 0 ? wait : 0;
}

void attribution_window_reason(const struct attribution_input *in, const struct ceilings *c,
			       double wall, double wait, char *buf, size_t len)
{
	char cap[32], link[32], rtt[32];
	size_t used = 0;
	unsigned streams = in->streams ? in->streams : 1;

	attr_append(buf, len, &used, "%s window-limited at %s MB/s",
		    streams > 1 ? "its streams are" : "one stream is",
		    attr_mb_s(c->stream_cap_bps, cap, sizeof(cap)));
	if (positive(c->window_bytes) > 0)
		attr_append(buf, len, &used, " (a %.1f MiB window per %s round trip%s)",
			    c->window_bytes / (1024.0 * 1024.0), attr_rtt(c->rtt_s, rtt, sizeof(rtt)),
			    streams > 1 ? " each" : "");
	attr_append(buf, len, &used, "; the link carries %s MB/s: %.1f s of %.1f s waited on the window",
		    attr_mb_s(c->net_bps, link, sizeof(link)), wait, wall);
}
