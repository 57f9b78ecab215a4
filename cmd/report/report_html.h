#ifndef XFERCMP_REPORT_HTML_H
#define XFERCMP_REPORT_HTML_H

/* The pieces of the --html page (report_html.c), shared by its files. */

#include "report/report.h"

#include <stdio.h>

/* s escaped for HTML text and attribute values. */
void report_html_escape(FILE *f, const char *s);

/* The per-strategy timelines of both ends, from the samplers' series; nothing without samples. */
void report_html_timelines(const struct report *r, FILE *f);

/* The network sweep as a small bar chart (report_html_sweep.c); nothing without a sweep. */
void report_html_sweep(const struct probe_results *p, FILE *f);
/* --explain's paired bars (report_html_explain.c); nothing without --explain. */
void report_html_explain(const struct report *r, FILE *f);

#endif
