#ifndef XFERCMP_LIVE_FIT_H
#define XFERCMP_LIVE_FIT_H

/*
 * A line of the live view fitted to the terminal (live.c, live_probe.c):
 * fields joined, the least useful dropped until the line fits, then cut.
 */

#include <stdbool.h>
#include <stddef.h>

#define LIVE_FIELDS_MAX 8
#define LIVE_FIELD_LEN 80

/*
 * The fields of a line in order: text[i] ("" is absent), sep[i] the text
 * before it (NULL: none), keep[i] whether it is still shown.
 */
struct live_fields {
	unsigned n;
	char text[LIVE_FIELDS_MAX][LIVE_FIELD_LEN];
	const char *sep[LIVE_FIELDS_MAX];
	bool keep[LIVE_FIELDS_MAX];
};

/* Adds a field kept, after sep; returns its text (LIVE_FIELD_LEN bytes) for the caller to fill. */
char *live_fields_add(struct live_fields *f, const char *sep);

/*
 * Joins the kept, present fields into buf (len bytes, always terminated);
 * returns the length written.
 */
size_t live_fields_join(char *buf, size_t len, const struct live_fields *f);

/*
 * Joins f into buf within max bytes: while it is wider, drops the fields
 * drop[0], drop[1], ... in turn; then cuts it at max, never inside a UTF-8
 * character. A byte is taken for a column: a line of non-ASCII text is
 * narrower than counted, never wider.
 */
void live_fields_fit(char *buf, size_t len, struct live_fields *f, const unsigned *drop, size_t ndrop,
		     size_t max);

/* A duration as the live lines show it: "0.9 s", "12 s", "1 min 10 s", "2 h 01 min". */
void live_duration(char *buf, size_t len, double s);

#endif
