#ifndef XFERCMP_PATHCHECK_H
#define XFERCMP_PATHCHECK_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Every path a receiver is given comes from the network: it must stay inside
 * the destination. pathcheck_relative accepts only a relative path of
 * non-empty components, none "." or "..", no NUL, at most PATHCHECK_MAX_DEPTH
 * components of at most 255 bytes, len bytes in all (no terminator needed).
 * Returns 0, or -1 with the error set saying what is wrong.
 * Symbolic links on the way are the receiver's concern: open with
 * O_NOFOLLOW / RESOLVE_BENEATH.
 */

#define PATHCHECK_MAX_DEPTH 64

int pathcheck_relative(const char *path, size_t len);

/*
 * openat2(dirfd, path, flags, mode) resolving beneath dirfd through no
 * symbolic link at all (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS): a link
 * anywhere on the way, the last component included, fails with ELOOP
 * (with O_PATH | O_NOFOLLOW the last one opens as the link itself).
 * One syscall for the whole walk. Returns the fd or -1 (errno set).
 */
int pathcheck_open_beneath(int dirfd, const char *path, int flags, mode_t mode);

#endif
