#ifndef XFERCMP_UNITS_H
#define XFERCMP_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* A GiB in bytes, for figures given "a GiB" (CPU seconds a GiB, and the like) */
#define UNITS_GIB 1073741824.0

/*
 * Parses a size: digits with an optional K, M, G or T suffix (powers of 1024),
 * optionally followed by "B" or "iB" ("4K", "20G", "1MiB", "512").
 * Returns 0 and sets *out, or -1 with the error set naming the text.
 */
int units_parse_size(const char *text, uint64_t *out);

/* Parses a non-negative decimal count no larger than max. */
int units_parse_count(const char *text, uint64_t max, uint64_t *out);

/* Parses a decimal fraction in [lo, hi]. */
int units_parse_double(const char *text, double lo, double hi, double *out);

/* Formats bytes as "1.50 GiB", "512 B" into buf; returns buf. */
const char *units_format_bytes(uint64_t bytes, char *buf, size_t len);

/* Formats a count with thousands separators, "120,000", into buf; returns buf. */
const char *units_format_count(uint64_t v, char *buf, size_t len);

#endif
