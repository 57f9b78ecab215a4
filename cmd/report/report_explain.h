#ifndef XFERCMP_REPORT_EXPLAIN_H
#define XFERCMP_REPORT_EXPLAIN_H

/* --explain in the terminal report and the JSON (report_explain.c). */

#include "run/explain.h"

#include <json-c/json.h>
#include <stdio.h>

/*
 * The one line when the causal and the model's verdicts disagree, into
 * buf: "splice: the model says disk-bound, but taking away the network
 * saved most (41.20 s -> 7.90 s, -81%): the causal verdict is network".
 * Returns its length; 0 (buf "") when they agree or either has none.
 */
int explain_disagreement_text(const struct explain_item *it, char *buf, size_t len);

/* The item explaining r, or NULL (ex may be NULL). */
const struct explain_item *explain_find(const struct explain_report *ex, const struct strategy_result *r);

/*
 * The model's share of r's time in what removal k takes away, the most the
 * model says that removal could save (the HTML's paired bars set it beside
 * the measured saving): the destination disk its disk and metadata shares,
 * durable writes its disk share, the source disk its disk and metadata,
 * the network its network and latency, the cipher its cpu. Negative when r
 * has no attribution.
 */
double explain_model_share(const struct strategy_result *r, enum explain_removed k);

/* The section after the results: each removal's saving, the causal verdict, a disagreement. */
void report_explain_table(const struct explain_report *ex, FILE *out);

/* Adds "explain", "causal_verdict", "causal_agrees" ... to r's JSON object o when r was explained. */
void report_explain_json(const struct explain_report *ex, const struct strategy_result *r, json_object *o);

#endif
