#ifndef XFERCMP_TEXT_WRAP_H
#define XFERCMP_TEXT_WRAP_H

/*
 * Text that fits text_width() columns: the comparison's report, the ceilings,
 * --help. Columns are characters (UTF-8: "→", "µ", "±" are one each), not
 * bytes; ANSI colour sequences take none.
 */

#include <stddef.h>
#include <stdio.h>

/* The widest text gets: a terminal of 100 columns, or a code review's side-by-side pane (issue 23). */
#define TEXT_WIDTH_MAX 100
/* The narrowest it is wrapped to: a narrower terminal folds the 60-column text itself (issue 44). */
#define TEXT_WIDTH_MIN 60

/* The width for a terminal of cols columns: cols within [MIN, MAX]; MAX when cols is 0 (not a terminal). */
size_t text_width_for(unsigned cols);

/*
 * The width text is wrapped to: TEXT_WIDTH_MAX until text_width_set (cmd/
 * sets it once from stdout's terminal: text_terminal_columns).
 */
size_t text_width(void);
void text_width_set(size_t width);

/* fd's terminal's columns (TIOCGWINSZ), else $COLUMNS, else 0. */
unsigned text_terminal_columns(int fd);

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

/*
 * write(ctx, f) into a buffer, then the buffer to out through
 * text_wrap_block at text_width() (indent as there): a report written
 * line by line comes out fitted. Without memory for the buffer, write(ctx,
 * out): the lines as they are.
 */
void text_wrap_written(FILE *out, int indent, void (*write)(const void *ctx, FILE *f), const void *ctx);

#endif
