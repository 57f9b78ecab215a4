/*
 * The closing advice: the strategy to use here (or on the --what-if link),
 * as report_recommended chooses it, the real command that does the same,
 * and whether compression would pay.
 */
#include "report/report.h"

#include "stream/sockbuf_plan.h"
#include "model/compression_advice.h"
#include "model/model_text.h"
#include "report/text_wrap.h"
#include "units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * When one stream is window-limited: "; one stream is capped at ... the
 * link carries ... with N+ streams: use parallel -P N, or raise
 * net.ipv4.tcp_wmem max to at least B MB" appended to the recommendation
 * (the swept capacity, and the buffer one stream would need).
 */
static void window_advice(struct report *r)
{
	const struct probe_results *p = r->probes;
	size_t used = strlen(r->recommendation);
	char line[256];

	if (!p || !p->window.limited || used + 2 >= sizeof(r->recommendation))
		return;
	report_window_line(p, line, sizeof(line));
	snprintf(r->recommendation + used, sizeof(r->recommendation) - used,
		 ". %c%s: use parallel -P %u or more, or raise net.ipv4.tcp_wmem max here (and net.ipv4.tcp_rmem max on the host) to at least %.0f MB",
		 line[0] == 'o' ? 'O' : line[0], line + 1, p->net_saturation,
		 SOCKBUF_PER_BDP * net_window_bdp_bytes(p->net_link_bps * 8, p->window.rtt_s) / 1e6);
}

/*
 * When the recommendation is for a --what-if link and names another
 * strategy than the one that won here: "; here splice was fastest (4.75 s
 * measured), but on that link the model forecasts tar-ssh faster", so one
 * report never names two winners without saying why.
 */
static int why_not_here(const struct strategy_result *best, const struct winner *win, char *buf, size_t len)
{
	char t[32];

	if (!win->best || win->best == best || !len)
		return 0;
	model_format_seconds(report_seconds(win->best), t, sizeof(t));
	return snprintf(buf, len, "; here %s was %s (%s measured), but on that link the model forecasts %s faster",
			win->best->strategy->name, win->clear ? "fastest" : "among the fastest", t,
			best->strategy->name);
}

/*
 * The recommendation: the strategy report_recommended names, "N× faster
 * than the slowest" only when it won beyond the runs' noise, and no winner
 * at all when it is tied with others (--repeat; report_winner decides, as
 * for the table's mark).
 */
void report_recommend(struct report *r)
{
	const struct what_if *w = report_recommend_link(r);
	const struct strategy_result *best = report_recommended(r), *slowest = NULL, *plain = NULL;
	const char *verdict;
	char where[96] = "on this link", tb[32], ts[32];
	struct winner win;
	size_t used;
	int n;

	r->recommendation[0] = '\0';
	r->compression_hint[0] = '\0';
	for (size_t i = 0; i < r->nresults; i++) {
		const struct strategy_result *res = &r->results[i];

		if (res->status != RESULT_OK || !res->runs)
			continue;
		if (!slowest || report_projected(r, res, w) > report_projected(r, slowest, w))
			slowest = res;
		if (!(res->strategy->flags & STRATEGY_COMPRESSED) &&
		    (!plain || report_projected(r, res, w) < report_projected(r, plain, w)))
			plain = res;
	}
	if (!best)
		return;
	report_winner(r, &win);
	if (w)
		what_if_label(w, where, sizeof(where));
	model_format_seconds(report_projected(r, best, w), tb, sizeof(tb));
	if (!w && report_sample_only(r) && report_whole_forecast(best) > 0) {
		/* the whole's forecast from the sample: what the migration will take */
		model_format_seconds(report_whole_forecast(best), tb, sizeof(tb));
		n = report_sample_recommendation(r, best, r->recommendation, sizeof(r->recommendation));
	} else if (!w && !win.clear) {
		/* here and tied: the tie is the answer, with the fastest measured as one of them */
		verdict = best->have_accounting ? resource_verdict_name(best->accounting.verdict) : NULL;
		n = report_noise_text(&win, r->recommendation, sizeof(r->recommendation));
		n += snprintf(r->recommendation + n, sizeof(r->recommendation) - (size_t)n,
			      "; %s will do here%s%s", win.ntied > 2 ? "any of them" : "either",
			      verdict ? ", and the fastest is " : "", verdict ? verdict : "");
	} else {
		model_format_seconds(report_projected(r, slowest, w), ts, sizeof(ts));
		if (slowest != best && report_projected(r, best, w) > 0)
			n = snprintf(r->recommendation, sizeof(r->recommendation),
				     "use %s for this workload %s: %s %s, %.1fx faster than %s (%s)%s%s",
				     best->strategy->name, where,
				     w ? "forecast" : "measured", tb,
				     report_projected(r, slowest, w) / report_projected(r, best, w),
				     slowest->strategy->name, ts, best->have_accounting ? "; it is " : "",
				     best->have_accounting ? resource_verdict_name(best->accounting.verdict) : "");
		else
			n = snprintf(r->recommendation, sizeof(r->recommendation), "use %s %s: %s",
				     best->strategy->name, where, tb);
		if (w && n > 0 && (size_t)n < sizeof(r->recommendation))
			n += why_not_here(best, &win, r->recommendation + n, sizeof(r->recommendation) - (size_t)n);
	}
	used = n > 0 && (size_t)n < sizeof(r->recommendation) ? (size_t)n : strlen(r->recommendation);
	if (best->strategy->real_command && used < sizeof(r->recommendation)) {
		const char *host = r->host && strcmp(r->host, "local") ? r->host : NULL;
		const char *dir = r->spec && r->spec->kind == WORKLOAD_DIR ? r->spec->dir : NULL;
		char cmd[512];

		/* where nc connects: the address the agent was reached at (nc reads no ssh config) */
		strategy_real_command(best->strategy, r->streams, host, host ? r->host_addr : NULL, dir, cmd,
				      sizeof(cmd));
		if (best->strategy->flags & STRATEGY_MULTI_STREAM)
			snprintf(r->recommendation + used, sizeof(r->recommendation) - used,
				 ". The nearest without xfercmp: %s (%u rsync streams over ssh, as %s ran %u)",
				 cmd, r->streams, best->strategy->name, r->streams);
		else
			snprintf(r->recommendation + used, sizeof(r->recommendation) - used,
				 ". The same without xfercmp: %s (about %s for this data)", cmd, tb);
	}
	n = (int)strlen(r->recommendation);
	report_real_tool(r, best, r->recommendation + n, sizeof(r->recommendation) - (size_t)n);
	window_advice(r);
	if (plain && r->probes && r->probes->zstd_ratio > 0 && r->probes->zstd_bps > 0) {
		const char *host = r->host ? r->host : "the host";
		char link[160];

		/* the link this run measured, not a --what-if one the recommendation may be for */
		if (plain->have_forecast)
			snprintf(link, sizeof(link), "the measured link to %s, as %s sees it", host,
				 plain->strategy->name);
		else
			snprintf(link, sizeof(link), "the measured link to %s, one stream", host);
		compression_advice((double)plain->sent.bytes_read,
				   plain->have_forecast ? plain->forecast.link.bytes_per_s : r->probes->net_bps_1,
				   link, r->probes->zstd_ratio, r->probes->zstd_bps, r->compression_hint,
				   sizeof(r->compression_hint));
	}
}

