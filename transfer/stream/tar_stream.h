#ifndef XFERCMP_TAR_STREAM_H
#define XFERCMP_TAR_STREAM_H

/*
 * The tar stream of the `tar-ssh`, `zstd-ssh` and `zstd` strategies: the
 * sender writes a tree as a pax-restricted tar stream (what `tar -cf -`
 * would send) into a byte sink; the receiver (the agent, or the host's own
 * GNU tar) extracts it. Compression is one more sink in the chain
 * (zstd_sink.h), so the writer knows nothing about it.
 */

#include "manifest.h"
#include "stream/recv_opts.h"
#include "stream/xfer_stats.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * Where a stream goes: a socket, a pipe, an SSH channel, a compressor.
 * write: takes all len bytes or returns -1 with the error set (0 on success).
 * close: the stream is complete: flush what is buffered and tell the far end
 * no more comes; returns 0 or -1 (error set). After close, no more writes.
 * Neither frees ctx: whoever made the sink owns it.
 */
struct byte_sink {
	int (*write)(void *ctx, const void *buf, size_t len);
	int (*close)(void *ctx);
	void *ctx;
};

/*
 * Makes s write to *fd, which the caller keeps owning. write retries short
 * writes and EINTR; on a non-blocking fd it waits in poll() on EAGAIN.
 * close ends the stream: on a socket it shuts down the write side (the fd
 * stays open so the caller can read a reply, then close it); on anything
 * else it closes the fd and sets *fd to -1. Writing to a pipe or socket
 * whose reader is gone raises SIGPIPE unless the process ignores it.
 */
void byte_sink_fd(struct byte_sink *s, int *fd);

/*
 * Writes the tree of the manifest as a tar stream into out and then closes
 * out. Paths in the stream are relative to src_root. Nodes go in bytewise
 * path order, so each directory's subtree is one run: a directory's entry
 * comes before everything in it and nothing comes into it after the
 * stream leaves it (GNU tar applies a directory's mode and mtime then).
 * Directories, empty ones included, carry the manifest's mode and mtime (a
 * parent the manifest does not list goes out 0755); symbolic links the
 * manifest's text (the link is looked at, never opened or followed); each
 * inode's content goes once, under the first of its names to come, the
 * other names as hard-link entries to it; files keep their mode and mtime.
 * Special files are left out. Every source file's page cache is dropped
 * after reading it (sources are read cold). A file whose size is not the
 * manifest's is an error naming it. st (zeroed here): files (contents
 * sent), bytes_read (content), wire_bytes (bytes handed to out). On
 * failure the stream is left without its end-of-archive marker and out is
 * not closed (the caller releases it): tar_stream_extract then fails on it
 * as truncated; GNU tar may take a stream cut between entries as complete,
 * so only verification catches that there. Returns 0 or -1 (error set).
 */
int tar_stream_write(const char *src_root, const struct manifest *m, bool drop_cache,
		     struct byte_sink *out, struct send_stats *st);

/*
 * Reads a tar stream (plain or zstd-compressed) from fd, in authenticated
 * segments checked with o->key (seal_stream.h: a changed byte fails the
 * extraction, "integrity check failed", before it is written), and extracts
 * it under dest, which must exist. Accepted: regular files, directories,
 * symbolic links and hard links with relative names free of "." and ".."
 * components (a leading "./" is dropped; the "." entry itself is skipped).
 * A symbolic link's text is data (".." allowed) and is never followed: an
 * entry whose directory is reached through a link is refused, and an entry
 * in a link's place replaces the link. A hard link is made only to a
 * regular file already in dest, reached through no link. Any other entry
 * stops the extraction with an error naming it, before anything is written
 * for it. Set-user-ID and set-group-ID bits are dropped; modes and mtimes
 * are kept, a directory's applied after its contents (a 0555 directory
 * gets its files). The stream must end with its end-of-archive marker (a
 * stream cut anywhere, even between entries, is an error); after it, fd is
 * read to its sealed end (at most 4 MiB more) and its end of file, so the
 * sender must end the stream (close, or shut down its write side). fd stays open. st (zeroed here):
 * files (regular files with content; hard links not counted), bytes
 * (content), wire_bytes (bytes read from fd). On failure, what was
 * extracted stays. Returns 0 or -1 (error set, starting "tar stream: ").
 */
int tar_stream_extract(int fd, const struct recv_opts *o, const char *dest, struct recv_stats *st);

/*
 * The same beneath the directory dirfd (kept open by the caller; dest names
 * it in messages): every name is resolved from that descriptor, never from
 * dest's path, so a path renamed or swapped for a link after dirfd was
 * opened changes nothing. Needs /proc (the names libarchive is given start
 * at /proc/self/fd/N).
 */
int tar_stream_extract_at(int fd, const struct recv_opts *o, int dirfd, const char *dest,
			  struct recv_stats *st);

#endif
