/*
 * --explain in the reports: the disagreement line, the terminal section and
 * each explained result's JSON. The runs and the causal verdict are
 * transfer/run's (explain.c, explain_decide.c).
 */
#include "report/report_explain.h"

#include "model/accounting.h"
#include "model/model_text.h"
#include "units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* "41.20 s -> 7.90 s, -81%" for one ablation. */
static void saving_text(const struct explain_item *it, const struct explain_ablation *a, char *buf,
			size_t len)
{
	snprintf(buf, len, "%.2f s -> %.2f s, %+.0f%%", explain_reference(it), a->seconds,
		 -100.0 * a->saved_fraction);
}

int explain_disagreement_text(const struct explain_item *it, char *buf, size_t len)
{
	char saving[96];
	int n;

	buf[0] = '\0';
	if (!it->has_agreement || it->agrees)
		return 0;
	if (it->by_elimination)
		n = snprintf(buf, len,
			     "%s: the model says %s, but no removal saved more than %.0f%%: the causal verdict is cpu (by elimination)",
			     it->result->strategy->name, resource_verdict_name(it->result->accounting.verdict),
			     100 * EXPLAIN_NOISE);
	else {
		saving_text(it, &it->ab[it->causal_by], saving, sizeof(saving));
		n = snprintf(buf, len,
			     "%s: the model says %s, but taking away %s saved most (%s): the causal verdict is %s",
			     it->result->strategy->name, resource_verdict_name(it->result->accounting.verdict),
			     explain_removed_text(it->causal_by), saving, resource_name(it->causal));
	}
	return n < 0 ? 0 : n >= (int)len ? (int)len - 1 : n;
}

const struct explain_item *explain_find(const struct explain_report *ex, const struct strategy_result *r)
{
	for (size_t i = 0; ex && i < ex->n; i++)
		if (ex->items[i].result && ex->items[i].result->strategy == r->strategy)
			return &ex->items[i];
	return NULL;
}

double explain_model_share(const struct strategy_result *r, enum explain_removed k)
{
	const double *sh = r->accounting.share;

	if (!r->have_accounting)
		return -1;
	switch (k) {
	case EXPLAIN_DEST_DISK:
	case EXPLAIN_SOURCE_DISK:
		return sh[RES_DISK] + sh[RES_METADATA];
	case EXPLAIN_DURABLE_WRITE:
		return sh[RES_DISK];
	case EXPLAIN_NETWORK:
		return sh[RES_NETWORK] + sh[RES_LATENCY];
	default:
		return sh[RES_CPU];
	}
}