/* " (at depth 16: 31,000/s; ...)" for a rate measured at several depths. */
static void print_depths(const struct probe_rate *rates, unsigned n, FILE *out)
{
	if (n < 2)
		return;
	fputs("; in flight", out);
	for (unsigned i = 0; i < n; i++)
		fprintf(out, "%s %u: %.0f/s", i ? "," : "", rates[i].depth, rates[i].per_s);
}

static void ceilings_lines(const struct probe_results *p, FILE *out)
{
	fprintf(out, "ceilings measured on this pair of machines:\n");
	fprintf(out, "  network     %8.2f Gbit/s one stream, %.2f Gbit/s with %u; round trip p50 %.0f µs, p99 %.0f µs\n",
		p->net_bps_1 * 8 / 1e9, p->net_bps_n * 8 / 1e9, p->net_streams, p->rtt_p50_s * 1e6,
		p->rtt_p99_s * 1e6);
	if (p->net_peer[0])
		fprintf(out, "              to the agent at %s%s%s\n", p->net_peer,
			p->net_iface[0] ? " via " : "", p->net_iface);
	report_sweep(p, out);
	if (p->ssh_bps > 0)
		fprintf(out, "  ssh         %8.2f Gbit/s through sshd (%s); SFTP request %.0f µs\n",
			p->ssh_bps * 8 / 1e9, p->ssh_cipher, p->sftp_rtt_s * 1e6);
	fprintf(out, "  disk write  %8.2f GB/s to durable at the destination (%s)\n",
		p->disk_write_bps / 1e9, p->dest_fs[0] ? p->dest_fs : "?");
	fprintf(out, "  creates     %8.0f files/s at the destination, one at a time (open+write+close, then syncfs)",
		p->create_per_s);
	print_depths(p->create_at, p->ncreate_at, out);
	fputc('\n', out);
	if (p->disk_read_bps > 0) {
		fprintf(out, "  disk read   %8.2f GB/s cold at the source, one stream", p->disk_read_bps / 1e9);
		if (p->nread_at > 1) {
			fputs("; streams", out);
			for (unsigned i = 0; i < p->nread_at; i++)
				fprintf(out, "%s %u: %.2f GB/s", i ? "," : "", p->read_at[i].depth,
					p->read_at[i].per_s / 1e9);
		}
		fputc('\n', out);
	}
	for (unsigned i = 0; i < p->ndisk_at_once; i++)
		fprintf(out, "  at once     %8.2f GB/s each way, one disk read cold (%u stream%s, %.2f GB/s) and written durable (%.2f GB/s) together\n",
			p->disk_at_once[i].copy_bps / 1e9, p->disk_at_once[i].depth,
			p->disk_at_once[i].depth == 1 ? "" : "s", p->disk_at_once[i].read_bps / 1e9,
			p->disk_at_once[i].write_bps / 1e9);
	if (p->src_open_per_s > 0) {
		fprintf(out, "  opens       %8.0f files/s cold at the source, one at a time", p->src_open_per_s);
		print_depths(p->open_at, p->nopen_at, out);
		fputc('\n', out);
	}
	if (p->zstd_bps > 0) {
		fprintf(out, "  zstd        %8.2f GB/s at this level, ratio %.2f on this data", p->zstd_bps / 1e9,
			p->zstd_ratio);
		if (p->zstd_cpu_per_byte > 0)
			fprintf(out, ", %.2f s of CPU a GiB", p->zstd_cpu_per_byte * UNITS_GIB);
		if (p->unzstd_bps > 0)
			fprintf(out, "; decompressed at %.2f GB/s on one thread", p->unzstd_bps / 1e9);
		fputc('\n', out);
	}
}

/*
 * The ceilings, each line within text_width() columns: one too long goes on
 * under the figures' column (14), so the names on the left stay readable.
 */
static void ceilings_written(const void *ctx, FILE *out)
{
	ceilings_lines(ctx, out);
}

void report_ceilings(const struct probe_results *p, FILE *out)
{
	text_wrap_written(out, 14, ceilings_written, p);
}
