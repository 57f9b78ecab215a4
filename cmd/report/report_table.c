/* The terminal table: one row per strategy, fastest first marked; every line fits text_width(). */
#include "report/report.h"
#include "report/report_explain.h"

#include "report/text_wrap.h"
#include "text_escape.h"
#include "units.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 30 cells: a 3% share still shows, and the row with its six percentages fits 100 columns */
#define BAR_WIDTH 30
/* On a narrower terminal (under SHARES_ROW_COLUMNS): 20 cells, the percentages on a line of their own */
#define BAR_WIDTH_NARROW 20
#define SHARES_ROW_COLUMNS 96

/*
 * A strategy's row in one line: name, status, seconds, flush, MB/s, files/s,
 * wire MB, forecast, f/m and "  ← fastest". Narrower (a terminal under 100
 * columns, issue 44), the row is two lines: the first through files/s (59
 * columns), the second wire MB, forecast, f/m and the mark under it.
 */
#define TABLE_ROW_COLUMNS 97

/* Where a failed or skipped row's reason starts: after the name and status columns. */
#define ROW_REASON_COLUMN 26

/*
 * One bar per strategy, BAR_WIDTH cells split by share: N network, L latency,
 * D disk, M metadata, C cpu, '.' other (time the prediction does not explain). Letters as well as colours, so the bar
 * still reads without colour (NO_COLOR, a pipe, a screen reader).
 */
static void share_bar(const struct accounting *a, FILE *out, bool color, int width)
{
	static const char letters[RES_COUNT + 1] = { 'N', 'L', 'D', 'M', 'C', '.' };
	static const char *const colors[RES_COUNT + 1] = { "\033[34m", "\033[36m", "\033[33m",
							    "\033[35m", "\033[31m", "\033[2m" };
	int cells[RES_COUNT + 1], used = 0, biggest = 0;

	for (int k = 0; k <= RES_COUNT; k++) {
		cells[k] = (int)(a->share[k] * width + 0.5);
		used += cells[k];
		if (a->share[k] > a->share[biggest])
			biggest = k;
	}
	cells[biggest] += width - used;	/* rounding goes to the largest share */
	fputc('[', out);
	for (int k = 0; k <= RES_COUNT; k++) {
		if (cells[k] <= 0)
			continue;
		if (color)
			fputs(colors[k], out);
		for (int i = 0; i < cells[k]; i++)
			fputc(letters[k], out);
		if (color)
			fputs("\033[0m", out);
	}
	fputc(']', out);
}

/*
 * One line naming the strategies whose result has the flag at offset flag
 * (a bool of struct strategy_result), between head and tail; none: nothing.
 */
static void report_flagged(const struct report *r, FILE *out, size_t flag, const char *head,
			   const char *tail)
{
	char line[4096];
	size_t len = 0;
	int n = 0;

	for (size_t i = 0; i < r->nresults; i++) {
		if (!*(const bool *)((const char *)&r->results[i] + flag))
			continue;
		len += (size_t)snprintf(line + len, len < sizeof(line) ? sizeof(line) - len : 0, "%s%s",
					n++ ? ", " : head, r->results[i].strategy->name);
	}
	if (!n)
		return;
	if (len < sizeof(line))
		snprintf(line + len, sizeof(line) - len, "%s", tail);
	/* its own paragraph, wrapped to the report's width, the rest hanging */
	fputc('\n', out);
	text_wrap(out, "", 2, line, text_width());
}

/*
 * Once: which strategies sent their data unencrypted across the network,
 * which went to the agent through ssh (so measured the cipher too), and
 * which verified without being authenticated (a cmd: entry's transport).
 */
static void report_cleartext(const struct report *r, FILE *out)
{
	report_flagged(r, out, offsetof(struct strategy_result, cleartext),
		       "sent unencrypted over TCP (readable on the way): ", "; the SSH strategies encrypt");
	report_flagged(r, out, offsetof(struct strategy_result, agent_via_ssh),
		       "through ssh to the agent (its port closed to us, or --agent-via-ssh): ",
		       "; their times include the cipher and the tunnel");
	report_flagged(r, out, offsetof(struct strategy_result, unauthenticated),
		       "verified by XXH3 alone, not authenticated (your command's transport): ",
		       "; XXH3 catches faults, not a forger on the way");
}

