/*
 * The --html page: one self-contained file (inline CSS and SVG, no scripts,
 * nothing fetched) with a chart of time per strategy split into the shares
 * of network, disk, metadata, cpu and other, and the tables beside it.
 */
#include "report/report_html.h"

#include "model/model_text.h"
#include "err.h"
#include "units.h"
#include "version.h"

#include <math.h>

#include <stdio.h>
#include <string.h>

#define CHART_WIDTH 720
#define LABEL_WIDTH 110
/* right of the longest bar: its value and "★ fastest" (80 cut the label to "★ fastes") */
#define VALUE_WIDTH 160
#define ROW_HEIGHT 34
#define BAR_HEIGHT 22

/* network, latency, disk, metadata, cpu, other */
static const char *const share_colors[RES_COUNT + 1] = { "#3b6fd6", "#2fa8a0", "#d6973b", "#a24fc9",
							 "#d64545", "#b8b8b8" };

void report_html_escape(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}




/* The axis step: 1, 2 or 5 times a power of ten, giving at most 6 steps to `longest`. */
static double axis_step(double longest)
{
	double p = pow(10, floor(log10(longest / 6)));

	if (longest / p <= 6)
		return p;
	if (longest / (2 * p) <= 6)
		return 2 * p;
	if (longest / (5 * p) <= 6)
		return 5 * p;
	return 10 * p;
}

static void chart(const struct report *r, FILE *f)
{
	double longest = 0, step;
	unsigned rows = 0;
	struct winner win;
	int height;

	for (size_t i = 0; i < r->nresults; i++)
		if (r->results[i].status == RESULT_OK) {
			rows++;
			if (report_seconds(&r->results[i]) > longest)
				longest = report_seconds(&r->results[i]);
		}
	if (!rows || longest <= 0)
		return;
	report_winner(r, &win);
	/* the axis must reach the longest whisker too */
	for (size_t i = 0; i < r->nresults; i++)
		if (r->results[i].status == RESULT_OK && r->results[i].runs > 1 &&
		    r->results[i].time.max > longest)
			longest = r->results[i].time.max;
	step = axis_step(longest);
	longest = ceil(longest / step) * step;
	height = (int)rows * ROW_HEIGHT + 80;
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\" "
		   "aria-label=\"seconds per strategy, split by where the time went\">\n",
		CHART_WIDTH + LABEL_WIDTH + VALUE_WIDTH, height);
	rows = 0;
	for (size_t i = 0; i < r->nresults; i++) {
		const struct strategy_result *res = &r->results[i];
		double width = report_seconds(res) / longest * CHART_WIDTH, x = LABEL_WIDTH;
		int y = (int)rows * ROW_HEIGHT + 10;

		if (res->status != RESULT_OK)
			continue;
		rows++;
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" class=\"label\">", LABEL_WIDTH - 8,
			y + BAR_HEIGHT - 6);
		report_html_escape(f, res->strategy->name);
		fputs("</text>\n", f);
		if (res->have_accounting) {
			for (int k = 0; k <= RES_COUNT; k++) {
				double w = res->accounting.share[k] * width;

				if (w <= 0)
					continue;
				fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\">"
					   "<title>%s %.0f%%</title></rect>\n",
					x, y, w, BAR_HEIGHT, share_colors[k],
					resource_name((enum resource)k),
					res->accounting.share[k] * 100);
				x += w;
			}
		} else {
			fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n",
				LABEL_WIDTH, y, width, BAR_HEIGHT, share_colors[RES_COUNT]);
			x += width;
		}
		if (res->runs > 1) {
			/* the runs' range, min to max, as a whisker across the bar */
			double x0 = LABEL_WIDTH + res->time.min / longest * CHART_WIDTH,
			       x1 = LABEL_WIDTH + res->time.max / longest * CHART_WIDTH;

			fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" class=\"range\">"
				   "<title>%u runs: %.2f to %.2f s</title></line>\n",
				x0, y + BAR_HEIGHT / 2, x1, y + BAR_HEIGHT / 2, res->runs, res->time.min,
				res->time.max);
			if (x1 > x)
				x = x1;
		}
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" class=\"value\">%.2f s%s</text>\n", x + 6,
			y + BAR_HEIGHT - 6, report_seconds(res), win.clear && res == win.best ? "  \u2605 fastest" : "");
	}
	/* the time axis: ticks, grid and its unit */
	{
		int y = (int)rows * ROW_HEIGHT + 10;

		fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>\n",
			LABEL_WIDTH, y, LABEL_WIDTH + CHART_WIDTH, y);
		for (double t = 0; t <= longest + step / 2; t += step) {
			double x = LABEL_WIDTH + t / longest * CHART_WIDTH;

			fprintf(f, "<line x1=\"%.1f\" y1=\"6\" x2=\"%.1f\" y2=\"%d\" class=\"grid\"/>"
				   "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" class=\"tick\">%g s</text>\n",
				x, x, y + 4, x, y + 16, t);
		}
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"legend\">"
			   "seconds per strategy (transfer + flush%s)</text>\n",
			LABEL_WIDTH + CHART_WIDTH / 2, y + 32,
			r->repeat > 1 ? "; median, whisker: min to max of the runs" : "");
	}
	/* legend */
	for (int k = 0; k <= RES_COUNT; k++) {
		int x = LABEL_WIDTH + k * 110, y = (int)rows * ROW_HEIGHT + 52;

		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"%s\"/>"
			   "<text x=\"%d\" y=\"%d\" class=\"legend\">%s</text>\n",
			x, y, share_colors[k], x + 20, y + 12, resource_name((enum resource)k));
	}
	fputs("</svg>\n", f);
}

