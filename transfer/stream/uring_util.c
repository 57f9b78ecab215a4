/* The io_uring plumbing shared by splice_sender.c and frames_receiver.c (uring_util.h). */
#include "stream/uring_util.h"

#include "err.h"

#include <errno.h>

int uring_setup(struct io_uring *ring, unsigned entries, unsigned cq_entries, unsigned files,
		unsigned workers)
{
	unsigned bound[2] = { workers, workers };
	struct io_uring_params p = {
		.flags = cq_entries ? IORING_SETUP_CQSIZE : 0,
		.cq_entries = cq_entries,
	};
	int rc = io_uring_queue_init_params(entries, ring, &p);

	if (rc < 0) {
		errno = -rc;
		return err_errno("cannot set up io_uring");
	}
	rc = io_uring_register_files_sparse(ring, files);
	if (rc < 0) {
		io_uring_queue_exit(ring);
		errno = -rc;
		return err_errno("cannot register io_uring file slots");
	}
	io_uring_register_iowq_max_workers(ring, bound);
	return 0;
}

unsigned uring_reap(struct io_uring *ring, uring_cqe_fn fn, void *ctx)
{
	struct io_uring_cqe *cqe;
	unsigned head, count = 0;

	io_uring_for_each_cqe(ring, head, cqe) {
		fn(ctx, cqe->user_data, cqe->res);
		count++;
	}
	io_uring_cq_advance(ring, count);
	return count;
}

int uring_submit_wait(struct io_uring *ring)
{
	int rc;

	do
		rc = io_uring_submit_and_wait(ring, 1);
	while (rc == -EINTR || rc == -EAGAIN);
	if (rc < 0) {
		errno = -rc;
		return -1;
	}
	return 0;
}
