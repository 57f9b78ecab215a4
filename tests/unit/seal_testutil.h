/*
 * For the unit tests that speak to a data stream's receiver or read what a
 * sender wrote: every data connection carries authenticated segments
 * (stream/seal_stream.h). One key stands for a connection's client-to-agent
 * key; test_seal cuts a stream's plain bytes into segments as a sender does.
 * Header only, as testutil.h.
 */
#ifndef XFERCMP_SEAL_TESTUTIL_H
#define XFERCMP_SEAL_TESTUTIL_H

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

/* The bytes test_seal makes of len plain bytes in segments of seg (0: 1 MiB). */
static __attribute__((unused)) size_t test_sealed_len(size_t len, size_t seg)
{
	size_t nseg = seg ? seg : (1u << 20), count = len ? (len + nseg - 1) / nseg : 1;

	return len + count * (SEAL_SEG_HEADER + SEAL_TAG_BYTES);
}

#endif