static void results_table(const struct report *r, FILE *f)
{
	fputs("<table><tr><th>strategy</th><th>status</th><th>seconds</th><th>transfer</th>"
	      "<th>flush</th><th>MB/s</th><th>files/s</th><th>wire MB</th><th>verified</th>"
	      "<th>forecast</th><th>forecast / measured</th>"
	      "<th>kept of the tree</th><th>verdict</th></tr>\n", f);
	for (size_t i = 0; i < r->nresults; i++) {
		const struct strategy_result *res = &r->results[i];
		double t = report_seconds(res);

		fputs("<tr><td>", f);
		report_html_escape(f, res->strategy->name);
		if (res->status != RESULT_OK) {
			fprintf(f, "</td><td class=\"%s\">%s</td><td colspan=\"11\" class=\"why\">",
				res->status == RESULT_SKIPPED ? "skip" : "fail",
				res->status == RESULT_SKIPPED ? "skipped" : "failed");
			report_html_escape(f, res->error);
			fputs("</td></tr>\n", f);
			continue;
		}
		fprintf(f, "</td><td class=\"ok\">ok</td><td>%.2f</td><td>%.2f</td><td>%.2f</td>"
			   "<td>%.1f</td><td>%.0f</td><td>%.1f</td><td>%s</td><td>",
			t, res->median.transfer, res->median.flush,
			t > 0 ? (double)res->sent.bytes_read / t / 1e6 : 0.0,
			t > 0 ? (double)report_moved_files(r) / t : 0.0, (double)res->sent.wire_bytes / 1e6,
			res->verified ? "yes" : "no");
		if (res->have_forecast && t > 0 && report_sample_only(r))
			fprintf(f, "%.2f</td><td title=\"the whole's, from the sample's runs: %.2f-%.2f s\">whole</td><td>",
				res->forecast.seconds, res->forecast.low, res->forecast.high);
		else if (res->have_forecast && t > 0)
			fprintf(f, "%.2f</td><td title=\"made before it ran, from the %s: %.2f-%.2f s\">%.2fx</td><td>",
				res->forecast.seconds, res->forecast_from_sample ? "sample's runs" : "probes",
				res->forecast.low, res->forecast.high, res->forecast.seconds / t);
		else
			fputs("</td><td></td><td>", f);
		{
			char kept[256];

			report_preserved_text(res, kept, sizeof(kept));
			report_html_escape(f, kept);
			fputs("</td><td>", f);
		}
		/*
		 * the why is a paragraph: on a row of its own under the figures, the
		 * table's width is theirs and the paragraph wraps within it (as a
		 * 14th column it pushed the table past a 1280 px window, clipped)
		 */
		if (res->have_accounting) {
			report_html_escape(f, resource_verdict_name(res->accounting.verdict));
			fputs("</td></tr>\n<tr><td></td><td colspan=\"12\" class=\"why\">why: ", f);
			report_html_escape(f, res->accounting.reason);
			if (res->accounting.note[0]) {
				fputs("<br><i>", f);
				report_html_escape(f, res->accounting.note);
				fputs("</i>", f);
			}
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* One table per --what-if link: each strategy's forecast there. */
static void what_if_table(const struct report *r, FILE *f)
{
	for (size_t k = 0; k < r->nwhat_if; k++) {
		char label[96], t[32];

		what_if_label(&r->what_if[k], label, sizeof(label));
		fputs("<h2>What if: ", f);
		report_html_escape(f, label);
		fputs("</h2><table><tr><th>strategy</th><th>forecast</th></tr>\n", f);
		for (size_t i = 0; i < r->nresults; i++) {
			double p = report_forecast(r, &r->results[i], &r->what_if[k]);

			if (!(p > 0))
				continue;
			fputs("<tr><td>", f);
			report_html_escape(f, r->results[i].strategy->name);
			fprintf(f, "</td><td>%s</td></tr>\n", model_format_seconds(p, t, sizeof(t)));
		}
		fputs("</table>\n", f);
	}
}

static void ceilings_table(const struct probe_results *p, FILE *f)
{
	fputs("<h2>Ceilings</h2><table>\n", f);
	fprintf(f, "<tr><td>network, one stream</td><td>%.2f Gbit/s</td></tr>\n", p->net_bps_1 * 8 / 1e9);
	fprintf(f, "<tr><td>network, %u streams</td><td>%.2f Gbit/s</td></tr>\n", p->net_streams,
		p->net_bps_n * 8 / 1e9);
	if (p->nsweep > 0)
		fprintf(f, "<tr><td>network, the link (swept)</td><td>%.2f Gbit/s, saturated at %u streams</td></tr>\n",
			p->net_link_bps * 8 / 1e9, p->net_saturation);
	fprintf(f, "<tr><td>round trip p50 / p99</td><td>%.0f / %.0f µs</td></tr>\n", p->rtt_p50_s * 1e6,
		p->rtt_p99_s * 1e6);
	if (p->ssh_bps > 0)
		fprintf(f, "<tr><td>ssh channel</td><td>%.2f Gbit/s, SFTP request %.0f µs</td></tr>\n",
			p->ssh_bps * 8 / 1e9, p->sftp_rtt_s * 1e6);
	fprintf(f, "<tr><td>destination disk write (durable)</td><td>%.2f GB/s</td></tr>\n",
		p->disk_write_bps / 1e9);
	fprintf(f, "<tr><td>destination creates</td><td>%.0f files/s</td></tr>\n", p->create_per_s);
	/* as in the terminal: a ceiling that was not measured (--warm, no large file) is absent */
	if (p->disk_read_bps > 0)
		fprintf(f, "<tr><td>source cold read</td><td>%.2f GB/s</td></tr>\n",
			p->disk_read_bps / 1e9);
	for (unsigned i = 0; i < p->ndisk_at_once; i++)
		fprintf(f, "<tr><td>one disk, read and written at once (%u stream%s)</td><td>%.2f GB/s each way (read cold %.2f GB/s, written durable %.2f GB/s)</td></tr>\n",
			p->disk_at_once[i].depth, p->disk_at_once[i].depth == 1 ? "" : "s",
			p->disk_at_once[i].copy_bps / 1e9, p->disk_at_once[i].read_bps / 1e9,
			p->disk_at_once[i].write_bps / 1e9);
	if (p->src_open_per_s > 0)
		fprintf(f, "<tr><td>source cold opens</td><td>%.0f files/s</td></tr>\n",
			p->src_open_per_s);
	if (p->zstd_bps > 0)
		fprintf(f, "<tr><td>zstd</td><td>%.2f GB/s, ratio %.2f</td></tr>\n",
			p->zstd_bps / 1e9, p->zstd_ratio);
	fputs("</table>\n", f);
}

/* What "other" is, when a strategy has any: the share no measured ceiling explains. */
static void other_explained(const struct report *r, FILE *f)
{
	for (size_t i = 0; i < r->nresults; i++)
		if (r->results[i].have_accounting && r->results[i].accounting.share[RES_COUNT] > 0.05) {
			fputs("<p><b>Other</b> (grey) is the time no measured ceiling explains: setting "
			      "up and tearing down connections and processes, waits between the stages "
			      "of a pipeline, work on a resource the probes do not measure (such as "
			      "per-request CPU in sshd or sftp-server on the host). It is shown, never "
			      "spread over the other shares.</p>\n", f);
			return;
		}
}

/* One row a key of a JSON object of scalars (the environment's two ends). */
static void json_rows(FILE *f, const char *end, json_object *o)
{
	if (!o || !json_object_is_type(o, json_type_object))
		return;
	json_object_object_foreach(o, key, v) {
		fputs("<tr><td>", f);
		report_html_escape(f, end);
		fputs("</td><td>", f);
		report_html_escape(f, key);
		fputs("</td><td>", f);
		report_html_escape(f, v ? json_object_get_string(v) : "");
		fputs("</td></tr>\n", f);
	}
}

/* Version, date, command line, and both machines as the JSON's "environment" has them. */
static void environment_table(const struct report *r, FILE *f)
{
	json_object *local = NULL, *dest = NULL;

	fputs("<h2>Environment</h2><table>\n<tr><td>xfercmp</td><td>version</td><td>", f);
	report_html_escape(f, XFERCMP_VERSION);
	fputs("</td></tr>\n<tr><td>run</td><td>started</td><td>", f);
	report_html_escape(f, r->started_at ? r->started_at : "");
	fputs("</td></tr>\n<tr><td>run</td><td>command</td><td><code>", f);
	report_html_escape(f, r->command ? r->command : "");
	fputs("</code></td></tr>\n", f);
	if (r->environment) {
		json_object_object_get_ex(r->environment, "local", &local);
		json_object_object_get_ex(r->environment, "destination", &dest);
	}
	json_rows(f, "source", local);
	json_rows(f, "destination", dest);
	fputs("</table>\n", f);
}

int report_html_write(const struct report *r, const char *path)
{
	FILE *f = fopen(path, "w");
	char bytes[32];

	if (!f)
		return err_errno("cannot write '%s'", path);
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<title>xfercmp report</title>\n<style>\n"
	      "body{font-family:sans-serif;margin:2em;color:#222}\n"
	      "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;"
	      "text-align:left;vertical-align:top}th{background:#f2f2f2}\n"
	      /* the reason is a paragraph on a row of its own (results_table): it wraps */
	      "table{max-width:100%}td.why{overflow-wrap:anywhere;color:#444}\n"
	      ".ok{color:#1a7f37}.fail{color:#c62828}.skip{color:#777}\n"
	      "svg text{font-size:13px}.label{font-weight:bold}.legend{font-size:12px}\n"
	      ".tick{font-size:11px;fill:#555}.axis{stroke:#555}.grid{stroke:#e4e4e4}\n"
	      ".range{stroke:#222;stroke-width:2}.timeline{margin:0 1em 1em 0}\n"
	      ".timeline-row h3{margin:.5em 0 0}\n"
	      ".partial{border:2px solid #c62828;background:#fdecea;color:#c62828;padding:.5em 1em;"
	      "font-weight:bold}\n"
	      "</style></head><body>\n<h1>xfercmp</h1>\n", f);
	/* first thing under the title: every number below is of an interrupted run */
	if (r->partial)
		fputs("<p class=\"partial\" role=\"alert\">partial: " REPORT_PARTIAL_WHY "</p>\n", f);
	fputs("<p>", f);
	report_html_escape(f, r->workload_name);
	fprintf(f, ", %llu files, %s &rarr; ", (unsigned long long)r->files,
		units_format_bytes(r->bytes, bytes, sizeof(bytes)));
	report_html_escape(f, r->host);
	/* the agent named the file system: text from the network, escaped as any other */
	fputs(" (destination ", f);
	report_html_escape(f, r->dest_fs ? r->dest_fs : "?");
	fprintf(f, "), %s source</p>\n", r->warm ? "warm" : "cold");
	chart(r, f);
	results_table(r, f);
	what_if_table(r, f);
	report_html_explain(r, f);
	if (r->recommendation[0]) {
		fputs("<p><b>Recommendation:</b> ", f);
		report_html_escape(f, r->recommendation);
		fputs("</p>\n", f);
	}
	if (r->compression_hint[0]) {
		fputs("<p><b>Compression:</b> ", f);
		report_html_escape(f, r->compression_hint);
		fputs("</p>\n", f);
	}
	other_explained(r, f);
	if (r->probes) {
		ceilings_table(r->probes, f);
		report_html_sweep(r->probes, f);
	}
	report_html_timelines(r, f);
	environment_table(r, f);
	if (r->error) {
		fputs("<p class=\"fail\">error: ", f);
		report_html_escape(f, r->error);
		fputs("</p>\n", f);
	}
	fputs("</body></html>\n", f);
	if (fclose(f) != 0)
		return err_errno("cannot write '%s'", path);
	return 0;
}
