/*
 * The splice sender's read-ahead window (splice_window.h): for up to WINDOW
 * items past the one being sent, a hard-linked chain openat_direct -> read
 * -> fadvise(DONTNEED) -> close_direct runs in the kernel, so many cold
 * opens and reads wait on the disk at once instead of one after another;
 * the same ring runs the splices of large files, each waited for while the
 * read-ahead completions come in.
 */
#define _GNU_SOURCE
#include "stream/splice_window.h"

#include "err.h"
#include "stream/uring_util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct entry *splice_window_entry(struct sender *s, size_t item)
{
	return &s->ents[item % WINDOW];
}

static int is_small(const struct send_item *it)
{
	return it->kind == SEND_FILE && it->file_size <= SPLICE_SMALL_MAX;
}

int splice_item_is_meta(const struct send_item *it)
{
	return it->kind != SEND_FILE && it->kind != SEND_RANGE;
}

static void handle_cqe(void *ctx, uint64_t data, int res)
{
	struct sender *s = ctx;
	enum sender_op op = (enum sender_op)(data & ((1u << OP_BITS) - 1));
	struct entry *e = &s->ents[data >> OP_BITS];

	s->inflight--;
	if (op == OP_SPLICE) {
		s->splice_done = 1;
		s->splice_res = res;
		return;
	}
	if (op == OP_OPEN)
		e->open_res = res;
	else if (op == OP_READ)
		e->read_res = res;
	/* fadvise and close results do not matter: the bytes are already in e->buf */
	if (--e->pending == 0)
		e->state = ENTRY_READY;
}

static void reap(struct sender *s)
{
	uring_reap(&s->ring, handle_cqe, s);
}

int splice_window_wait(struct sender *s)
{
	if (uring_submit_wait(&s->ring) < 0)
		return err_errno("io_uring wait failed");
	reap(s);
	return 0;
}

static struct io_uring_sqe *get_sqe(struct sender *s)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&s->ring);

	while (!sqe) {
		io_uring_submit(&s->ring);
		reap(s);
		sqe = io_uring_get_sqe(&s->ring);
	}
	return sqe;
}

/*
 * Queues the open -> read -> [fadvise ->] close chain of item i into fixed
 * slot i % WINDOW. Returns 0 or -1 (error set).
 */
static int read_ahead(struct sender *s, size_t i)
{
	const struct send_item *it = &s->items[i];
	struct entry *e = splice_window_entry(s, i);
	unsigned slot = (unsigned)(i % WINDOW);
	struct io_uring_sqe *sqe;

	e->cap = (size_t)it->file_size + 1;
	e->buf = malloc(e->cap);
	if (!e->buf)
		return err_set("out of memory reading '%s'", it->path);
	e->open_res = e->read_res = 0;
	e->pending = s->drop_cache ? 4 : 3;
	e->state = ENTRY_READING;
	s->window_bytes += e->cap;

	/* the open fails the chain (IO_LINK); the expected short read must not (HARDLINK) */
	sqe = get_sqe(s);
	io_uring_prep_openat_direct(sqe, s->dirfd, it->path, O_RDONLY | O_NOFOLLOW, 0, slot);
	sqe->flags |= IOSQE_IO_LINK;
	io_uring_sqe_set_data64(sqe, (uint64_t)slot << OP_BITS | OP_OPEN);
	sqe = get_sqe(s);
	io_uring_prep_read(sqe, (int)slot, e->buf, (unsigned)e->cap, 0);
	sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_HARDLINK;
	io_uring_sqe_set_data64(sqe, (uint64_t)slot << OP_BITS | OP_READ);
	if (s->drop_cache) {
		sqe = get_sqe(s);
		io_uring_prep_fadvise(sqe, (int)slot, 0, 0, POSIX_FADV_DONTNEED);
		sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_HARDLINK;
		io_uring_sqe_set_data64(sqe, (uint64_t)slot << OP_BITS | OP_FADVISE);
	}
	sqe = get_sqe(s);
	io_uring_prep_close_direct(sqe, slot);
	io_uring_sqe_set_data64(sqe, (uint64_t)slot << OP_BITS | OP_CLOSE);
	s->inflight += e->pending;
	return 0;
}

int splice_window_refill(struct sender *s)
{
	while (s->fetch < s->n && s->fetch < s->held + WINDOW) {
		const struct send_item *it = &s->items[s->fetch];

		if (splice_item_is_meta(it)) {
			splice_window_entry(s, s->fetch)->state = ENTRY_META;
		} else if (!is_small(it)) {
			splice_window_entry(s, s->fetch)->state = ENTRY_LARGE;
		} else {
			if (s->fetch > s->cursor && s->window_bytes + it->file_size + 1 > WINDOW_BYTES)
				break;
			if (read_ahead(s, s->fetch) < 0)
				return -1;
		}
		s->fetch++;
	}
	io_uring_submit(&s->ring);
	return 0;
}

void splice_window_release(struct sender *s, struct entry *e)
{
	if (e->buf) {
		s->window_bytes -= e->cap;
		free(e->buf);
		e->buf = NULL;
	}
	e->state = ENTRY_FREE;
}

int splice_window_splice(struct sender *s, int in, int64_t off_in, int out, unsigned len,
		       unsigned flags)
{
	struct io_uring_sqe *sqe = get_sqe(s);

	io_uring_prep_splice(sqe, in, off_in, out, -1, len, flags);
	io_uring_sqe_set_data64(sqe, OP_SPLICE);
	s->inflight++;
	s->splice_done = 0;
	while (!s->splice_done)
		if (splice_window_wait(s) < 0)
			return INT_MIN;
	if (splice_window_refill(s) < 0)
		return INT_MIN;
	return s->splice_res;
}

/* The kernel may still write into entry buffers: every request in flight is waited for. */
void splice_window_drain(struct sender *s)
{
	while (s->inflight > 0)
		if (splice_window_wait(s) < 0)
			return;	/* leaking the buffers beats freeing memory the kernel may write */
	for (unsigned i = 0; i < WINDOW; i++)
		splice_window_release(s, &s->ents[i]);
}

