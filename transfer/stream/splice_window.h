#ifndef XFERCMP_SPLICE_WINDOW_H
#define XFERCMP_SPLICE_WINDOW_H

/*
 * Inside the splice sender (splice_sender.h), shared by its two files and
 * nothing else: splice_window.c keeps the read-ahead window of small files
 * and the io_uring that drives it and the splices; splice_sender.c sends
 * the records in authenticated segments (seal_stream.h).
 */

#include "stream/frames.h"
#include "stream/seal_stream.h"
#include "stream/send_plan.h"
#include "stream/splice_sender.h"

#include <liburing.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/*
 * Small files read ahead of the one being sent, and at most this much of
 * their content held. Measured sending 120,000 cold files (467 MiB) to a
 * sink on this VM while other jobs loaded it, 3 rounds each: windows of
 * 64, 128 and 256 took 9.3-11.7, 12.3-14.8 and 7.8-9.0 s (the noise is
 * large: other jobs shared the disk). With 16 io-wq workers instead of 64,
 * window 128: 11.6-13.7 s, no clear difference. tar's own cold read of the
 * tree: 39-49 s.
 */
#define WINDOW 256
#define WINDOW_BYTES (32u << 20)
#define BATCH_FILES 64			/* records per sendmsg at most */
#define BATCH_BYTES (1u << 20)		/* a batch is sent once it holds this much */
/*
 * Cold opens and reads block in io-wq workers; the default bound (4 per CPU)
 * would let only 8 wait on the disk at once on this 2-core machine.
 */
#define IOWQ_WORKERS 64

enum sender_op {
	OP_OPEN,
	OP_READ,
	OP_FADVISE,
	OP_CLOSE,
	OP_SPLICE,
};

#define OP_BITS 3

enum entry_state {
	ENTRY_FREE,		/* not read ahead (yet), or released */
	ENTRY_LARGE,		/* sent by splice when its turn comes */
	ENTRY_META,		/* a directory or link: nothing to read */
	ENTRY_READING,		/* chain in flight */
	ENTRY_READY,		/* every completion of its chain arrived */
};

struct entry {
	enum entry_state state;
	unsigned pending;	/* completions still to come */
	int open_res, read_res;
	unsigned char *buf;	/* file_size + 1 bytes: a longer file shows as a long read */
	size_t cap;
	unsigned char hdr[FRAME_HEADER];
};

struct sender {
	int sock, dirfd, sock_nonblock;
	struct seal_writer seal;	/* every segment's tag */
	unsigned char seg_hdr[SEAL_SEG_HEADER], seg_tag[SEAL_TAG_BYTES];
	unsigned char *chunk;		/* a large file's segment, read for its tag */
	unsigned char large_hdr[FRAME_HEADER];	/* a large file's record header, or the end record */
	bool drop_cache;	/* drop what is read from the page cache */
	const char *root;
	struct io_uring ring;
	int pipefd[2];
	size_t pipe_size;
	const struct send_item *items;
	size_t n;
	size_t held;		/* first item whose entry is not released */
	size_t cursor;		/* next item to send or batch */
	size_t fetch;		/* next item to consider for read-ahead */
	size_t window_bytes;
	unsigned inflight;	/* submitted requests whose completion has not arrived */
	int splice_done, splice_res;
	uint64_t records, content, wire;	/* every record: what END says */
	uint64_t files, file_bytes;		/* FILE and RANGE records, and their content */
	struct iovec iov[BATCH_FILES * 3 + 2];	/* [0]: the segment header; then the records, the tag */
	unsigned niov;			/* record parts in iov[1..] */
	size_t batch_bytes;
	struct entry ents[WINDOW];
};

/* The entry of item (a slot of the window). */
struct entry *splice_window_entry(struct sender *s, size_t item);
/* Starts read-ahead for items up to WINDOW past the oldest one still held. Returns 0 or -1. */
int splice_window_refill(struct sender *s);
/* Frees an entry's buffer; it is free again. */
void splice_window_release(struct sender *s, struct entry *e);
/* Submits what is queued and waits for at least one completion. Returns 0 or -1 (error set). */
int splice_window_wait(struct sender *s);
/* Waits for every request in flight, then releases every entry. */
void splice_window_drain(struct sender *s);
/*
 * One splice through the ring, waiting for it while read-ahead completions
 * come in. Returns its result (bytes, or -errno), or INT_MIN (error set)
 * when the ring failed.
 */
int splice_window_splice(struct sender *s, int in, int64_t off_in, int out, unsigned len,
			 unsigned flags);
/* 1 for a directory or link item: nothing to read. */
int splice_item_is_meta(const struct send_item *it);

#endif