static void report_shares(const struct report *r, FILE *out, bool color)
{
	const char *bold = color ? "\033[1m" : "", *reset = color ? "\033[0m" : "";
	const char *red = color ? "\033[31m" : "";
	bool narrow = text_width() < SHARES_ROW_COLUMNS;
	int any = 0;

	for (size_t i = 0; i < r->nresults; i++)
		any |= r->results[i].have_accounting;
	if (!any)
		return;
	fprintf(out, "\n%swhere the time went%s, as measured (N network, L latency, D disk, M metadata, C cpu, . other: not explained)\n",
		bold, reset);
	if (narrow)
		fprintf(out, "%-17s %-*s  %s\n%18s %4s %4s %4s %4s %4s %5s\n", "strategy",
			BAR_WIDTH_NARROW + 2, "", "verdict", "", "net", "lat", "disk", "meta", "cpu", "other");
	else
		fprintf(out, "%-17s %-*s %4s %4s %4s %4s %4s %5s  %s\n", "strategy", BAR_WIDTH + 2, "",
			"net", "lat", "disk", "meta", "cpu", "other", "verdict");
	for (size_t i = 0; i < r->nresults; i++) {
		const struct strategy_result *res = &r->results[i];
		const struct accounting *a = &res->accounting;

		if (!res->have_accounting)
			continue;
		fprintf(out, "%-17s ", res->strategy->name);
		share_bar(a, out, color, narrow ? BAR_WIDTH_NARROW : BAR_WIDTH);
		if (narrow)
			fprintf(out, "  %s%s%s\n%18s", bold, resource_verdict_name(a->verdict), reset, "");
		fprintf(out, " %3.0f%% %3.0f%% %3.0f%% %3.0f%% %3.0f%% %4.0f%%",
			a->share[RES_NETWORK] * 100, a->share[RES_LATENCY] * 100,
			a->share[RES_DISK] * 100, a->share[RES_METADATA] * 100, a->share[RES_CPU] * 100,
			a->share[RES_COUNT] * 100);
		if (narrow)
			fputc('\n', out);
		else
			fprintf(out, "  %s%s%s\n", bold, resource_verdict_name(a->verdict), reset);
		/* reason and note hang under their own first word */
		text_wrap(out, "                    ", 22, a->reason, text_width());
		if (a->note[0]) {
			char lead[64];

			snprintf(lead, sizeof(lead), "%20s%snote: ", "", red);
			text_wrap(out, lead, 26, a->note, text_width());
			fputs(reset, out);
		}
	}
}

/* Each strategy's forecast on each --what-if link, with its range. */
static void report_what_if(const struct report *r, FILE *out, bool color)
{
	const char *bold = color ? "\033[1m" : "", *reset = color ? "\033[0m" : "";

	for (size_t k = 0; k < r->nwhat_if; k++) {
		char label[96], t[32], lo[32], hi[32];
		bool any = false;

		what_if_label(&r->what_if[k], label, sizeof(label));
		for (size_t i = 0; i < r->nresults; i++) {
			const struct strategy_result *res = &r->results[i];
			double p = report_forecast(r, res, &r->what_if[k]);

			if (!(p > 0))
				continue;
			if (!any)
				fprintf(out, "\n%swhat if%s: %s, this run carried onto it (docs/MODEL.md):\n", bold,
					reset, label);
			any = true;
			fprintf(out, "  %-17s %s (%s-%s)\n", res->strategy->name,
				model_format_seconds(p, t, sizeof(t)),
				model_format_seconds(res->what_if[k].low, lo, sizeof(lo)),
				model_format_seconds(res->what_if[k].high, hi, sizeof(hi)));
		}
	}
}

