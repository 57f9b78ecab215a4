#include "err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char msg[ERR_MAX];

int err_set(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return -1;
}

int err_errno(const char *fmt, ...)
{
	int saved = errno;
	size_t n;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	n = strlen(msg);
	snprintf(msg + n, sizeof(msg) - n, ": %s", strerror(saved));
	errno = saved;
	return -1;
}

/* Copies s to msg + at, truncating at the end of msg. */
static void append(char *dst, size_t at, const char *s)
{
	size_t n = strlen(s);

	if (at >= ERR_MAX - 1)
		return;
	if (n > ERR_MAX - 1 - at)
		n = ERR_MAX - 1 - at;
	memcpy(dst + at, s, n);
	dst[at + n] = '\0';
}

int err_wrap(const char *fmt, ...)
{
	char prefix[ERR_MAX], old[ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, msg, sizeof(old));
	append(msg, 0, prefix);
	append(msg, strlen(msg), ": ");
	append(msg, strlen(msg), old);
	return -1;
}

const char *err_msg(void)
{
	return msg;
}

void err_clear(void)
{
	msg[0] = '\0';
}

void err_save(struct err_saved *s)
{
	memcpy(s->msg, msg, sizeof(s->msg));
}

int err_restore(const struct err_saved *s)
{
	if (s->msg != msg)
		memcpy(msg, s->msg, sizeof(msg));
	return -1;
}
