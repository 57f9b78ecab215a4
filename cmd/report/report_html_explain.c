/*
 * --explain on the --html page: for each explained strategy, one pair of
 * bars a removal, the model's share of the time in what that removal takes
 * away (explain_model_share) beside the share the removal measured saving,
 * then the causal verdict and, when they differ, the disagreement line.
 */
#include "report/report_explain.h"
#include "report/report_html.h"

#include <stdio.h>

#define PAIR_LABEL 310
#define PAIR_WIDTH 400
#define PAIR_BAR 10
#define PAIR_ROW 34

static void pair_bar(FILE *f, int y, double fraction, const char *fill, const char *title)
{
	double w = fraction > 0 ? (fraction > 1 ? 1 : fraction) * PAIR_WIDTH : 0;

	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>%s %.0f%%</title></rect>\n"
		   "<text x=\"%.1f\" y=\"%d\" class=\"tick\">%.0f%%</text>\n",
		PAIR_LABEL, y, w, PAIR_BAR, fill, title, 100 * fraction, PAIR_LABEL + w + 4, y + PAIR_BAR - 1,
		100 * fraction);
}

static void explain_item_html(const struct explain_item *it, FILE *f)
{
	const struct strategy_result *r = it->result;
	char line[640];

	fputs("<h3>", f);
	report_html_escape(f, r->strategy->name);
	fprintf(f, ", %.2f s", it->baseline_seconds);
	if (it->control_status == EXPLAIN_OK)
		fprintf(f, "; the control (nothing removed) %.2f s%s", it->control_seconds,
			it->baseline_outlier ? ": the comparison's time was an outlier, no causal verdict" : "");
	fprintf(f, "</h3>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\" "
		   "aria-label=\"the model's share beside the measured saving of each removal\">\n",
		PAIR_LABEL + PAIR_WIDTH + 300, EXPLAIN_REMOVED_COUNT * PAIR_ROW + 24);
	for (int k = 0; k < EXPLAIN_REMOVED_COUNT; k++) {
		const struct explain_ablation *a = &it->ab[k];
		double model = explain_model_share(r, (enum explain_removed)k);
		int y = k * PAIR_ROW + 4;

		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" class=\"label\">without %s</text>\n",
			PAIR_LABEL - 8, y + PAIR_BAR + 4, explain_removed_text((enum explain_removed)k));
		if (model >= 0)
			pair_bar(f, y, model, "#9aa7bd", "the model's share");
		if (a->status == EXPLAIN_OK) {
			pair_bar(f, y + PAIR_BAR + 1, a->saved_fraction, "#2f7d4f", "measured saving");
		} else {
			fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"tick\">%s: ", PAIR_LABEL,
				y + 2 * PAIR_BAR, explain_status_name(a->status));
			report_html_escape(f, a->reason);
			fputs("</text>\n", f);
		}
	}
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"10\" fill=\"#9aa7bd\"/>"
		   "<text x=\"%d\" y=\"%d\" class=\"legend\">the model's share</text>"
		   "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"10\" fill=\"#2f7d4f\"/>"
		   "<text x=\"%d\" y=\"%d\" class=\"legend\">measured saving</text>\n</svg>\n",
		PAIR_LABEL, EXPLAIN_REMOVED_COUNT * PAIR_ROW + 6, PAIR_LABEL + 16,
		EXPLAIN_REMOVED_COUNT * PAIR_ROW + 15, PAIR_LABEL + 150, EXPLAIN_REMOVED_COUNT * PAIR_ROW + 6,
		PAIR_LABEL + 166, EXPLAIN_REMOVED_COUNT * PAIR_ROW + 15);
	fprintf(f, "<p>causal verdict: <b>%s</b>", it->baseline_outlier ? "withheld"
		: it->causal == RES_COUNT ? "none" : resource_name(it->causal));
	if (it->has_agreement)
		fprintf(f, "; the model says %s: %s", resource_verdict_name(r->accounting.verdict),
			it->agrees ? "they agree" : "they <b>disagree</b>");
	fputs("</p>\n", f);
	if (explain_disagreement_text(it, line, sizeof(line)) > 0) {
		fputs("<p class=\"fail\">", f);
		report_html_escape(f, line);
		fputs("</p>\n", f);
	}
}

void report_html_explain(const struct report *r, FILE *f)
{
	const struct explain_report *ex = r->explain;

	if (!ex || !ex->n)
		return;
	fprintf(f, "<h2>What taking each resource away saved%s</h2>\n"
		   "<p>Each strategy again, one resource taken away at a time: the destination disk (the agent's "
		   "null sink: checked in the stream, nothing kept, never a verified copy), durable writes "
		   "(tmpfs), the source disk (read warm), the network (an agent on this machine), the cipher.</p>\n",
		ex->partial ? " (partial: interrupted)" : "");
	for (size_t i = 0; i < ex->n; i++)
		explain_item_html(&ex->items[i], f);
}
