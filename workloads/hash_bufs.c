#include "hash_bufs.h"

#include "err.h"

#include <stdlib.h>

int hash_bufs_init(struct hash_bufs *b, unsigned count, size_t size)
{
	unsigned n = count ? count : 1;

	b->size = size;
	b->count = 0;
	b->buf = calloc(n, sizeof(*b->buf));
	if (!b->buf)
		return err_set("out of memory for %u buffers of %zu bytes", n, size);
	/* count grows with each buffer, so a release after a failure frees just those */
	for (; b->count < n; b->count++)
		if (!(b->buf[b->count] = malloc(size))) {
			hash_bufs_release(b);
			return err_set("out of memory for %u buffers of %zu bytes", n, size);
		}
	return 0;
}

void hash_bufs_release(struct hash_bufs *b)
{
	if (b->buf)
		for (unsigned w = 0; w < b->count; w++)
			free(b->buf[w]);
	free(b->buf);
	b->buf = NULL;
	b->count = 0;
}
