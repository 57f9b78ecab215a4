#ifndef XFERCMP_ERR_H
#define XFERCMP_ERR_H

/*
 * One error message per thread, carried up to the one place that prints it
 * (cmd/) or puts it in the JSON "error" field. Modules never print errors and
 * never exit: they call err_set() and return -1, and callers may add context
 * in front with err_wrap() as the error travels up.
 */

#include <stddef.h>

#define ERR_MAX 1024

/* Sets the message; returns -1 so that "return err_set(...)" reads naturally. */
int err_set(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Like err_set, with ": strerror(errno)" appended (errno read before formatting). */
int err_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prefixes the current message with "context: "; returns -1. */
int err_wrap(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The current message ("" when none); valid until the next err_* call. */
const char *err_msg(void);

void err_clear(void);

#endif
