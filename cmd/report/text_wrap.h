#ifndef XFERCMP_TEXT_WRAP_H
#define XFERCMP_TEXT_WRAP_H

/*
 * Text that fits TEXT_WIDTH columns: the comparison's report, the ceilings,
 * --help. Columns are characters (UTF-8: "→", "µ", "±" are one each), not
 * bytes; ANSI colour sequences take none.
 */

#include <stddef.h>
#include <stdio.h>

/* The limit: a terminal of 100 columns, or a code review's side-by-side pane. */
#define TEXT_WIDTH 100

/* The columns s[0..n) takes on a terminal. */
size_t text_columns(const char *s, size_t n);

/*
 * Writes lead, then text wrapped at width columns at its spaces, to out:
 * lead starts the first line; each following line starts with indent spaces
 * (a hanging indent). A word longer than a line is left whole; a '\n' in
 * text starts a new (indented) line. Ends with '\n'.
 */
void text_wrap(FILE *out, const char *lead, size_t indent, const char *text, size_t width);

/*
 * Writes block (lines ending in '\n') to out with each line longer than
 * width wrapped: its leading spaces kept, the rest hanging at indent columns,
 * or (indent < 0) at its leading spaces + 2. Lines that fit are left as they
 * are (table rows keep their alignment).
 */
void text_wrap_block(FILE *out, const char *block, size_t width, int indent);

#endif