/* What each strategy kept of the tree beyond its files, as verified (a planner's table). */
static void report_preserved(const struct report *r, FILE *out)
{
	bool header = false;

	for (size_t i = 0; i < r->nresults; i++) {
		const struct strategy_result *res = &r->results[i];
		char kept[256];

		if (!res->verify_summary[0])
			continue;	/* it never got as far as verification */
		report_preserved_text(res, kept, sizeof(kept));
		if (!kept[0])
			continue;
		if (!header)
			fputs("\nkept of the tree (as verified):\n", out);
		header = true;
		fprintf(out, "  %-17s %s\n", res->strategy->name, kept);
	}
}

/*
 * A section of one line per strategy that has something to say: header,
 * then each strategy's text (text returns its length, 0 for nothing).
 */
static void report_per_strategy(const struct report *r, FILE *out, const char *header,
				int (*text)(const struct report *, const struct strategy_result *, char *, size_t))
{
	bool shown = false;

	for (size_t i = 0; i < r->nresults; i++) {
		const struct strategy_result *res = &r->results[i];
		char line[1024];

		if (text(r, res, line, sizeof(line)) <= 0)
			continue;
		if (!shown)
			fputs(header, out);
		shown = true;
		fprintf(out, "  %-17s %s\n", res->strategy->name, line);
	}
}

/*
 * Under a repeated strategy's row: mean ± σ, min, max (hyperfine's figures)
 * and each run's time, in run order, up to RUNS_LISTED (the JSON has all).
 */
#define RUNS_LISTED 10
static void report_runs_line(const struct strategy_result *res, FILE *out, const char *dim,
			     const char *reset)
{
	fprintf(out, "%17s %s%u runs: mean %.2f ± %.2f s, median %.2f, min %.2f, max %.2f%s\n", "",
		dim, res->runs, res->time.mean, res->time.sd, report_seconds(res), res->time.min,
		res->time.max, reset);
	fprintf(out, "%17s %seach:", "", dim);
	for (unsigned k = 0; k < res->runs && k < RUNS_LISTED; k++)
		fprintf(out, " %.2f", res->run_seconds[k]);
	fprintf(out, "%s%s\n", res->runs > RUNS_LISTED ? " ... (all in the JSON)" : "", reset);
}

/* Narrow, a row goes on under its name's column: wire MB, forecast, f/m on a line of their own. */
static void row_break(FILE *out, bool narrow)
{
	if (narrow)
		fprintf(out, "\n%17s", "");
}

/*
 * The table's lines, as written; report_table wraps what is still too long.
 * The row: seconds (transfer + flush; the JSON has both phases), flush, rates,
 * wire MB, predicted and its ratio. An ok row is a verified one (the runner
 * fails a strategy whose copy does not verify), so there is no verified column.
 */
