/* The terminal table: one row per strategy, fastest first marked. */
#include "report.h"

#include "units.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define BAR_WIDTH 40

/*
 * One bar per strategy, BAR_WIDTH cells split by share: N network, L latency,
 * D disk, M metadata, C cpu, '.' other (time the prediction does not explain). Letters as well as colours, so the bar
 * still reads without colour (NO_COLOR, a pipe, a screen reader).
 */
static void share_bar(const struct attribution *a, FILE *out, bool color)
{
	static const char letters[RES_COUNT + 1] = { 'N', 'L', 'D', 'M', 'C', '.' };
	static const char *const colors[RES_COUNT + 1] = { "\033[34m", "\033[36m", "\033[33m",
							    "\033[35m", "\033[31m", "\033[2m" };
	int cells[RES_COUNT + 1], used = 0, biggest = 0;

	for (int k = 0; k <= RES_COUNT; k++) {
		cells[k] = (int)(a->share[k] * BAR_WIDTH + 0.5);
		used += cells[k];
		if (a->share[k] > a->share[biggest])
			biggest = k;
	}
	cells[biggest] += BAR_WIDTH - used;	/* rounding goes to the largest share */
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
	int n = 0;

	for (size_t i = 0; i < r->nresults; i++) {
		if (!*(const bool *)((const char *)&r->results[i] + flag))
			continue;
		fprintf(out, "%s%s", n++ ? ", " : head, r->results[i].strategy->name);
	}
	if (n)
		fprintf(out, "%s\n", tail);
}

/*
 * Once: which strategies sent their data unencrypted across the network,
 * and which went to the agent through ssh (so measured the cipher too).
 */
static void report_cleartext(const struct report *r, FILE *out)
{
	report_flagged(r, out, offsetof(struct strategy_result, cleartext),
		       "\nsent unencrypted over TCP (readable on the way): ", "; the SSH strategies encrypt");
	report_flagged(r, out, offsetof(struct strategy_result, agent_via_ssh),
		       "\nthrough ssh to the agent (its port closed to us, or --agent-via-ssh): ",
		       "; their times include the cipher and the tunnel");
}

static void report_shares(const struct report *r, FILE *out, bool color)
{
	const char *bold = color ? "\033[1m" : "", *reset = color ? "\033[0m" : "";
	const char *red = color ? "\033[31m" : "";
	int any = 0;

	for (size_t i = 0; i < r->nresults; i++)
		any |= r->results[i].have_attribution;
	if (!any)
		return;
	fprintf(out, "\n%swhere the time went%s (N network, L latency, D disk, M metadata, C cpu, . other: not explained)\n",
		bold, reset);
	fprintf(out, "%-17s %-42s %4s %4s %4s %4s %4s %5s  %s\n", "strategy", "", "net", "lat", "disk",
		"meta", "cpu", "other", "verdict");
	for (size_t i = 0; i < r->nresults; i++) {
		const struct strategy_result *res = &r->results[i];
		const struct attribution *a = &res->attribution;

		if (!res->have_attribution)
			continue;
		fprintf(out, "%-17s ", res->strategy->name);
		share_bar(a, out, color);
		fprintf(out, " %3.0f%% %3.0f%% %3.0f%% %3.0f%% %3.0f%% %4.0f%%  %s%s%s\n",
			a->share[RES_NETWORK] * 100, a->share[RES_LATENCY] * 100,
			a->share[RES_DISK] * 100, a->share[RES_METADATA] * 100, a->share[RES_CPU] * 100,
			a->share[RES_COUNT] * 100, bold, attribution_verdict_name(a->verdict), reset);
		fprintf(out, "%17s   %s\n", "", a->reason);
		if (a->note[0])
			fprintf(out, "%17s   %snote: %s%s\n", "", red, a->note, reset);
	}
}

