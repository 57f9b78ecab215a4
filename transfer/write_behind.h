/*
 * Write-behind and drop-behind for one sequential writer of a file or a range
 * of it: durable writes without the page cache growing by the file's size.
 */
#ifndef XFERCMP_WRITE_BEHIND_H
#define XFERCMP_WRITE_BEHIND_H

#include <stdint.h>

/* Writeback starts on every window written; the writer waits for the one this far behind. */
#define WRITE_BEHIND_WINDOW (8u << 20)
#define WRITE_BEHIND_LAG (32u << 20)

struct write_behind {
	int fd;
	uint64_t started;	/* writeback started on [range start, started) */
	uint64_t settled;	/* [range start, settled) is on disk and out of the page cache */
};

/* The writer writes sequentially from off on. */
void write_behind_init(struct write_behind *wb, int fd, uint64_t off);

/*
 * Tells it [start, written) is written. Starts writeback on each whole window
 * and waits for the windows WRITE_BEHIND_LAG behind, then drops their pages.
 * Returns 0, or -1 with errno set.
 */
int write_behind_wrote(struct write_behind *wb, uint64_t written);

#endif
