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

/*
 * A message kept aside: across cleanup calls that may set messages of their
 * own, or from a worker thread to the thread that joins it. err_save copies
 * the current message into s (the empty message when none is set);
 * err_restore makes s the current message again and returns -1, so that
 * "return err_restore(&saved);" re-raises it.
 */
struct err_saved {
	char msg[ERR_MAX];
};

void err_save(struct err_saved *s);
int err_restore(const struct err_saved *s);

#endif
