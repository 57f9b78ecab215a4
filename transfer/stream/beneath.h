#ifndef XFERCMP_BENEATH_H
#define XFERCMP_BENEATH_H

#include <linux/openat2.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Paths from the network resolved beneath a destination directory, never
 * through a symbolic link: every lookup is openat2 with RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS, so neither "..", an absolute path, a link planted in
 * the destination nor one a stream created itself leads anywhere but inside
 * it. The receivers of transfer/stream/ share these. Paths are relative to
 * dirfd and already checked by pathcheck_relative; `dest` names dirfd in
 * messages only.
 */

#define RESOLVE_SAFE_FLAGS (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)

/* openat2 of path beneath dirfd (flags as open, mode for O_CREAT). Returns fd, or -1 with errno. */
int beneath_open(int dirfd, const char *path, uint64_t flags, mode_t mode);

/*
 * Makes dir (relative to dirfd) and its missing parents with mode 0755, one
 * component at a time, each below one opened without following a link: a
 * link on the way is refused (ELOOP), never followed; a directory another
 * thread makes at the same moment is fine. dir is modified while it runs and
 * restored. Returns an O_PATH descriptor of dir, or -1 (error set).
 */
int beneath_mkdirs(int dirfd, const char *dest, char *dir);

/*
 * The directory that holds path, made if missing (beneath_mkdirs): returns
 * an O_PATH descriptor of it (for a path of one component, a duplicate of
 * dirfd) and sets *base to path's last component, or -1 (error set).
 */
int beneath_parent(int dirfd, const char *dest, const char *path, const char **base);

/*
 * The /proc/self/fd name of an O_PATH descriptor, through which chmod,
 * utimensat and linkat reach the very inode the descriptor holds (an O_PATH
 * descriptor takes no fchmod, and following that name follows no link of
 * the tree). proc must hold 32 bytes.
 */
void beneath_proc_name(int fd, char proc[32]);

#endif
