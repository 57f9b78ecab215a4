/*
 * The results table as CSV (RFC 4180: a header row, fields quoted when they
 * hold a comma, quote or line break) and as a Markdown table, for a
 * spreadsheet or a ticket. One row per strategy, the same columns in both,
 * and CSV's "partial" last: CSV has no place for a note about the whole run
 * that every reader skips (a "#" line is a row to most of them), a column
 * it has (report.h).
 */
#include "report/report.h"

#include "err.h"
#include "text_escape.h"

#include <stdio.h>
#include <string.h>

static const char *const columns[] = {
	"strategy", "status", "seconds", "transfer_seconds", "flush_seconds", "runs",
	"mean_seconds", "stddev_seconds", "bytes_per_s", "files_per_s", "wire_bytes",
	"verified", "kept", "verdict", "error",
};
#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))

/* Column i of res as text into buf ("" when not measured). */
static void cell(const struct report *r, const struct strategy_result *res, size_t i, char *buf,
		 size_t len)
{
	double t = report_seconds(res);
	int ran = res->status == RESULT_OK && res->runs;

	buf[0] = '\0';
	switch (i) {
	case 0: snprintf(buf, len, "%s", res->strategy->name); break;
	case 1: snprintf(buf, len, "%s", res->status == RESULT_OK ? "ok" :
			 res->status == RESULT_SKIPPED ? "skipped" : "failed"); break;
	case 2: if (ran) snprintf(buf, len, "%.3f", t); break;
	case 3: if (ran) snprintf(buf, len, "%.3f", res->median.transfer); break;
	case 4: if (ran) snprintf(buf, len, "%.3f", res->median.flush); break;
	case 5: snprintf(buf, len, "%u", res->runs); break;
	case 6: if (ran) snprintf(buf, len, "%.3f", res->time.mean); break;
	case 7: if (ran && res->runs > 1) snprintf(buf, len, "%.3f", res->time.sd); break;
	case 8: if (ran && t > 0) snprintf(buf, len, "%.0f", (double)res->sent.bytes_read / t); break;
	case 9: if (ran && t > 0) snprintf(buf, len, "%.1f", (double)report_moved_files(r) / t); break;
	case 10: if (ran) snprintf(buf, len, "%llu", (unsigned long long)res->sent.wire_bytes); break;
	case 11: if (ran) snprintf(buf, len, "%s", res->verified ? "yes" : "no"); break;
	case 12: if (res->verify_summary[0]) report_preserved_text(res, buf, len); break;
	case 13: if (res->have_accounting)
			 snprintf(buf, len, "%s", resource_verdict_name(res->accounting.verdict));
		 break;
	case 14: snprintf(buf, len, "%s", res->error); break;
	}
}

static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* Markdown cells: a pipe would end the cell, a newline the row. */
static void md_field(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else if (*s == '\n' || *s == '\r')
			fputc(' ', f);
		else
			fputc(*s, f);
	}
}

static int export(const struct report *r, const char *path, int markdown)
{
	FILE *f = fopen(path, "w");
	char buf[1200];

	if (!f)
		return err_errno("cannot write '%s'", path);
	if (markdown && r->partial)
		fputs("**partial: " REPORT_PARTIAL_WHY "**\n\n", f);
	for (size_t i = 0; i < NCOLUMNS; i++) {
		fputs(markdown ? (i ? " | " : "| ") : (i ? "," : ""), f);
		fputs(columns[i], f);
	}
	fputs(markdown ? " |\n" : ",partial\r\n", f);
	if (markdown) {
		for (size_t i = 0; i < NCOLUMNS; i++)
			fputs(i ? " | ---" : "| ---", f);
		fputs(" |\n", f);
	}
	for (size_t k = 0; k < r->nresults; k++) {
		for (size_t i = 0; i < NCOLUMNS; i++) {
			cell(r, &r->results[k], i, buf, sizeof(buf));
			/* errors quote the agent and the tree's names: text_escape.h */
			text_escape_inplace(buf, sizeof(buf));
			fputs(markdown ? (i ? " | " : "| ") : (i ? "," : ""), f);
			(markdown ? md_field : csv_field)(f, buf);
		}
		fputs(markdown ? " |\n" : r->partial ? ",yes\r\n" : ",no\r\n", f);
	}
	if (ferror(f) | (fclose(f) != 0))
		return err_errno("cannot write '%s'", path);
	return 0;
}

int report_export_csv(const struct report *r, const char *path)
{
	return export(r, path, 0);
}

int report_export_markdown(const struct report *r, const char *path)
{
	return export(r, path, 1);
}
