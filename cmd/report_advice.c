/* The closing advice: which strategy to use here, and whether compression would pay. */
#include "report.h"

#include "measure/verdict.h"

#include <stdio.h>
#include <string.h>



/*
 * The recommendation: the fastest strategy, "N× faster than the slowest"
 * only when that difference is beyond the runs' noise, and no winner at all
 * when the fastest two are within it (--repeat; report_winner decides).
 */
void report_recommend(struct report *r)
{
	const struct strategy_result *slowest = NULL, *plain = NULL, *best;
	struct report_winner w;
	const char *verdict;
	int n;

	r->recommendation[0] = '\0';
	r->compression_hint[0] = '\0';
	report_winner(r, &w);
	if (!(best = w.best))
		return;
	for (size_t i = 0; i < r->nresults; i++) {
		const struct strategy_result *res = &r->results[i];

		if (res->status != RESULT_OK || !res->runs)
			continue;
		if (!slowest || report_seconds(res) > report_seconds(slowest))
			slowest = res;
		if (!(res->strategy->flags & STRATEGY_COMPRESSED) && (!plain || report_seconds(res) < report_seconds(plain)))
			plain = res;
	}
	verdict = best->have_attribution ? attribution_verdict_name(best->attribution.verdict) : NULL;
	if (!w.clear) {
		n = report_noise_text(&w, r->recommendation, sizeof(r->recommendation));
		snprintf(r->recommendation + n, sizeof(r->recommendation) - (size_t)n,
			 "; either will do here%s%s", verdict ? ", and it is " : "", verdict ? verdict : "");
	} else if (slowest != best && report_seconds(best) > 0 && stats_differ(&best->time, &slowest->time)) {
		snprintf(r->recommendation, sizeof(r->recommendation),
			 "use %s for this workload on this link: %.2f s, %.1fx faster than %s (%.2f s)%s%s",
			 best->strategy->name, report_seconds(best), report_seconds(slowest) / report_seconds(best),
			 slowest->strategy->name, report_seconds(slowest), verdict ? "; it is " : "",
			 verdict ? verdict : "");
	} else {
		snprintf(r->recommendation, sizeof(r->recommendation), "use %s: %.2f s%s%s",
			 best->strategy->name, report_seconds(best), verdict ? "; it is " : "", verdict ? verdict : "");
	}
	n = (int)strlen(r->recommendation);
	report_real_tool(r, best, r->recommendation + n, sizeof(r->recommendation) - (size_t)n);
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