/* Each strategy's predicted time on each --what-if link. */
static void report_what_if(const struct report *r, FILE *out, bool color)
{
	const char *bold = color ? "\033[1m" : "", *reset = color ? "\033[0m" : "";

	for (size_t k = 0; k < r->nwhat_if; k++) {
		char label[96], t[32];
		bool any = false;

		attribution_what_if_label(&r->what_if[k], label, sizeof(label));
		for (size_t i = 0; i < r->nresults; i++) {
			const struct strategy_result *res = &r->results[i];
			double p = report_predicted(r, res, &r->what_if[k]);

			if (!(p > 0))
				continue;
			if (!any)
				fprintf(out, "\n%swhat if%s: %s, from this run's measurements:\n", bold,
					reset, label);
			any = true;
			fprintf(out, "  %-17s %s\n", res->strategy->name,
				attribution_format_seconds(p, t, sizeof(t)));
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

void report_table(const struct report *r, FILE *out, bool color)
{
	const char *bold = color ? "\033[1m" : "", *green = color ? "\033[32m" : "";
	const char *red = color ? "\033[31m" : "", *dim = color ? "\033[2m" : "";
	const char *reset = color ? "\033[0m" : "";
	char bytes[32], shape[256], noise[512];
	struct report_winner w;
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
	if (r->partial)
		fprintf(out, "\n%spartial%s: interrupted; only the strategies marked ok finished\n", red,
			reset);
	if (r->dest_fs && !strcmp(r->dest_fs, "tmpfs"))
		fprintf(out, "%swarning%s: the destination is tmpfs (RAM): disk times do not apply\n",
			red, reset);
	fprintf(out, "\n%-17s %-8s %9s %9s %8s %9s %10s %10s  %-8s %9s %6s\n", "strategy", "status",
		"seconds", "transfer", "flush", "MB/s", "files/s", "wire MB", "verified", "predicted",
		"ratio");
	for (size_t i = 0; i < r->nresults; i++) {
		const struct strategy_result *res = &r->results[i];
		double t = report_seconds(res);

		if (res->status != RESULT_OK) {
			fprintf(out, "%-17s %s%-8s%s %s%s%s\n", res->strategy->name,
				res->status == RESULT_SKIPPED ? dim : red,
				res->status == RESULT_SKIPPED ? "skipped" : "FAILED", reset,
				res->status == RESULT_SKIPPED ? dim : "", res->error, reset);
			continue;
		}
		fprintf(out, "%s%-17s%s %s%-8s%s %9.2f %9.2f %8.2f %9.1f %10.0f %10.1f  %-8s",
			(int)i == best ? bold : "", res->strategy->name, reset, green, "ok", reset, t,
			res->median.transfer, res->median.flush,
			t > 0 ? (double)res->sent.bytes_read / t / 1e6 : 0.0,
			t > 0 ? (double)r->files / t : 0.0, (double)res->sent.wire_bytes / 1e6,
			res->verified ? "yes" : "no");
		/* ratio: predicted over measured; a misfit (beyond ATTRIBUTION_MISFIT) is marked */
		if (res->have_attribution && res->attribution.predicted_s > 0)
			fprintf(out, " %9.2f %s%5.2fx%s", res->attribution.predicted_s,
				res->attribution.misfit ? red : "", res->attribution.predicted_s / t, reset);
		else
			fprintf(out, " %9s %6s", "-", "-");
		fprintf(out, "%s%s\n", res->attribution.misfit && res->have_attribution ? " !" : "",
			(int)i == best ? "  ← fastest" : "");
		if (res->runs > 1)
			report_runs_line(res, out, dim, reset);
	}
	if (report_noise_text(&w, noise, sizeof(noise)) > 0)
		fprintf(out, "%s\n", noise);
	report_cleartext(r, out);
	report_preserved(r, out);
	report_shares(r, out, color);
	report_what_if(r, out, color);
	if (r->recommendation[0])
		fprintf(out, "\n%srecommendation%s: %s\n", bold, reset, r->recommendation);
	if (r->compression_hint[0])
		fprintf(out, "%scompression%s: %s\n", bold, reset, r->compression_hint);
	if (r->error)
		fprintf(out, "\n%serror%s: %s\n", red, reset, r->error);
}
