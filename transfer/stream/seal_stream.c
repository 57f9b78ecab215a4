/* A data connection's bytes in authenticated segments. See seal_stream.h. */
#define _GNU_SOURCE
#include "stream/seal_stream.h"

#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void seal_segment_header(unsigned char hdr[SEAL_SEG_HEADER], size_t len, int end)
{
	hdr[0] = (unsigned char)(len >> 16);
	hdr[1] = (unsigned char)(len >> 8);
	hdr[2] = (unsigned char)len;
	hdr[3] = end ? SEAL_SEG_END : 0;
}

int seal_writer_init(struct seal_writer *w, const unsigned char key[SEAL_KEY_BYTES])
{
	w->seq = 0;
	return seal_init(&w->seal, key);
}

void seal_writer_release(struct seal_writer *w)
{
	seal_release(&w->seal);
}

int seal_writer_tag(struct seal_writer *w, const struct iovec *iov, int n,
		    unsigned char tag[SEAL_TAG_BYTES])
{
	if (n < 1 || iov[0].iov_len < SEAL_SEG_HEADER)
		return err_set("a segment's parts must start with its header");
	if (seal_tag(&w->seal, w->seq, iov, n, tag) < 0)
		return -1;
	w->seq++;
	return 0;
}

/* ---------------------------------------------------------------- the sink */

/* Sends buf's segment of fill payload bytes (end: the last). */
static int sink_emit(struct seal_sink *s, int end)
{
	unsigned char *payload = s->buf + SEAL_SEG_HEADER;
	struct iovec part = { s->buf, SEAL_SEG_HEADER + s->fill };
	size_t total = SEAL_SEG_HEADER + s->fill + SEAL_TAG_BYTES;

	/* the header and the payload are one part: they lie one after the other */
	seal_segment_header(s->buf, s->fill, end);
	if (seal_writer_tag(&s->w, &part, 1, payload + s->fill) < 0)
		return -1;
	if (s->out->write(s->out->ctx, s->buf, total) < 0)
		return -1;
	s->wire += total;
	s->fill = 0;
	return 0;
}

static int sink_write(void *ctx, const void *buf, size_t len)
{
	struct seal_sink *s = ctx;

	if (s->closed)
		return err_set("write to a sealed stream after its end");
	while (len > 0) {
		size_t room = SEAL_SINK_SEGMENT - s->fill, now = len < room ? len : room;

		memcpy(s->buf + SEAL_SEG_HEADER + s->fill, buf, now);
		s->fill += now;
		buf = (const char *)buf + now;
		len -= now;
		if (s->fill == SEAL_SINK_SEGMENT && sink_emit(s, 0) < 0)
			return -1;
	}
	return 0;
}

static int sink_close(void *ctx)
{
	struct seal_sink *s = ctx;

	if (s->closed)
		return 0;
	s->closed = 1;
	if (sink_emit(s, 1) < 0)
		return -1;
	return s->out->close(s->out->ctx);
}

int seal_sink_init(struct seal_sink *s, struct byte_sink *out, const unsigned char key[SEAL_KEY_BYTES])
{
	memset(s, 0, sizeof(*s));
	s->out = out;
	s->buf = malloc(SEAL_SEG_HEADER + SEAL_SINK_SEGMENT + SEAL_TAG_BYTES);
	if (!s->buf)
		return err_set("out of memory for a sealed stream");
	if (seal_writer_init(&s->w, key) < 0) {
		free(s->buf);
		s->buf = NULL;
		return -1;
	}
	s->self = (struct byte_sink){ .write = sink_write, .close = sink_close, .ctx = s };
	return 0;
}

struct byte_sink *seal_sink_as_sink(struct seal_sink *s)
{
	return &s->self;
}

void seal_sink_release(struct seal_sink *s)
{
	seal_writer_release(&s->w);
	free(s->buf);
	s->buf = NULL;
}

/* ---------------------------------------------------------------- the reader */

int seal_reader_init(struct seal_reader *r, int fd, const struct recv_opts *o)
{
	int fl = fcntl(fd, F_GETFL);

	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->bounds = o->bounds;
	r->nonblock = fl >= 0 && (fl & O_NONBLOCK);
	if (fl < 0)
		return err_errno("bad socket");
	r->buf = malloc(SEAL_READER_BUF);
	if (!r->buf)
		return err_set("out of memory for a stream's buffer");
	if (seal_init(&r->seal, o->key) < 0) {
		free(r->buf);
		r->buf = NULL;
		return -1;
	}
	return 0;
}

void seal_reader_release(struct seal_reader *r)
{
	seal_release(&r->seal);
	free(r->buf);
	r->buf = NULL;
}

/*
 * Reads exactly len bytes into p. Returns 1, 0 at the end of the stream
 * before the first byte, -1 (error set; cut in the middle is an integrity
 * failure: the segment never came whole).
 */
