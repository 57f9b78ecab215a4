/* The destination ran out of space: see nospace.h. */
#define _GNU_SOURCE
#include "nospace.h"

#include "err.h"
#include "units.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

int nospace_free_fd(int fd, struct nospace_free *f)
{
	struct statvfs v;

	memset(f, 0, sizeof(*f));
	if (fstatvfs(fd, &v) < 0)
		return -1;
	f->bytes = (uint64_t)v.f_bavail * v.f_frsize;
	f->inodes = v.f_favail;
	f->inodes_counted = v.f_files != 0;
	return 0;
}

bool nospace_full(const struct nospace_free *f)
{
	return f->bytes < (1u << 20) || (f->inodes_counted && f->inodes == 0);
}

const char *nospace_free_text(const struct nospace_free *f, char *buf, size_t len)
{
	char b[32];

	snprintf(buf, len, "%s free%s", units_format_bytes(f->bytes, b, sizeof(b)),
		 f->inodes_counted && f->inodes == 0 ? " but no inode" : "");
	return buf;
}

bool nospace_says_enospc(const char *msg)
{
	return strcasestr(msg, strerror(ENOSPC)) != NULL;
}

int nospace_err(int fd, const char *so_far, const char *fmt, ...)
{
	char what[600], free_text[64] = "";
	struct nospace_free f;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (fd >= 0 && nospace_free_fd(fd, &f) == 0)
		nospace_free_text(&f, free_text, sizeof(free_text));
	if (free_text[0])
		return err_set(NOSPACE_TEXT " writing %s (%s%s%s on its file system)", what,
			       so_far ? so_far : "", so_far ? "; " : "", free_text);
	if (so_far)
		return err_set(NOSPACE_TEXT " writing %s (%s)", what, so_far);
	return err_set(NOSPACE_TEXT " writing %s", what);
}

void nospace_name(char *msg, size_t cap, const struct nospace_free *f)
{
	char free_text[64], *old;

	if (strstr(msg, NOSPACE_TEXT) || !(old = strdup(msg)))
		return;
	if (f)
		snprintf(msg, cap, NOSPACE_TEXT " (%s on its file system): %s",
			 nospace_free_text(f, free_text, sizeof(free_text)), old);
	else
		snprintf(msg, cap, NOSPACE_TEXT ": %s", old);
	free(old);
}
