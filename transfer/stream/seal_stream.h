#ifndef XFERCMP_SEAL_STREAM_H
#define XFERCMP_SEAL_STREAM_H

/*
 * Every byte of a data connection authenticated (issue 43): after the
 * handshake of wire_auth.h, the stream (the record format of frames.h, or a
 * tar stream) travels as segments, each checked before a byte of it is used:
 *
 *   header  4 bytes: the payload's length (24 bits, big-endian, at most
 *           SEAL_SEG_MAX) and a flags byte (SEAL_SEG_END: the last one)
 *   payload that many bytes, in clear (the raw strategies measure the link
 *           without a cipher)
 *   tag     16 bytes: ChaCha20-Poly1305 (seal.h) under the connection's
 *           client-to-agent key and the segment's number, over the header
 *           and the payload as associated data (Poly1305 over them)
 *
 * A byte changed on the way, a segment dropped, repeated, reordered, moved
 * from another stream or connection, injected, or the stream cut before its
 * end segment: the reader fails with "integrity check failed: ..." before
 * anything of it is written, and never hands on a byte it has not checked.
 * The end segment is authenticated too, so a stream cut between segments is
 * caught, and bytes after it are refused.
 *
 * Cost: a tag is Poly1305 over the bytes, about 7-9 GB/s on this VM; the
 * receiver reads segments into memory (no splice socket -> file: a segment
 * must be checked before it is written); the splice sender still sends the
 * content file -> pipe -> socket and computes the tag from a read-only
 * mapping of the same pages.
 */

#include "stream/recv_opts.h"
#include "stream/seal.h"
#include "stream/tar_stream.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#define SEAL_SEG_HEADER 4
#define SEAL_SEG_MAX (2u << 20)
#define SEAL_SEG_END 1
/* bytes a reader may be asked for at once (seal_reader_fill): a record header and its path */
#define SEAL_FILL_MAX (64u << 10)
/* a reader's buffer: one whole segment, its tag and what is left of the one before */
#define SEAL_READER_BUF (SEAL_SEG_MAX + SEAL_FILL_MAX + SEAL_TAG_BYTES)

/* The segment header of a payload of len (<= SEAL_SEG_MAX) bytes, end: the last one. */
void seal_segment_header(unsigned char hdr[SEAL_SEG_HEADER], size_t len, int end);

/* The sending end of a stream. */
struct seal_writer {
	struct seal seal;
	uint64_t seq;		/* segments tagged */
};

/* key: the connection's client-to-agent key. Returns 0 or -1 (error set). */
int seal_writer_init(struct seal_writer *w, const unsigned char key[SEAL_KEY_BYTES]);
void seal_writer_release(struct seal_writer *w);

/*
 * The tag of the next segment: its header and payload as the parts
 * iov[0..n) one after another, iov[0] the 4-byte header alone (then the
 * payload in any number of parts) or the header and payload in one.
 * Takes the segment's number. Returns 0 or -1 (error set).
 */
int seal_writer_tag(struct seal_writer *w, const struct iovec *iov, int n,
		    unsigned char tag[SEAL_TAG_BYTES]);

/*
 * A byte sink (tar_stream.h) that cuts what it is given into segments of
 * SEAL_SINK_SEGMENT bytes into out (not owned); its close sends what is
 * left as the end segment, then closes out. wire: bytes handed to out.
 */
#define SEAL_SINK_SEGMENT (1u << 20)
struct seal_sink {
	struct seal_writer w;
	struct byte_sink *out, self;
	unsigned char *buf;	/* SEAL_SEG_HEADER + SEAL_SINK_SEGMENT + SEAL_TAG_BYTES */
	size_t fill;
	uint64_t wire;
	int closed;
};

int seal_sink_init(struct seal_sink *s, struct byte_sink *out, const unsigned char key[SEAL_KEY_BYTES]);
struct byte_sink *seal_sink_as_sink(struct seal_sink *s);
/* Frees the buffer and wipes the key; never closes out. */
void seal_sink_release(struct seal_sink *s);

/*
 * The receiving end. Checked bytes wait in buf[start..end); the reader reads
 * a segment from fd only when they run short. before_read, when set, is
 * called (with ctx) before each read that may wait on the network (the
 * frames receiver submits its queued creates then). bounds (NULL: none),
 * shared by the streams of one receive: a segment that would take their
 * payload past bounds->max_payload is refused before it is read, and a
 * read that waits bounds->idle_ms fails ("the sender sent nothing for N s").
 */
struct seal_reader {
	int fd, nonblock;
	struct seal seal;
	uint64_t seq;		/* segments opened */
	unsigned char *buf;
	size_t start, end;
	int ended;		/* the end segment was opened */
	uint64_t wire;		/* bytes read from fd */
	uint64_t payload;	/* checked bytes so far */
	struct recv_bounds *bounds;
	void (*before_read)(void *ctx);
	void *ctx;
};

/* o: the stream's key and the receive's bounds. Returns 0 or -1 (error set). */
int seal_reader_init(struct seal_reader *r, int fd, const struct recv_opts *o);
void seal_reader_release(struct seal_reader *r);

static inline size_t seal_reader_avail(const struct seal_reader *r)
{
	return r->end - r->start;
}

/*
 * Makes at least want (<= SEAL_FILL_MAX) checked bytes wait in buf, one
 * after another. Returns 1; 0 when the stream's end segment came first (what
 * is left waits); -1 with the error set: "integrity check failed: ..." (a
 * segment that does not check, the stream cut before its end segment), or
 * the socket's error.
 */
int seal_reader_fill(struct seal_reader *r, size_t want);

/*
 * Raw bytes between two segments (frames.h: a large file's content goes
 * unsealed after the segment that holds its record, and is checked at
 * verify by a keyed hash): the caller reads them from r->fd itself, with
 * nothing checked waiting (seal_reader_avail 0). seal_reader_raw_wait
 * waits until some may be read, within the bounds' idle limit: 0, or -1
 * (error set); seal_reader_raw_took counts n bytes read: 0, or -1 (error
 * set) when they pass the bounds' payload.
 */
int seal_reader_raw_wait(struct seal_reader *r);
int seal_reader_raw_took(struct seal_reader *r, uint64_t n);

/*
 * After the end segment: reads fd to its end, so the sender's last write
 * completes; a byte there is an error ("integrity check failed: bytes after
 * the end"), as is an end segment not come yet. Returns 0 or -1.
 */
int seal_reader_finish(struct seal_reader *r);

#endif
