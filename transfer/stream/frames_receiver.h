#ifndef XFERCMP_FRAMES_RECEIVER_H
#define XFERCMP_FRAMES_RECEIVER_H

#include "stream/xfer_stats.h"

/*
 * The receiving half of the `splice` strategy (and of every strategy that
 * speaks transfer/stream/frames.h); splice_sender.h is its mirror. Runs on the
 * destination, inside the agent, on input from the network: every header is
 * checked with frame_decode and every path with pathcheck_relative, and files
 * are opened beneath dest with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, so
 * neither "..", an absolute path nor a symbolic link planted in dest leads
 * outside it.
 *
 * Whole files of at most FRAMES_SMALL_MAX bytes are read into memory and
 * created many at once through io_uring (creating 120,000 files is
 * metadata-bound); larger content goes socket -> pipe -> file by splice, so
 * memory stays bounded whatever the stream claims.
 */

#define FRAMES_SMALL_MAX (256u << 10)

/*
 * Reads records from sock until the END record and writes them below dest
 * (an existing directory). FILE records create their file (an existing one
 * is an error); RANGE records create it if needed and write at their offset,
 * so several connections may fill one file at once. Parent directories are
 * made with mode 0755. A file gets the record's permission bits regardless of
 * the umask, except set-user-ID and set-group-ID, which are never applied to
 * a file that came from the network. A file without owner write still takes
 * all its ranges when the receiver is not root: a range gives the owner
 * write back to open it, then sets the record's mode again.
 *
 * After END it reads on to the end of the stream, so the sender must shut
 * down its side (shutdown SHUT_WR, or close) for this to return.
 *
 * A garbled header, a rejected path, a stream that ends before END, END
 * totals that disagree with what arrived, or bytes after END: -1 with the
 * error set (reading stops; files already written stay). Fills *st (files
 * and ranges written, content bytes written, bytes read from sock); st may
 * be NULL. Returns 0 or -1 (error set).
 */
int frames_receive(int sock, const char *dest, struct recv_stats *st);

#endif
