#ifndef XFERCMP_ATTRIBUTION_TEXT_H
#define XFERCMP_ATTRIBUTION_TEXT_H

/* The number formats the attribution's reason lines share (attribution_text.c). */

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

#endif
