/*
 * Small whole files of the record stream created many at once
 * (frames_recv.h): io_uring chains openat2_direct -> write -> close_direct
 * in a sparse registered file table, CHAINS of them in flight, while the
 * receiving thread goes on reading the stream; the creates run in parallel
 * in io-wq workers.
 */
#define _GNU_SOURCE
#include "stream/frames_recv.h"

#include "err.h"
#include "stream/beneath.h"
#include "stream/uring_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

/*
 * Small-file creates in flight, and the io-wq workers running them. Measured
 * on this 2-core VM (120,000 files from a replayed stream into ext4, 5 rounds
 * while other jobs shared the machine): plain open/write/close in this
 * thread, median 10.5 s; chains 16/64/128 with 16 workers, 9.6/9.8/7.4 s;
 * 64 chains with 4 workers no better. Creates in one directory serialize on
 * its lock, so the gain is overlapping the writes, closes and lookups with
 * the creates and with reading the socket: kept, with 128 chains.
 */
#define CHAINS 128
#define IOWQ_WORKERS 16

enum chain_op {
	CH_OPEN,
	CH_WRITE,
	CH_CLOSE,
};

struct frames_chain {
	struct frames_chain *next_free;
	unsigned pending;	/* completions still to come */
	int err;		/* first failure: errno, or -1 for a short write */
	enum chain_op err_op;
	unsigned char *buf;	/* the content, owned until the chain completes */
	size_t len;
	struct open_how how;
	char path[FRAME_PATH_MAX + 1];
};

int frames_create_submit(struct receiver *r)
{
	if (r->ring_ok && r->queued > 0) {
		int rc = io_uring_submit(&r->ring);

		if (rc < 0) {
			errno = -rc;
			return err_errno("cannot submit to io_uring");
		}
		r->queued = 0;
	}
	return 0;
}

static const char *op_verb(enum chain_op op)
{
	return op == CH_OPEN ? "create" : op == CH_WRITE ? "write" : "close";
}

static void chain_done(struct receiver *r, struct frames_chain *c)
{
	if (c->err && !r->failed) {
		r->failed = 1;
		if (c->err < 0)
			err_set("cannot write '%s/%s': short write", r->dest, c->path);
		else {
			errno = c->err;
			err_errno("cannot %s '%s/%s'", op_verb(c->err_op), r->dest, c->path);
		}
	} else if (!c->err) {
		r->files_done++;
		r->bytes_done += c->len;
	}
	free(c->buf);
	c->buf = NULL;
	c->next_free = r->free_chains;
	r->free_chains = c;
	r->busy--;
}

static void handle_cqe(void *ctx, uint64_t data, int res)
{
	struct receiver *r = ctx;
	struct frames_chain *c = &r->chains[data >> 2];
	enum chain_op op = (enum chain_op)(data & 3);

	/* the first failure explains the chain; the cancellations after it do not */
	if (!c->err) {
		if (res < 0) {
			c->err = -res;
			c->err_op = op;
		} else if (op == CH_WRITE && (size_t)res != c->len) {
			c->err = -1;
			c->err_op = op;
		}
	}
	if (--c->pending == 0)
		chain_done(r, c);
}

int frames_create_reap(struct receiver *r)
{
	if (!r->ring_ok)
		return 0;
	uring_reap(&r->ring, handle_cqe, r);
	return r->failed ? -1 : 0;
}

/* Waits for at least one completion. Returns 0, or -1 (error set). */
static int wait_some(struct receiver *r)
{
	if (uring_submit_wait(&r->ring) < 0) {
		if (!r->failed)
			err_errno("io_uring wait failed");
		r->failed = 1;
		return -1;
	}
	r->queued = 0;
	return frames_create_reap(r);
}

static struct io_uring_sqe *get_sqe(struct receiver *r)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);

	if (!sqe) {
		/* the ring holds 4 SQEs per chain, so this only flushes a full queue */
		io_uring_submit(&r->ring);
		r->queued = 0;
		sqe = io_uring_get_sqe(&r->ring);
	}
	r->queued++;
	return sqe;
}

