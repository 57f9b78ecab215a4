#ifndef XFERCMP_NOSPACE_H
#define XFERCMP_NOSPACE_H

/*
 * One way of saying that the destination ran out of space, whichever side
 * saw it (the agent's probes and receivers, the host's tar or sftp-server,
 * a reference tool): NOSPACE_TEXT, what was being written, and what is
 * free on the file system. sftp-server answers a full disk with a bare
 * "Failure" and GNU tar sometimes with a short write: those are told apart
 * by the free space (nospace_full).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NOSPACE_TEXT "the destination ran out of space"

/* What a file system has free for an unprivileged user. */
struct nospace_free {
	uint64_t bytes;
	uint64_t inodes;
	bool inodes_counted;	/* false on file systems that count none (btrfs) */
};

/* The free space of the file system holding fd. Returns 0 or -1 (errno set). */
int nospace_free_fd(int fd, struct nospace_free *f);

/* Whether f is a full file system: under 1 MiB free, or no inode left. */
bool nospace_full(const struct nospace_free *f);

/* "1.50 MiB free", "120 MiB free but no inode" into buf; returns buf. */
const char *nospace_free_text(const struct nospace_free *f, char *buf, size_t len);

/* Whether msg carries ENOSPC's text (any case: rclone writes it in lower case). */
bool nospace_says_enospc(const char *msg);

/*
 * Sets the error NOSPACE_TEXT " writing WHAT (SO_FAR; FREE on its file
 * system)", WHAT made from fmt, SO_FAR how far it got (NULL: none), FREE
 * from the file system of fd (left out when it cannot be read). Returns -1.
 */
int nospace_err(int fd, const char *so_far, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Rewrites msg (cap bytes) as NOSPACE_TEXT " (FREE on its file system): "
 * followed by msg, which names what was being written; f NULL: the free
 * space is not known and left out. A msg that already says NOSPACE_TEXT
 * is left as it is. What does not fit is cut from the end.
 */
void nospace_name(char *msg, size_t cap, const struct nospace_free *f);

#endif
