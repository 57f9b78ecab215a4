#ifndef XFERCMP_FSUTIL_H
#define XFERCMP_FSUTIL_H

#include <stdbool.h>
#include <stddef.h>

/* Creates path and its missing parents with mode 0755. Returns 0 or -1 (error set). */
int fs_mkdir_p(const char *path);

/*
 * Removes path and everything below it without following symbolic links (a
 * link to a directory is unlinked, never entered) and without entering
 * another file system mounted inside. A directory the tree made read-only
 * (0555, 0500, 0000) is made rwx for its owner first, and only when a read or
 * a removal in it was refused: works for root and for the tree's owner.
 * A missing path is not an error. After a failure it goes on removing what it
 * can, then returns -1 (error set, naming path and the first failure's place
 * and cause; errno is that cause); else 0.
 */
int fs_remove_tree(const char *path);

/*
 * fs_remove_tree for a directory that holds a marker (an entry named marker
 * directly below path): the marker goes last, and only once everything else
 * went, so a removal that failed leaves it and a retry can still tell the
 * rest is ours. Returns 0 or -1 (error set).
 */
int fs_remove_marked_tree(const char *path, const char *marker);

/*
 * fs_remove_tree for the entry name of the directory dirfd, resolved with no
 * link followed (also name itself: a link is unlinked). label names it in
 * messages. Returns 0 or -1 (error set).
 */
int fs_remove_tree_at(int dirfd, const char *name, const char *label);

/*
 * Empties the open directory fd as fs_remove_marked_tree would, the entry
 * marker last and only once the rest went; the directory itself stays (its
 * owner removes it from its parent). Returns 0 or -1 (error set).
 */
int fs_empty_marked_dir(int fd, const char *marker, const char *label);

/*
 * Opens the directory name of dirfd without following a link (O_DIRECTORY,
 * O_NOFOLLOW); one that refuses its owner (0000, 0300: mode, its mode) is
 * made rwx for the owner first. Returns the fd, or -1 (errno set).
 */
int fs_open_dir_at(int dirfd, const char *name, unsigned mode);

/*
 * The names of the directory dirfd (read through an open of its own: dirfd
 * stays open, its offset unmoved) that keep(name, ctx) accepts and that fit a
 * slot of slot bytes, at most max of them, read before any is acted on (so
 * removing what they name cannot make the reading skip one). *names: n slots
 * of slot bytes each, calloc'd, the caller frees it; *n: how many. Returns 0,
 * or -1 (errno set, nothing to free).
 */
int fs_dir_names(int dirfd, unsigned max, size_t slot, int (*keep)(const char *name, const void *ctx),
		 const void *ctx, char **names, unsigned *n);

/* Removes everything below dir, keeping dir itself. Returns 0 or -1 (error set). */
int fs_clear_dir(const char *dir);

/* Returns 1 if dir exists and is empty, 0 if it has entries, -1 (error set) otherwise. */
int fs_dir_is_empty(const char *dir);

/* Joins a and b with one '/' into buf; returns -1 (error set) if it does not fit. */
int fs_join(char *buf, size_t len, const char *a, const char *b);

/*
 * Whether a file could be written at path before anything is done that
 * its writing would waste: its directory exists, is a directory and is
 * writable, and path is not itself a directory (nor an existing file we
 * may not write). "-" (stdout) always can. Creates nothing. Returns 0,
 * or -1 with the error set to one line saying which and what to do.
 */
int fs_check_writable(const char *path);

/* Whether dir is a directory we can read: -1 (error set: "no such directory", "not a directory", ...) or 0. */
int fs_check_readable_dir(const char *dir);

/* Writes all of buf to fd, retrying short writes and EINTR. Returns 0 or -1 (errno set). */
int fs_write_all(int fd, const void *buf, size_t len);

/*
 * fs_write_all for a socket, with MSG_NOSIGNAL: a peer that closed its end
 * gives EPIPE, never SIGPIPE, whatever the process does with that signal.
 */
int fs_send_all(int fd, const void *buf, size_t len);

/* Reads exactly len bytes unless EOF comes first; returns bytes read or -1 (errno set). */
long long fs_read_full(int fd, void *buf, size_t len);

/* Writes back the whole file system holding the directory dir (syncfs); 0 or -1 (error set). */
int fs_sync_dir_fs(const char *dir);

/* Name of the file system type holding path ("ext4", "tmpfs", ...; "0x1234" when unknown). */
int fs_type_name(const char *path, char *buf, size_t len);

/* fs_type_name of the file open as fd; label names it in messages. */
int fs_type_name_fd(int fd, const char *label, char *buf, size_t len);

/*
 * Where scratch directories go: $XFERCMP_SCRATCH if set (tests point it at
 * their own directory), else /var/tmp, which is on disk where /tmp may be tmpfs.
 */
const char *fs_scratch_base(void);

#endif
