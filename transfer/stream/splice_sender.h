#ifndef XFERCMP_SPLICE_SENDER_H
#define XFERCMP_SPLICE_SENDER_H

#include "stream/frames.h"
#include "stream/seal.h"
#include "stream/send_plan.h"
#include "stream/xfer_stats.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * The sending half of the `splice` strategy; frames_receiver.h is its mirror.
 * Whole files of at most SPLICE_SMALL_MAX bytes are opened and read ahead of
 * the one being sent, many at once through io_uring (a single reader of cold
 * small files would spend its time waiting on the disk), and go out in
 * batches of records per syscall, in authenticated segments. Larger files
 * and ranges go file -> pipe -> socket with io_uring splice, raw after the
 * segment that ends with their record (frames.h).
 */

/* = FRAME_RAW_MIN: what is larger goes raw after its record (frames.h) */
#define SPLICE_SMALL_MAX FRAME_RAW_MIN

/*
 * Sends items[0..n) from src_root on sock as records (transfer/stream/frames.h)
 * in authenticated segments (seal_stream.h) tagged with key, the
 * connection's client-to-agent key:
 * FILE for whole files, RANGE for ranges, each followed by its content read
 * from the file, DIR, SYMLINK and HARDLINK records from the plan alone (the
 * manifest's modes, mtimes and link text: nothing is read for them), then an
 * END record with the totals. sock may be blocking or not; a send
 * timeout on a blocking socket is an error. With drop_cache, every file read
 * is dropped from the page cache again (posix_fadvise DONTNEED).
 * A file whose size is not the planned file_size is an error naming it.
 * Fills *st (FILE and RANGE records sent, content bytes read, bytes handed
 * to the socket, framing and links included; round_trips 0), also after an error; st may be NULL.
 * Returns 0, or -1 with the error set naming the file; after an error the
 * stream is unusable and the caller should close sock. Either way sock stays
 * open: the receiver (frames_receive) returns once the caller shuts it down.
 */
int splice_send(int sock, const unsigned char key[SEAL_KEY_BYTES], const char *src_root,
		const struct send_item *items, size_t n, bool drop_cache, struct send_stats *st);

#endif
