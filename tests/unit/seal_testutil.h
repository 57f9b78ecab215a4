/*
 * For the unit tests that speak to a data stream's receiver or read what a
 * sender wrote: every data connection carries authenticated segments
 * (stream/seal_stream.h). One key stands for a connection's client-to-agent
 * key; test_seal cuts a stream's plain bytes into segments as a sender does.
 * Header only, as testutil.h.
 */
#ifndef XFERCMP_SEAL_TESTUTIL_H
#define XFERCMP_SEAL_TESTUTIL_H

#include "stream/frames.h"
#include "stream/recv_opts.h"
#include "stream/seal_stream.h"

#include <stdlib.h>
#include <string.h>

#define TEST_KEY_INIT { 0x5e, 0xa1, 0xed, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08 }

static const unsigned char test_key[SEAL_KEY_BYTES] __attribute__((unused)) = TEST_KEY_INIT;
static const struct recv_opts test_opts __attribute__((unused)) = { .key = TEST_KEY_INIT };

/*
 * The plain bytes data[0..len) as a sealed stream under key: segments of
 * seg bytes (0: 1 MiB), the last flagged the end (an empty stream is one
 * empty end segment). Returns the bytes (malloc'd; *out_len their count) or
 * NULL when out of memory.
 */
static __attribute__((unused)) unsigned char *test_seal_with(const unsigned char *key, const void *data,
							       size_t len, size_t seg, size_t *out_len)
{
	size_t nseg = seg ? seg : (1u << 20), count = len ? (len + nseg - 1) / nseg : 1;
	size_t total = len + count * (SEAL_SEG_HEADER + SEAL_TAG_BYTES), o = 0;
	unsigned char *out = malloc(total ? total : 1);
	struct seal_writer w;

	if (!out || seal_writer_init(&w, key) < 0) {
		free(out);
		return NULL;
	}
	for (size_t i = 0; i < count; i++) {
		size_t at = i * nseg, n = len - at < nseg ? len - at : nseg;
		struct iovec parts[2] = { { out + o, SEAL_SEG_HEADER },
					  { out + o + SEAL_SEG_HEADER, n } };

		seal_segment_header(out + o, n, i + 1 == count);
		if (n)
			memcpy(out + o + SEAL_SEG_HEADER, (const char *)data + at, n);
		if (seal_writer_tag(&w, parts, 2, out + o + SEAL_SEG_HEADER + n) < 0) {
			seal_writer_release(&w);
			free(out);
			return NULL;
		}
		o += SEAL_SEG_HEADER + n + SEAL_TAG_BYTES;
	}
	seal_writer_release(&w);
	*out_len = o;
	return out;
}

/* The same under test_key. */
static __attribute__((unused)) unsigned char *test_seal(const void *data, size_t len, size_t seg,
							  size_t *out_len)
{
	return test_seal_with(test_key, data, len, seg, out_len);
}

/*
 * A record stream (frames.h) as a sender puts it on a data connection: the
 * records in segments under key, but the content of a FILE or RANGE
 * record longer than FRAME_RAW_MIN raw after the segment that ends with
 * its record; the segment with the end record flagged the end. A stream
 * cut inside a record: what is left goes in the last segment (cut inside
 * raw content: it ends there). Returns the bytes (malloc'd, *out_len their
 * count) or NULL. (noipa: with a constant len GCC's overflow check
 * misreads the buffer's size.)
 */
#ifdef __clang__
#define TEST_SEAL_NOIPA __attribute__((unused, noinline))
#else
#define TEST_SEAL_NOIPA __attribute__((unused, noipa))
#endif
static TEST_SEAL_NOIPA unsigned char *
test_seal_records_with(const unsigned char key[SEAL_KEY_BYTES], const unsigned char *p, size_t len,
		       size_t *out_len)
{
	size_t cap = len + (len / 40 + 2) * (SEAL_SEG_HEADER + SEAL_TAG_BYTES) + 64, o = 0, at = 0;
	size_t seg_start = 0;	/* where the segment being gathered starts in p */
	unsigned char *out = malloc(cap);
	struct seal_writer w;
	int end = 0, cut_raw = 0;

	if (!out || seal_writer_init(&w, key) < 0) {
		free(out);
		return NULL;
	}
#define TEST_SEAL_FLUSH(upto, last)                                                              \
	do {                                                                                     \
		size_t n_ = (upto) - seg_start;                                                  \
		struct iovec parts_[2] = { { out + o, SEAL_SEG_HEADER },                         \
					   { out + o + SEAL_SEG_HEADER, n_ } };                  \
		seal_segment_header(out + o, n_, (last));                                        \
		memcpy(out + o + SEAL_SEG_HEADER, p + seg_start, n_);                            \
		seal_writer_tag(&w, parts_, 2, out + o + SEAL_SEG_HEADER + n_);                  \
		o += SEAL_SEG_HEADER + n_ + SEAL_TAG_BYTES;                                      \
		seg_start = (upto);                                                              \
	} while (0)
	while (!end && at + FRAME_HEADER <= len) {
		struct frame f;
		size_t rec_end;

		if (frame_decode(p + at, &f) < 0)
			break;
		if (f.type == FRAME_END) {
			at += FRAME_HEADER;
			end = 1;
			break;
		}
		rec_end = at + FRAME_HEADER + f.path_len;
		if ((f.type == FRAME_FILE || f.type == FRAME_RANGE) && f.length > FRAME_RAW_MIN &&
		    rec_end <= len) {
			size_t raw = f.length < len - rec_end ? (size_t)f.length : len - rec_end;

			TEST_SEAL_FLUSH(rec_end, 0);
			memcpy(out + o, p + rec_end, raw);
			o += raw;
			at = seg_start = rec_end + raw;
			cut_raw = raw < f.length;
			if (cut_raw)
				break;
			continue;
		}
		at = rec_end + f.length;
		if (at > len)
			at = len;
		if (at - seg_start >= (1u << 20))
			TEST_SEAL_FLUSH(at, 0);
	}
	/* the end record (and anything after it, or a cut record) in the last segment */
	if (!cut_raw)
		TEST_SEAL_FLUSH(len, 1);
#undef TEST_SEAL_FLUSH
	seal_writer_release(&w);
	*out_len = o;
	return out;
}

/* test_seal_records_with test_key. */
static __attribute__((unused)) unsigned char *test_seal_records(const unsigned char *p, size_t len,
								  size_t *out_len)
{
	return test_seal_records_with(test_key, p, len, out_len);
}

/* The length test_seal_records gives p. */
static __attribute__((unused)) size_t test_sealed_records_len(const unsigned char *p, size_t len)
{
	size_t n = 0;
	unsigned char *out = test_seal_records(p, len, &n);

	free(out);
	return n;
}

/* The bytes test_seal makes of len plain bytes in segments of seg (0: 1 MiB). */
static __attribute__((unused)) size_t test_sealed_len(size_t len, size_t seg)
{
	size_t nseg = seg ? seg : (1u << 20), count = len ? (len + nseg - 1) / nseg : 1;

	return len + count * (SEAL_SEG_HEADER + SEAL_TAG_BYTES);
}

#endif
