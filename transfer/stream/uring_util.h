#ifndef XFERCMP_URING_UTIL_H
#define XFERCMP_URING_UTIL_H

/*
 * The io_uring plumbing the splice sender and the record receiver share:
 * setting a ring up with its registered file slots and io-wq bound, handing
 * the completions that arrived to a callback, and waiting for completions.
 * What a completion means stays with each caller.
 */

#include <liburing.h>
#include <stdint.h>

/* Called once per completion with its user_data and result. */
typedef void (*uring_cqe_fn)(void *ctx, uint64_t data, int res);

/*
 * Sets up ring with `entries` SQEs, cq_entries CQEs (0: the kernel's default,
 * twice the SQEs), `files` sparse registered file slots and at most `workers`
 * io-wq workers of each kind (a bound the kernel refuses only costs
 * parallelism and is not an error). Returns 0, or -1 (error set; nothing
 * left to tear down).
 */
int uring_setup(struct io_uring *ring, unsigned entries, unsigned cq_entries, unsigned files,
		unsigned workers);

/* Hands every completion that has arrived to fn and marks them seen. Returns how many. */
unsigned uring_reap(struct io_uring *ring, uring_cqe_fn fn, void *ctx);

/*
 * Submits what is queued and waits for at least one completion, retrying
 * EINTR and EAGAIN; it reaps nothing. Returns 0, or -1 with errno set and
 * no message: the caller decides whether the failure replaces an earlier one.
 */
int uring_submit_wait(struct io_uring *ring);

#endif
