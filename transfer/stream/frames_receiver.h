#ifndef XFERCMP_FRAMES_RECEIVER_H
#define XFERCMP_FRAMES_RECEIVER_H

#include "stream/frames.h"
#include "stream/recv_opts.h"
#include "stream/xfer_stats.h"

/*
 * The receiving half of the `splice` strategy (and of every strategy that
 * speaks transfer/stream/frames.h); splice_sender.h is its mirror. Runs on the
 * destination, inside the agent, on input from the network: every header is
 * checked with frame_decode and every path (a hard link's primary too) with
 * pathcheck_relative, and everything is resolved beneath dest as beneath.h
 * says (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), so neither "..", an absolute
 * path, a symbolic link planted in dest nor one the stream made itself leads
 * outside it. A symbolic link's text is data: it may hold ".." or "/", and
 * nothing is ever written through it.
 *
 * Measured (20,000 small files of the smallfiles workload, 76 MiB, with
 * their mtimes, replayed into ext4 on this 2-core VM while other jobs loaded
 * it): the end of the receive, 20,000 utimensat and 21 directories, took
 * 0.041 s of the 1.2-6 s receive; the small-file creates stay batched.
 *
 * The stream comes in authenticated segments (seal_stream.h), each checked
 * with o->key before any byte of it is used: a byte changed on the way fails
 * the receive ("integrity check failed: ...") before it is written. Whole
 * files of at most FRAMES_SMALL_MAX bytes are read into memory and created
 * many at once through io_uring (creating 120,000 files is metadata-bound);
 * larger content is written from the checked segments as they come, so
 * memory stays bounded whatever the stream claims.
 */

/* = FRAME_RAW_MIN: smaller content comes in checked segments, larger raw (frames.h) */
#define FRAMES_SMALL_MAX FRAME_RAW_MIN

struct frames_tree;

/*
 * Reads records from sock until the END record and writes them beneath the
 * tree's directory descriptor (frames_tree_new_at; dest names it in
 * messages), as one stream of a receive whose end is tree (finished once
 * every stream of it returned). Thread-safe: several streams may fill one
 * dest.
 *
 * FILE records create their file (an existing one is an error); RANGE
 * records create it if needed and write at their offset, so several
 * connections may fill one file at once. Parent directories are made with
 * mode 0755, DIR records make theirs the same way. SYMLINK records make the
 * link at once (symlinkat: its text is never resolved, and a later record
 * whose path goes through it is refused). HARDLINK records, file mtimes and
 * directory modes and mtimes are handed to tree when the stream ended
 * cleanly. A file gets the record's permission bits regardless of the umask,
 * except set-user-ID and set-group-ID, which are never applied to anything
 * that came from the network. A file without owner write still takes all
 * its ranges when the receiver is not root: a range gives the owner write
 * back to open it, then sets the record's mode again.
 *
 * After END it reads on to the end of the stream, so the sender must shut
 * down its side (shutdown SHUT_WR, or close) for this to return.
 *
 * A garbled header, a rejected path, a stream that ends before END, END
 * totals that disagree with what arrived, or bytes after END: -1 with the
 * error set (reading stops; files already written stay). Fills *st (FILE
 * and RANGE records written, their content bytes, bytes read from sock); st
 * may be NULL. Returns 0 or -1 (error set).
 */
int frames_receive_part(struct frames_tree *tree, const char *dest, int sock,
			const struct recv_opts *o, struct recv_stats *st);

/*
 * One stream alone: frames_receive_part into a tree of its own, then
 * frames_tree_finish (hard links, mtimes, directory modes) when it succeeded.
 * Returns 0 or -1 (error set).
 */
int frames_receive_at(int sock, const struct recv_opts *o, int dirfd, const char *dest,
		      struct recv_stats *st);
/* The same into a path the caller trusts (tests, local use), opened once here. */
int frames_receive(int sock, const struct recv_opts *o, const char *dest, struct recv_stats *st);

#endif
