#ifndef XFERCMP_PARALLEL_H
#define XFERCMP_PARALLEL_H

#include <stdint.h>

/*
 * Runs fn(ctx, worker, i) for every i in [0, n) on `threads` threads, which
 * take indices in chunks. Stops handing out work after the first call that
 * returns non-zero. Returns 0, or -1 with the error of the first failure (the
 * message is carried from the failing thread to the caller).
 * progress, if not NULL, is called on the caller's thread about ten times a
 * second with the number of indices done.
 */
typedef int (*parallel_fn)(void *ctx, unsigned worker, uint64_t i);
typedef void (*parallel_progress_fn)(void *ctx, uint64_t done, uint64_t total);

int parallel_for(uint64_t n, unsigned threads, unsigned chunk, parallel_fn fn, void *ctx,
		 parallel_progress_fn progress);

/* Number of online CPUs, at least 1. */
unsigned parallel_cpus(void);

#endif
