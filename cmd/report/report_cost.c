/*
 * What a strategy cost the two machines beside its time (issue 24): the CPU
 * seconds each end spent per GiB moved, and each end's peak resident memory.
 * On a 2-core machine the sender's CPU is the receiver's too, so a strategy
 * that is fast but burns both cores is shown as such.
 */
#include "report/report.h"

#include "units.h"

#include <stdio.h>

double report_cpu_per_gib(const struct report *r, const struct strategy_result *res, bool agent)
{
	/* every verified run moved the whole workload; the samples are its median run's */
	double gib = (double)report_moved_bytes(r) / UNITS_GIB;
	const struct sampler_summary *sum = agent ? &res->remote : &res->local;
	bool have = agent ? res->have_remote : res->have_local;

	if (!have || gib <= 0 || res->status != RESULT_OK || !res->runs || sum->procs_cpu_s <= 0)
		return -1;
	return sum->procs_cpu_s / gib;
}

static json_object *positive_double(double v)
{
	return v > 0 ? json_object_new_double(v) : NULL;
}

static json_object *positive_u64(uint64_t v)
{
	return v ? json_object_new_uint64(v) : NULL;
}

void report_cost_json(const struct report *r, const struct strategy_result *res, json_object *o)
{
	bool ran = res->status == RESULT_OK && res->runs;

	json_object_object_add(o, "client_cpu_seconds_per_gib",
			       positive_double(report_cpu_per_gib(r, res, false)));
	json_object_object_add(o, "agent_cpu_seconds_per_gib",
			       positive_double(report_cpu_per_gib(r, res, true)));
	json_object_object_add(o, "client_peak_rss_bytes", ran ? positive_u64(res->client_peak_rss_bytes) : NULL);
	json_object_object_add(o, "agent_peak_rss_bytes", ran ? positive_u64(res->agent_peak_rss_bytes) : NULL);
}

json_object *report_peak_rss_json(const struct report *r)
{
	json_object *o = json_object_new_object();
	uint64_t agent = 0;

	for (size_t i = 0; i < r->nresults; i++)
		if (r->results[i].agent_lifetime_peak_rss_bytes > agent)
			agent = r->results[i].agent_lifetime_peak_rss_bytes;
	json_object_object_add(o, "client_bytes", positive_u64(r->client_lifetime_peak_rss_bytes));
	json_object_object_add(o, "agent_bytes", positive_u64(agent));
	return o;
}

int report_cost_text(const struct report *r, const struct strategy_result *res, char *buf, size_t len)
{
	double c = report_cpu_per_gib(r, res, false), a = report_cpu_per_gib(r, res, true);
	char cs[32] = "?", as[32] = "?";
	int n;

	if (res->status != RESULT_OK || !res->runs || len == 0)
		return 0;
	if (c > 0)
		snprintf(cs, sizeof(cs), "%.2f", c);
	if (a > 0)
		snprintf(as, sizeof(as), "%.2f", a);
	n = snprintf(buf, len, "cpu %s s/GiB here, %s s/GiB at the host; peak memory %.0f MB here, ", cs, as,
		     (double)res->client_peak_rss_bytes / 1e6);
	if (n >= 0 && (size_t)n < len)
		n += res->agent_peak_rss_bytes ?
		     snprintf(buf + n, len - (size_t)n, "%.0f MB agent", (double)res->agent_peak_rss_bytes / 1e6) :
		     snprintf(buf + n, len - (size_t)n, "agent ?");
	return n < 0 ? 0 : (size_t)n < len ? n : (int)len - 1;
}
