#ifndef XFERCMP_REPORT_DIFF_H
#define XFERCMP_REPORT_DIFF_H

/* Two --json reports side by side (xfercmp diff; report_diff.c). */

#include <json-c/json.h>
#include <stdio.h>

/*
 * Reads a --json report from path, upgraded to the current schema
 * (report_json_upgrade). Returns the document (the caller owns it), or NULL
 * (error set, naming path) when it is no JSON, no report, or of a newer schema.
 */
json_object *report_diff_load(const char *path);

/*
 * Writes a against b to out, named a_path and b_path: the words of their
 * command lines that differ, if any; per strategy the time in each, the
 * change and whether it is beyond the runs' noise (Welch's t-test on
 * --repeat runs, or ranges that do not overlap); then the ceilings that
 * changed by more than 10%, named and in their units (Gbit/s, MB/s,
 * files/s, ms or µs).
 */
void report_diff(json_object *a, const char *a_path, json_object *b, const char *b_path, FILE *out);

#endif
