/* The closing advice: which strategy to use here, and whether compression would pay. */
#include "report.h"

#include "measure/verdict.h"

#include <stdio.h>
#include <string.h>

static double total(const struct strategy_result *r)
{
	return r->median.transfer + r->median.flush;
}

void report_recommend(struct report *r)
{
	const struct strategy_result *best = NULL, *slowest = NULL, *plain = NULL;

	r->recommendation[0] = '\0';
	r->compression_hint[0] = '\0';
	for (size_t i = 0; i < r->nresults; i++) {
		const struct strategy_result *res = &r->results[i];

		if (res->status != RESULT_OK)
			continue;
		if (!best || total(res) < total(best))
			best = res;
		if (!slowest || total(res) > total(slowest))
			slowest = res;
		if (!(res->strategy->flags & STRATEGY_COMPRESSED) && (!plain || total(res) < total(plain)))
			plain = res;
	}
	if (!best)
		return;
	if (slowest != best && total(best) > 0)
		snprintf(r->recommendation, sizeof(r->recommendation),
			 "use %s for this workload on this link: %.2f s, %.1fx faster than %s (%.2f s)%s%s",
			 best->strategy->name, total(best), total(slowest) / total(best),
			 slowest->strategy->name, total(slowest),
			 best->have_attribution ? "; it is " : "",
			 best->have_attribution ? attribution_verdict_name(best->attribution.verdict) : "");
	else
		snprintf(r->recommendation, sizeof(r->recommendation), "use %s: %.2f s",
			 best->strategy->name, total(best));
	if (plain && r->probes && r->probes->zstd_ratio > 0 && r->probes->zstd_bps > 0) {
		struct attribution_input in;
		struct ceilings c;

		verdict_inputs(plain, r->probes, &in, &c);
		attribution_recommend(&in, &c, r->probes->zstd_ratio, r->probes->zstd_bps,
				      r->compression_hint, sizeof(r->compression_hint));
	}
}

void report_ceilings(const struct probe_results *p, FILE *out)
{
	fprintf(out, "ceilings measured on this pair of machines:\n");
	fprintf(out, "  network     %8.2f Gbit/s one stream, %.2f Gbit/s with %u; round trip p50 %.0f µs, p99 %.0f µs\n",
		p->net_bps_1 * 8 / 1e9, p->net_bps_n * 8 / 1e9, p->net_streams, p->rtt_p50_s * 1e6,
		p->rtt_p99_s * 1e6);
	if (p->net_peer[0])
		fprintf(out, "              to the agent at %s%s%s\n", p->net_peer,
			p->net_iface[0] ? " via " : "", p->net_iface);
	if (p->ssh_bps > 0)
		fprintf(out, "  ssh         %8.2f Gbit/s through sshd (%s); SFTP request %.0f µs\n",
			p->ssh_bps * 8 / 1e9, p->ssh_cipher, p->sftp_rtt_s * 1e6);
	fprintf(out, "  disk write  %8.2f GB/s to durable at the destination (%s)\n",
		p->disk_write_bps / 1e9, p->dest_fs[0] ? p->dest_fs : "?");
	fprintf(out, "  creates     %8.0f files/s at the destination (open+write+close, then syncfs)\n",
		p->create_per_s);
	if (p->disk_read_bps > 0)
		fprintf(out, "  disk read   %8.2f GB/s cold at the source\n", p->disk_read_bps / 1e9);
	if (p->src_open_per_s > 0)
		fprintf(out, "  opens       %8.0f files/s cold at the source\n", p->src_open_per_s);
	if (p->zstd_bps > 0)
		fprintf(out, "  zstd        %8.2f GB/s at this level, ratio %.2f on this data\n",
			p->zstd_bps / 1e9, p->zstd_ratio);
}
