#ifndef XFERCMP_MODEL_TEXT_H
#define XFERCMP_MODEL_TEXT_H

/*
 * The model's words (model_text.c): the number formats its lines share and
 * the accounting's reason and note, apart from the arithmetic.
 */

#include "model/accounting.h"

#include <stddef.h>

/* Rounds v to a whole number and writes it with thousands separators: "19,800". */
const char *attr_grouped(double v, char *buf, size_t len);

/* Megabytes per second for the reasons: "0.4", "48", "2,500". */
const char *attr_mb_s(double bps, char *buf, size_t len);

/* A round trip for the reasons: "135 µs", "2.0 ms". */
const char *attr_rtt(double s, char *buf, size_t len);

/* snprintf appending at *used, never past len. */
void attr_append(char *buf, size_t len, size_t *used, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* "1 h 12 min", "9 min 4 s", "12.3 s", "0.41 s" into buf. */
const char *model_format_seconds(double s, char *buf, size_t len);

/*
 * Writes out->reason (the numbers behind out->verdict, every "A s of B s"
 * with A at most B) and out->note (a resource close behind, ceilings the
 * run beat, time nothing explains), for accounting_make.
 */
void model_text_reason(const struct run_record *run, const struct forecast_input *in,
		       const struct forecast *f, struct accounting *out);

#endif
