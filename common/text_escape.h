#ifndef XFERCMP_TEXT_ESCAPE_H
#define XFERCMP_TEXT_ESCAPE_H

/*
 * The one escape for text that may hold bytes a terminal acts on: every
 * string that came from the network (the agent's errors, its verify
 * examples and summary, its "info"), and names from a user's tree, before
 * they reach a terminal, a CSV or Markdown export or a log. A file named
 * "ESC]0;title BEL" must print as text, never retitle or recolour the
 * user's terminal, and a newline in a name must not start a line of its own.
 *
 *   newline, tab         \n, \t
 *   other C0 bytes, DEL  \xHH (ESC is \x1b)
 *   C1 controls          \u0080 .. \u009f (U+0080-U+009F, which some
 *                        terminals take as CSI and the like)
 *   invalid UTF-8        \xHH per byte (a lone 0x9b is CSI to an 8-bit terminal)
 *   everything else      as it is (printable ASCII, valid UTF-8)
 *
 * A backslash is left as it is, so escaping is idempotent: escaped text
 * holds no byte that would be escaped again, and a string escaped where it
 * was received and again where it is printed reads the same. (The price:
 * a name holding the four characters "\x1b" and one holding ESC print
 * alike. This is for people reading, not for parsing back.)
 */

#include <stddef.h>

/*
 * Writes src escaped into out (len bytes, NUL-terminated; len >= 1). Cut to
 * fit without splitting an escape or a UTF-8 character. Returns 1 when
 * something was escaped or cut, else 0. out and src must not overlap.
 */
int text_escape(char *out, size_t len, const char *src);

/* The same in place: s (a buffer of cap bytes) is replaced by its escaped text. */
void text_escape_inplace(char *s, size_t cap);

/* 1 when s holds a byte that text_escape would change. */
int text_needs_escape(const char *s);

#endif