void report_explain_table(const struct explain_report *ex, FILE *out)
{
	if (!ex || !ex->n)
		return;
	fprintf(out, "\nwhat taking each resource away saved (--explain: each strategy again, one removal at a time)%s\n",
		ex->partial ? ", partial: interrupted" : "");
	for (size_t i = 0; i < ex->n; i++) {
		const struct explain_item *it = &ex->items[i];
		const struct strategy_result *r = it->result;
		char line[640];

		fprintf(out, "  %s, %.2f s", r->strategy->name, it->baseline_seconds);
		if (r->have_accounting) {
			fprintf(out, "; the model: net %.0f%% lat %.0f%% disk %.0f%% meta %.0f%% cpu %.0f%%, %s",
				100 * r->accounting.share[RES_NETWORK], 100 * r->accounting.share[RES_LATENCY],
				100 * r->accounting.share[RES_DISK], 100 * r->accounting.share[RES_METADATA],
				100 * r->accounting.share[RES_CPU],
				resource_verdict_name(r->accounting.verdict));
		}
		fputc('\n', out);
		/* the control the savings are measured against, and a baseline it does not bear out */
		if (it->control_status == EXPLAIN_OK)
			fprintf(out, "    %-42s %.2f s%s\n", "control (nothing removed)", it->control_seconds,
				it->baseline_outlier ? "" : "  (the savings below are against it)");
		else if (it->control_status != EXPLAIN_NOT_RUN)
			fprintf(out, "    %-42s %s: %s (the savings below are against the comparison's time)\n",
				"control (nothing removed)", explain_status_name(it->control_status),
				it->control_reason);
		if (it->baseline_outlier)
			fprintf(out, "    the comparison's %.2f s was an outlier: the control took %.2f s, beyond their "
				"noise; the savings below are against the control, and no causal verdict is given\n",
				it->baseline_seconds, it->control_seconds);
		for (int k = 0; k < EXPLAIN_REMOVED_COUNT; k++) {
			const struct explain_ablation *a = &it->ab[k];
			char saving[96];

			fprintf(out, "    without %-34s ", explain_removed_text((enum explain_removed)k));
			switch (a->status) {
			case EXPLAIN_OK:
				saving_text(it, a, saving, sizeof(saving));
				fprintf(out, "%s%s\n", saving,
					a->removed != EXPLAIN_DEST_DISK ? (explain_ablation_verified(a) ? "  verified" : "")
					: a->stream_checked ? "  (checked in the stream; nothing kept, not a copy)"
					: "  (nothing kept, not a copy)");
				break;
			case EXPLAIN_SKIPPED:
				fprintf(out, "skipped: %s\n", a->reason);
				break;
			case EXPLAIN_FAILED:
				fprintf(out, "FAILED: %s\n", a->reason);
				break;
			default:
				fprintf(out, "not run: interrupted\n");
				break;
			}
		}
		if (it->baseline_outlier)
			fprintf(out, "    causal verdict: withheld (the baseline was an outlier against the control)\n");
		else if (it->causal == RES_COUNT)
			fprintf(out, "    causal verdict: none (no removal could run and save beyond %.0f%%)\n",
				100 * EXPLAIN_NOISE);
		else if (it->by_elimination)
			fprintf(out, "    causal verdict: cpu (no removal saved more than %.0f%%)%s\n",
				100 * EXPLAIN_NOISE, it->has_agreement ? (it->agrees ? "; the model agrees" : "") : "");
		else
			fprintf(out, "    causal verdict: %s (taking away %s saved most)%s\n",
				resource_name(it->causal), explain_removed_text(it->causal_by),
				it->has_agreement ? (it->agrees ? "; the model agrees" : "") : "");
		if (explain_disagreement_text(it, line, sizeof(line)) > 0)
			fprintf(out, "    disagreement: %s\n", line);
	}
}

static json_object *json_seconds(double s, bool have)
{
	return have && isfinite(s) ? json_object_new_double(s) : NULL;
}

void report_explain_json(const struct explain_report *ex, const struct strategy_result *r, json_object *o)
{
	const struct explain_item *it = explain_find(ex, r);
	json_object *arr;

	if (!it)
		return;
	arr = json_object_new_array();
	for (int k = 0; k < EXPLAIN_REMOVED_COUNT; k++) {
		const struct explain_ablation *a = &it->ab[k];
		json_object *one = json_object_new_object();
		bool ok = a->status == EXPLAIN_OK;

		json_object_object_add(one, "removed", json_object_new_string(explain_removed_name(a->removed)));
		json_object_object_add(one, "seconds", json_seconds(a->seconds, ok));
		json_object_object_add(one, "saved_fraction", json_seconds(a->saved_fraction, ok));
		json_object_object_add(one, "status", json_object_new_string(explain_status_name(a->status)));
		json_object_object_add(one, "reason", a->reason[0] ? json_object_new_string(a->reason) : NULL);
		json_object_object_add(one, "verified", json_object_new_boolean(explain_ablation_verified(a)));
		json_object_object_add(one, "stream_checked",
				       a->removed == EXPLAIN_DEST_DISK && ok ? json_object_new_boolean(a->stream_checked)
									     : NULL);
		json_object_array_add(arr, one);
	}
	json_object_object_add(o, "explain", arr);
	json_object_object_add(o, "causal_verdict",
			       it->causal == RES_COUNT ? NULL
			       : json_object_new_string(resource_name(it->causal)));
	json_object_object_add(o, "causal_by_elimination", json_object_new_boolean(it->by_elimination));
	json_object_object_add(o, "causal_agrees", it->has_agreement ? json_object_new_boolean(it->agrees) : NULL);
	json_object_object_add(o, "explain_baseline_seconds", json_object_new_double(it->baseline_seconds));
	json_object_object_add(o, "explain_control_seconds",
			       json_seconds(it->control_seconds, it->control_status == EXPLAIN_OK));
	json_object_object_add(o, "explain_control_status",
			       json_object_new_string(explain_status_name(it->control_status)));
	json_object_object_add(o, "explain_baseline_outlier", json_object_new_boolean(it->baseline_outlier));
}
