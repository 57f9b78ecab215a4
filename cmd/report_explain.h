#ifndef XFERCMP_REPORT_EXPLAIN_H
#define XFERCMP_REPORT_EXPLAIN_H

/* --explain in the terminal report and the JSON (report_explain.c). */

#include "explain.h"

#include <json-c/json.h>
#include <stdio.h>

/* The item explaining r, or NULL (ex may be NULL). */
const struct explain_item *explain_find(const struct explain_report *ex, const struct strategy_result *r);

/* The section after the results: each removal's saving, the causal verdict, a disagreement. */
void report_explain_table(const struct explain_report *ex, FILE *out);

/* Adds "explain", "causal_verdict", "causal_agrees" ... to r's JSON object o when r was explained. */
void report_explain_json(const struct explain_report *ex, const struct strategy_result *r, json_object *o);

#endif
