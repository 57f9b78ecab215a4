#ifndef XFERCMP_FRAMES_H
#define XFERCMP_FRAMES_H

#include <stdint.h>

/*
 * The record stream of the splice and parallel strategies: one TCP connection
 * carries a tree (or a share of it) as records, each a fixed 40-byte header,
 * the path, then `length` bytes of content.
 *
 *   offset size field
 *        0    4 magic "XFR2" (0x58465232, big-endian; version 1, "XFR1",
 *               had a 32-byte header without mtime and only FILE, RANGE, END)
 *        4    1 type (enum frame_type)
 *        5    1 flags: FRAME_F_MTIME (the mtime field holds one); others zero
 *        6    2 path length in bytes (1..FRAME_PATH_MAX; END: 0)
 *        8    4 mode (permission bits only, <= 07777; SYMLINK, HARDLINK: 0)
 *       12    4 zero
 *       16    8 offset: where the content goes in the file (RANGE; others 0);
 *               END: the number of records before it, of every type
 *       24    8 length: content bytes that follow the path;
 *               END: the sum of the length fields of the records before it
 *       32    8 mtime: seconds since the epoch, signed (FILE, DIR, and the
 *               RANGE at offset 0, with FRAME_F_MTIME; otherwise zero: a
 *               file's mtime comes once)
 *
 * All integers big-endian. The types:
 *   FILE      creates the file (it must not exist) with the content.
 *   RANGE     writes part of a file that other ranges, possibly on other
 *             connections, complete; the first creates it.
 *   DIR       a directory (length 0): made if missing; its mode and mtime
 *             are applied at the end of the receive, deepest first, once
 *             everything inside it is written (a 0555 directory is then
 *             still writable while it fills).
 *   SYMLINK   a symbolic link whose text is the content (1..FRAME_PATH_MAX
 *             bytes, no NUL): data, never resolved, may hold ".." or "/".
 *   HARDLINK  another name of the regular file whose path (relative,
 *             checked like every path) is the content. Linked at the end of
 *             the receive, when every stream has written its files, so the
 *             primary may come on any stream.
 *   END       closes the stream: the receiver checks its totals.
 * A file's mtime is set at the end of the receive too, after all its ranges.
 * Parent directories are created as needed. A sender sends DIR records
 * before the files inside them, and links after the files (links on stream
 * 0 when a tree is spread over several: send_plan.h).
 */

/*
 * On a data connection the records travel in authenticated segments
 * (seal_stream.h), but for the content of a FILE or RANGE record longer
 * than FRAME_RAW_MIN: it follows, unsealed, the segment whose last bytes are
 * its record's header and path (then segments go on), so that it can go
 * file -> pipe -> socket -> pipe -> file without passing through memory on
 * either end; its integrity is checked at verify with a keyed hash the
 * client sends (content_mac.h). Everything else (every header, path and link
 * text, every smaller file) is checked before it is used.
 */
#define FRAME_RAW_MIN (256u << 10)

#define FRAME_MAGIC 0x58465232u
#define FRAME_HEADER 40
#define FRAME_PATH_MAX 4095
#define FRAME_MAX_LENGTH (1ull << 44)	/* 16 TiB: a bound, not a promise */

enum frame_type {
	FRAME_FILE = 1,
	FRAME_RANGE = 2,
	FRAME_END = 3,
	FRAME_DIR = 4,
	FRAME_SYMLINK = 5,
	FRAME_HARDLINK = 6,
};

enum frame_flags {
	FRAME_F_MTIME = 1 << 0,
};

struct frame {
	enum frame_type type;
	unsigned flags;		/* enum frame_flags */
	uint16_t path_len;
	uint32_t mode;
	uint64_t offset;
	uint64_t length;
	int64_t mtime;		/* with FRAME_F_MTIME */
};

void frame_encode(const struct frame *f, unsigned char out[FRAME_HEADER]);

/* Decodes and checks bounds; returns 0 or -1 (error set, naming the field). */
int frame_decode(const unsigned char in[FRAME_HEADER], struct frame *f);

#endif
