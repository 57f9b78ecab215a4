#ifndef XFERCMP_HASH_BUFS_H
#define XFERCMP_HASH_BUFS_H

/*
 * One buffer per parallel_for worker for file content to pass through while
 * it is hashed (generating, building a manifest from a tree, verifying):
 * worker w uses buf[w] alone, so the workers share no buffer and need no
 * lock.
 */

#include <stddef.h>

struct hash_bufs {
	unsigned count;
	size_t size;		/* bytes in each buffer */
	unsigned char **buf;	/* count buffers; index by parallel_for's worker */
};

/*
 * Allocates count buffers (0 counts as 1, as parallel_for runs one worker)
 * of size bytes each. Returns 0, or -1 (error set; b left empty, safe to
 * release). Callers that name what they were doing may set their own message.
 */
int hash_bufs_init(struct hash_bufs *b, unsigned count, size_t size);

/* Frees the buffers; safe on an empty or zeroed b, and twice. */
void hash_bufs_release(struct hash_bufs *b);

#endif
