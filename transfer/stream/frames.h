#ifndef XFERCMP_FRAMES_H
#define XFERCMP_FRAMES_H

#include <stdint.h>

/*
 * The record stream of the splice and parallel strategies: one TCP connection
 * carries a whole tree as records, each a fixed 32-byte header, the path, then
 * `length` bytes of content.
 *
 *   offset size field
 *        0    4 magic "XFR1" (0x58465231, big-endian)
 *        4    1 type: FRAME_FILE, FRAME_RANGE or FRAME_END
 *        5    1 zero
 *        6    2 path length in bytes (FRAME_FILE/RANGE: 1..FRAME_PATH_MAX; END: 0)
 *        8    4 mode (permission bits only, <= 07777)
 *       12    4 zero
 *       16    8 offset: where the content goes in the file (FILE: 0);
 *               END: the number of FILE and RANGE records sent
 *       24    8 length: content bytes that follow the path;
 *               END: the total content bytes sent
 *
 * All integers big-endian. FRAME_FILE creates the file (it must not exist);
 * FRAME_RANGE writes part of a file that other ranges, possibly on other
 * connections, complete. Parent directories are created as needed. FRAME_END
 * closes the stream: the receiver checks its totals against what it got.
 */

#define FRAME_MAGIC 0x58465231u
#define FRAME_HEADER 32
#define FRAME_PATH_MAX 4095
#define FRAME_MAX_LENGTH (1ull << 44)	/* 16 TiB: a bound, not a promise */

enum frame_type {
	FRAME_FILE = 1,
	FRAME_RANGE = 2,
	FRAME_END = 3,
};

struct frame {
	enum frame_type type;
	uint16_t path_len;
	uint32_t mode;
	uint64_t offset;
	uint64_t length;
};

void frame_encode(const struct frame *f, unsigned char out[FRAME_HEADER]);

/* Decodes and checks bounds; returns 0 or -1 (error set, naming the field). */
int frame_decode(const unsigned char in[FRAME_HEADER], struct frame *f);

#endif
