#ifndef XFERCMP_NULL_SINK_H
#define XFERCMP_NULL_SINK_H

/*
 * The agent's null sink, for --explain's "no destination disk" ablation
 * only: a receive whose request carries "sink": "null" parses the stream
 * as the named receiver would ("frames" or "tar"), counts the files and
 * hashes every content byte (xxh3, as verification does), checks each whole
 * file against the session's manifest, and writes nothing. The sender's
 * side is unchanged; the destination's creates and writes are gone.
 *
 * It is never a destination a user can pick: no strategy names it, no
 * option selects it, and a run through it is reported as checked in the
 * stream, never as a verified copy (nothing was kept to verify).
 */

#include "manifest.h"
#include "stream/recv_opts.h"
#include "stream/xfer_stats.h"

/* 1 when receiver has a null-sink form ("frames", "tar"), else 0. */
int null_sink_supports(const char *receiver);

/*
 * Runs the null form of receiver on the n connections fds[0..n), one
 * thread a stream, each checked segment by segment with opts[i].key
 * (seal_stream.h), adding to *total what they carried: files (whole files
 * and first ranges), content bytes, wire bytes. m: the session's manifest,
 * against which every whole file's size and xxh3 are checked (NULL: none
 * sent, no check). Returns 0, or -1 (error set: the first stream that
 * failed, or a file whose content differs from the manifest). Leaves the
 * fds open.
 */
int null_sink_receive(const struct manifest *m, const char *receiver, const int *fds,
		      const struct recv_opts *opts, unsigned n, struct recv_stats *total);

#endif
