/*
 * Keeping the page cache small behind one sequential writer or reader of a
 * file (or a range of it): write-behind and drop-behind for durable writes,
 * drop-behind for reads. Why it matters is in cache_behind.c.
 */
#ifndef XFERCMP_CACHE_BEHIND_H
#define XFERCMP_CACHE_BEHIND_H

#include <stdint.h>

/* Writeback starts on every window written; the writer waits for the one this far behind. */
#define WRITE_BEHIND_WINDOW (8u << 20)
#define WRITE_BEHIND_LAG (32u << 20)

/* A reader's pages are dropped per window once the window ends this far behind it. */
#define READ_BEHIND_WINDOW (8u << 20)
#define READ_BEHIND_LAG (32u << 20)

struct write_behind {
	int fd;
	uint64_t started;	/* writeback started on [range start, started) */
	uint64_t settled;	/* [range start, settled) is on disk and out of the page cache */
};

struct read_behind {
	int fd;
	uint64_t dropped;	/* [range start, dropped) has been dropped from the page cache */
};

/* The writer writes sequentially from off on. */
void write_behind_init(struct write_behind *wb, int fd, uint64_t off);

/*
 * Tells it [start, written) is written. Starts writeback on each whole window
 * and waits for the windows WRITE_BEHIND_LAG behind, then drops their pages.
 * Returns 0, or -1 with errno set.
 */
int write_behind_wrote(struct write_behind *wb, uint64_t written);

/* The reader reads sequentially from off on. */
void read_behind_init(struct read_behind *rb, int fd, uint64_t off);

/*
 * Tells it [start, done) is read and its pages are no longer needed: drops
 * each whole window that ends READ_BEHIND_LAG or more before done. Advice
 * only, so it cannot fail: a page still in use (say, spliced into a socket)
 * stays until memory pressure or a later drop takes it.
 */
void read_behind_done(struct read_behind *rb, uint64_t done);

#endif
