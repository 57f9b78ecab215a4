/*
 * A single raw stream's socket buffers in the report (strategy_open_one_stream
 * sized them for the path): what each end was granted, whether it was set
 * or left to autotuning, and, when this machine's or the host's sysctls
 * kept it short of the bandwidth-delay product, which sysctl to raise and
 * to what (stream/sockbuf_plan.h).
 */
#include "report/report.h"

#include "stream/sockbuf_plan.h"

#include <stdio.h>

#define MIB (1024.0 * 1024.0)

/* The receiving end's plan, as the agent made it from its limits (agent_receive.c). */
static void receive_plan(const struct strategy_result *res, struct sockbuf_plan *p)
{
	sockbuf_plan_make(SOCKBUF_RECV, res->sizing.send.bdp_bytes, &res->received.rcvbuf_limits, p);
}

static bool sized(const struct strategy_result *res)
{
	return res->runs > 0 && res->sizing.sized && res->sizing.send.bdp_bytes > 0;
}

static void path(const struct report *r, double *link, double *rtt)
{
	*link = r->probes ? r->probes->net_link_bps : 0;
	*rtt = r->probes ? r->probes->rtt_p50_s : 0;
}

static const char *how(const struct sockbuf_plan *p)
{
	return p->request_bytes <= 0 ? "autotuned" : p->force ? "set, forced as root" : "set";
}

int report_sockbuf_text(const struct report *r, const struct strategy_result *res, char *buf, size_t len)
{
	struct sockbuf_plan rx;
	double link, rtt;
	char advice[256];
	int n;

	if (!sized(res))
		return 0;
	path(r, &link, &rtt);
	receive_plan(res, &rx);
	/* autotuning reached what the path needs at both ends: nothing to say */
	if (res->sizing.send.request_bytes <= 0 && !res->sizing.send.capped &&
	    (!res->received.rcvbuf_sized || (rx.request_bytes <= 0 && !rx.capped)))
		return 0;
	n = snprintf(buf, len, "needs %.0f MB a side (%.1f Gbit/s x %.1f ms, twice the bandwidth-delay product); send %.1f MiB (%s)",
		     res->sizing.send.want_bytes / 1e6, link * 8 / 1e9, rtt * 1e3,
		     res->sizing.sndbuf_bytes / MIB, how(&res->sizing.send));
	if (res->received.rcvbuf_sized && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, ", receive %.1f MiB (%s)", res->received.rcvbuf_bytes / MIB,
			      how(&rx));
	if (res->sizing.send.capped && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "; this machine caps the send buffer: %s",
			      sockbuf_plan_advice(&res->sizing.send, link, rtt, advice, sizeof(advice)));
	if (res->received.rcvbuf_sized && rx.capped && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "; the host caps the receive buffer: %s there",
			      sockbuf_plan_advice(&rx, link, rtt, advice, sizeof(advice)));
	return n < 0 ? 0 : n;
}

static json_object *side_json(const struct sockbuf_plan *p, double granted, double link, double rtt)
{
	json_object *o = json_object_new_object();
	char advice[256];

	json_object_object_add(o, "wanted_bytes", json_object_new_double(p->want_bytes));
	json_object_object_add(o, "granted_bytes", granted > 0 ? json_object_new_double(granted) : NULL);
	json_object_object_add(o, "set", json_object_new_boolean(p->request_bytes > 0));
	json_object_object_add(o, "forced", json_object_new_boolean(p->request_bytes > 0 && p->force));
	json_object_object_add(o, "capped", json_object_new_boolean(p->capped));
	json_object_object_add(o, "raise", p->capped ? json_object_new_string(sockbuf_plan_advice(p, link, rtt, advice, sizeof(advice))) : NULL);
	return o;
}

json_object *report_sockbuf_json(const struct report *r, const struct strategy_result *res)
{
	json_object *o;
	struct sockbuf_plan rx;
	double link, rtt;

	if (!sized(res))
		return NULL;
	path(r, &link, &rtt);
	receive_plan(res, &rx);
	o = json_object_new_object();
	json_object_object_add(o, "bdp_bytes", json_object_new_double(res->sizing.send.bdp_bytes));
	json_object_object_add(o, "send", side_json(&res->sizing.send, res->sizing.sndbuf_bytes, link, rtt));
	json_object_object_add(o, "receive", res->received.rcvbuf_sized ?
				      side_json(&rx, res->received.rcvbuf_bytes, link, rtt) : NULL);
	return o;
}