static int read_exact(struct seal_reader *r, void *p, size_t len)
{
	size_t got = 0;

	int idle_ms = r->bounds ? r->bounds->idle_ms : -1;

	if (r->before_read)
		r->before_read(r->ctx);
	while (got < len) {
		ssize_t n;

		if (idle_ms >= 0 || r->nonblock) {
			struct pollfd pf = { .fd = r->fd, .events = POLLIN };
			int w = poll(&pf, 1, idle_ms);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				return err_errno("cannot wait for the stream");
			if (w == 0)
				return err_set("the sender sent nothing for %d s (%llu bytes into the stream): cut",
					       idle_ms / 1000, (unsigned long long)r->wire);
		}
		n = read(r->fd, (char *)p + got, len - got);
		if (n > 0) {
			got += (size_t)n;
			r->wire += (uint64_t)n;
			continue;
		}
		if (n == 0) {
			if (got == 0)
				return 0;
			return err_set("integrity check failed: the stream was cut in the middle of segment %llu (%llu bytes into it)",
				       (unsigned long long)r->seq, (unsigned long long)r->wire);
		}
		/* (EAGAIN on a blocking socket: its SO_RCVTIMEO ran out) */
		if (errno == EINTR || (errno == EAGAIN && r->nonblock))
			continue;
		return err_errno("cannot read the stream after %llu bytes", (unsigned long long)r->wire);
	}
	return 1;
}

/* Reads and checks the next segment; its payload joins buf[start..end). Returns 1, 0 at EOF, -1. */
static int next_segment(struct seal_reader *r)
{
	unsigned char hdr[SEAL_SEG_HEADER];
	struct iovec parts[2];
	size_t len;
	int rc;

	if (r->ended)
		return 0;
	rc = read_exact(r, hdr, sizeof(hdr));
	if (rc == 0)
		return err_set("integrity check failed: the stream was cut after %llu bytes, before its sealed end",
			       (unsigned long long)r->wire);
	if (rc < 0)
		return -1;
	len = (size_t)hdr[0] << 16 | (size_t)hdr[1] << 8 | hdr[2];
	if (len > SEAL_SEG_MAX || (hdr[3] & ~SEAL_SEG_END))
		return err_set("integrity check failed: segment %llu announces %zu bytes and flags 0x%02x: not a stream of this session",
			       (unsigned long long)r->seq, len, hdr[3]);
	/* counted before it is read: no stream makes the receive hold more than its manifest */
	if (r->bounds && recv_bounds_take(r->bounds, &r->bounds->payload, r->bounds->max_payload, len,
					  "bytes in the data streams") < 0)
		return -1;
	if (r->end + len + SEAL_TAG_BYTES > SEAL_READER_BUF) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->start = 0;
	}
	rc = read_exact(r, r->buf + r->end, len + SEAL_TAG_BYTES);
	if (rc == 0)
		return err_set("integrity check failed: the stream was cut in segment %llu",
			       (unsigned long long)r->seq);
	if (rc < 0)
		return -1;
	parts[0] = (struct iovec){ hdr, sizeof(hdr) };
	parts[1] = (struct iovec){ r->buf + r->end, len };
	if (!seal_tag_ok(&r->seal, r->seq, parts, 2, r->buf + r->end + len))
		return err_set("integrity check failed: segment %llu of the stream (%zu bytes, %llu bytes into it) was changed on the way, replayed or made without the session's key",
			       (unsigned long long)r->seq, len, (unsigned long long)r->payload);
	r->seq++;
	r->end += len;
	r->payload += len;
	r->ended = hdr[3] & SEAL_SEG_END;
	return 1;
}

int seal_reader_fill(struct seal_reader *r, size_t want)
{
	while (r->end - r->start < want) {
		int rc = next_segment(r);

		if (rc <= 0)
			return rc;
	}
	return 1;
}

int seal_reader_raw_wait(struct seal_reader *r)
{
	int idle_ms = r->bounds ? r->bounds->idle_ms : -1;
	struct pollfd pf = { .fd = r->fd, .events = POLLIN };

	if (r->end > r->start)
		return err_set("integrity check failed: raw bytes announced in the middle of a segment");
	if (r->before_read)
		r->before_read(r->ctx);
	for (;;) {
		int w = poll(&pf, 1, idle_ms);

		if (w > 0)
			return 0;
		if (w == 0)
			return err_set("the sender sent nothing for %d s (%llu bytes into the stream): cut",
				       idle_ms / 1000, (unsigned long long)r->wire);
		if (errno != EINTR)
			return err_errno("cannot wait for the stream");
	}
}

int seal_reader_raw_took(struct seal_reader *r, uint64_t n)
{
	r->wire += n;
	if (r->bounds && recv_bounds_take(r->bounds, &r->bounds->payload, r->bounds->max_payload, n,
					  "bytes in the data streams") < 0)
		return -1;
	return 0;
}

int seal_reader_finish(struct seal_reader *r)
{
	unsigned char c;
	int rc;

	if (!r->ended)
		return err_set("the stream's sealed end has not come");
	if (r->end > r->start)
		return err_set("integrity check failed: %zu checked bytes left unread at the stream's end",
			       r->end - r->start);
	rc = read_exact(r, &c, 1);
	if (rc > 0)
		return err_set("integrity check failed: bytes after the sealed end of the stream");
	return rc;
}