static void table_lines(const struct report *r, FILE *out, bool color)
{
	const char *bold = color ? "\033[1m" : "", *green = color ? "\033[32m" : "";
	const char *red = color ? "\033[31m" : "", *dim = color ? "\033[2m" : "";
	const char *reset = color ? "\033[0m" : "";
	char bytes[32], shape[256], noise[512];
	bool narrow = text_width() < TABLE_ROW_COLUMNS;
	struct winner w;
	int best = -1;

	report_winner(r, &w);
	/* "← fastest" only when it is faster beyond the runs' noise */
	if (w.best && w.clear)
		best = (int)(w.best - r->results);

	report_tree_shape(r->manifest, shape, sizeof(shape));
	fprintf(out, "%sxfercmp%s: %s, %llu files%s, %s → %s (destination %s)%s\n", bold, reset,
		r->workload_name, (unsigned long long)r->files, shape,
		units_format_bytes(r->bytes, bytes, sizeof(bytes)), r->host,
		r->dest_fs && r->dest_fs[0] ? r->dest_fs : "?", r->warm ? ", warm source" : ", cold source");
	if (r->probes) {
		fputc('\n', out);
		report_ceilings(r->probes, out);
	}
	if (r->streams_why && r->streams_why[0])
		fprintf(out, "%sstreams: %s\n", r->probes ? "" : "\n", r->streams_why);
	report_sample_lines(r, out);
	if (r->partial)
		fprintf(out, "\n%spartial%s: " REPORT_PARTIAL_WHY "\n", red, reset);
	if (r->dest_fs && !strcmp(r->dest_fs, "tmpfs"))
		fprintf(out, "%swarning%s: the destination is tmpfs (RAM): disk times do not apply\n",
			red, reset);
	fprintf(out, "\n%-17s %-6s %8s %7s %8s %8s", "strategy", "status", "seconds", "flush", "MB/s",
		"files/s");
	row_break(out, narrow);
	fprintf(out, " %8s %9s %6s\n", "wire MB", "forecast", "f/m");
	for (size_t i = 0; i < r->nresults; i++) {
		const struct strategy_result *res = &r->results[i];
		double t = report_seconds(res);

		if (res->status != RESULT_OK) {
			char lead[128], why[sizeof(res->error) * 4];

			snprintf(lead, sizeof(lead), "%-17s %s%-7s%s %s", res->strategy->name,
				 res->status == RESULT_SKIPPED ? dim : red,
				 res->status == RESULT_SKIPPED ? "skipped" : "FAILED", reset,
				 res->status == RESULT_SKIPPED ? dim : "");
			/* it may quote the agent and the tree's names: text_escape.h */
			text_escape(why, sizeof(why), res->error);
			text_wrap(out, lead, ROW_REASON_COLUMN, why, text_width());
			fputs(reset, out);
			continue;
		}
		fprintf(out, "%s%-17s%s %s%-6s%s %8.2f %7.2f %8.1f %8.0f", (int)i == best ? bold : "",
			res->strategy->name, reset, green, res->verified ? "ok" : "ok?", reset, t,
			res->median.flush, t > 0 ? (double)res->sent.bytes_read / t / 1e6 : 0.0,
			t > 0 ? (double)report_moved_files(r) / t : 0.0);
		row_break(out, narrow);
		fprintf(out, " %8.1f", (double)res->sent.wire_bytes / 1e6);
		/* the forecast made before it ran, and forecast over measured */
		if (res->have_forecast && t > 0 && !report_sample_only(r))
			fprintf(out, " %9.2f %5.2fx", res->forecast.seconds, res->forecast.seconds / t);
		else
			fprintf(out, " %9s %6s", "-", "-");
		fprintf(out, "%s\n", (int)i == best ? "  ← fastest" : "");
		if (res->runs > 1)
			report_runs_line(res, out, dim, reset);
	}
	if (report_noise_text(&w, noise, sizeof(noise)) > 0)
		fprintf(out, "%s\n", noise);
	report_cleartext(r, out);
	report_preserved(r, out);
	/* what each strategy cost both machines (report_cost.c) */
	report_per_strategy(r, out, "\ncost (median run's CPU, both ends; peak resident memory of xfercmp and its agent):\n",
			    report_cost_text);
	/* a single raw stream's socket buffers, sized for the path (report_sockbuf.c) */
	report_per_strategy(r, out, "\nsocket buffers (one stream, sized for the link's bandwidth-delay product):\n",
			    report_sockbuf_text);
	report_shares(r, out, color);
	report_what_if(r, out, color);
	report_explain_table(r->explain, out);
	if (r->recommendation[0])
		fprintf(out, "\n%srecommendation%s: %s\n", bold, reset, r->recommendation);
	if (r->compression_hint[0])
		fprintf(out, "%scompression%s: %s\n", bold, reset, r->compression_hint);
	report_sample_tail(r, out);
	if (r->error) {
		char why[4096];

		text_escape(why, sizeof(why), r->error);
		fprintf(out, "\n%serror%s: %s\n", red, reset, why);
	}
}

struct table_args {
	const struct report *r;
	bool color;
};

static void table_written(const void *ctx, FILE *out)
{
	const struct table_args *a = ctx;

	table_lines(a->r, out, a->color);
}

/*
 * The table, every line within text_width() columns: table_lines wraps the
 * lines whose indent matters; the rest (recommendation, notes, lines added
 * later) wrap here with a hanging indent.
 */
void report_table(const struct report *r, FILE *out, bool color)
{
	struct table_args a = { r, color };

	text_wrap_written(out, -1, table_written, &a);
}