static void chain_free(struct receiver *r, struct frames_chain *c)
{
	free(c->buf);
	c->buf = NULL;
	c->next_free = r->free_chains;
	r->free_chains = c;
}

int frames_create_small(struct receiver *r, const struct frame *f, mode_t mode)
{
	struct io_uring_sqe *sqe;
	struct frames_chain *c;
	unsigned slot;

	while (!r->free_chains)
		if (wait_some(r) < 0)
			return -1;
	c = r->free_chains;
	r->free_chains = c->next_free;
	c->len = (size_t)f->length;
	c->buf = malloc(c->len ? c->len : 1);
	if (!c->buf) {
		chain_free(r, c);
		return err_set("out of memory receiving '%s'", r->path);
	}
	if (frames_recv_take(r, c->buf, c->len) < 0) {
		chain_free(r, c);
		return -1;
	}
	memcpy(c->path, r->path, strlen(r->path) + 1);
	/* direct descriptors refuse O_CLOEXEC: they are not in the fd table */
	c->how = (struct open_how){
		.flags = O_WRONLY | O_CREAT | O_EXCL,
		.mode = mode,
		.resolve = RESOLVE_SAFE_FLAGS,
	};
	c->err = 0;
	c->pending = c->len ? 3 : 2;
	slot = (unsigned)(c - r->chains);
	r->busy++;

	/* a failed open cancels the rest (IO_LINK); a failed write must still close (HARDLINK) */
	sqe = get_sqe(r);
	io_uring_prep_openat2_direct(sqe, r->dirfd, c->path, &c->how, slot);
	sqe->flags |= IOSQE_IO_LINK;
	io_uring_sqe_set_data64(sqe, (uint64_t)slot << 2 | CH_OPEN);
	if (c->len) {
		sqe = get_sqe(r);
		io_uring_prep_write(sqe, (int)slot, c->buf, (unsigned)c->len, 0);
		sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_HARDLINK;
		io_uring_sqe_set_data64(sqe, (uint64_t)slot << 2 | CH_WRITE);
	}
	sqe = get_sqe(r);
	io_uring_prep_close_direct(sqe, slot);
	io_uring_sqe_set_data64(sqe, (uint64_t)slot << 2 | CH_CLOSE);
	if (r->queued >= 32)
		return frames_create_submit(r);
	return 0;
}

/*
 * If the ring itself fails, r->stranded is set: the kernel may still use
 * the chains' buffers, so they must not be freed.
 */
int frames_create_drain(struct receiver *r)
{
	if (!r->ring_ok)
		return 0;
	while (r->busy > 0) {
		if (uring_submit_wait(&r->ring) < 0) {
			if (!r->failed)
				err_errno("io_uring wait failed");
			r->failed = 1;
			r->stranded = 1;
			return -1;
		}
		frames_create_reap(r);
	}
	return r->failed ? -1 : 0;
}

/*
 * Sets up the ring for small-file creates. Returns 0, or -1 with the error
 * message as it was: without io_uring every file takes the plain path.
 */
int frames_create_setup(struct receiver *r)
{
	struct err_saved before;

	r->chains = calloc(CHAINS, sizeof(*r->chains));
	if (!r->chains)
		return -1;
	err_save(&before);
	if (uring_setup(&r->ring, CHAINS * 4, 0, CHAINS, IOWQ_WORKERS) < 0) {
		err_restore(&before);
		free(r->chains);
		r->chains = NULL;
		return -1;
	}
	for (unsigned i = CHAINS; i-- > 0;) {
		r->chains[i].next_free = r->free_chains;
		r->free_chains = &r->chains[i];
	}
	r->ring_ok = 1;
	return 0;
}

void frames_create_release(struct receiver *r)
{
	if (r->ring_ok)
		io_uring_queue_exit(&r->ring);
	r->ring_ok = 0;
	if (!r->stranded)
		free(r->chains);
	r->chains = NULL;
}
