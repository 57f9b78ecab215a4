/*
 * The sending half of the `splice` strategy; frames_receiver.c mirrors it.
 *
 * One io_uring drives two things from its completions:
 *  - read-ahead of small files: for up to WINDOW items past the one being
 *    sent, a hard-linked chain openat_direct -> read -> fadvise(DONTNEED) ->
 *    close_direct runs in the kernel, so many cold opens and reads wait on
 *    the disk at once instead of one after another;
 *  - splice of large files and ranges: file -> pipe, then exactly what
 *    arrived pipe -> socket, each step submitted when the previous one
 *    completes (a short splice would fail a linked chain).
 * Records go out in plan order; ready small files, directories and links
 * (whose records hold only their path and text) are batched several records
 * per sendmsg.
 */
#define _GNU_SOURCE
#include "stream/splice_sender.h"

#include "cache_behind.h"
#include "err.h"
#include "sent_progress.h"
#include "pipeutil.h"
#include "stream/frames.h"
#include "stream/uring_util.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

/*
 * Small files read ahead of the one being sent, and at most this much of
 * their content held. Measured sending 120,000 cold files (467 MiB) to a
 * sink on this VM while other jobs loaded it, 3 rounds each: windows of
 * 64, 128 and 256 took 9.3-11.7, 12.3-14.8 and 7.8-9.0 s (the noise is
 * large: other jobs shared the disk). With 16 io-wq workers instead of 64,
 * window 128: 11.6-13.7 s, no clear difference. tar's own cold read of the
 * tree: 39-49 s.
 */
#define WINDOW 256
#define WINDOW_BYTES (32u << 20)
#define BATCH_FILES 64			/* records per sendmsg at most */
#define BATCH_BYTES (1u << 20)		/* a batch is sent once it holds this much */
/*
 * Cold opens and reads block in io-wq workers; the default bound (4 per CPU)
 * would let only 8 wait on the disk at once on this 2-core machine.
 */
#define IOWQ_WORKERS 64

enum sender_op {
	OP_OPEN,
	OP_READ,
	OP_FADVISE,
	OP_CLOSE,
	OP_SPLICE,
};

#define OP_BITS 3

enum entry_state {
	ENTRY_FREE,		/* not read ahead (yet), or released */
	ENTRY_LARGE,		/* sent by splice when its turn comes */
	ENTRY_META,		/* a directory or link: nothing to read */
	ENTRY_READING,		/* chain in flight */
	ENTRY_READY,		/* every completion of its chain arrived */
};

struct entry {
	enum entry_state state;
	unsigned pending;	/* completions still to come */
	int open_res, read_res;
	unsigned char *buf;	/* file_size + 1 bytes: a longer file shows as a long read */
	size_t cap;
	unsigned char hdr[FRAME_HEADER];
};

struct sender {
	int sock, dirfd, sock_nonblock;
	bool drop_cache;	/* drop what is read from the page cache */
	const char *root;
	struct io_uring ring;
	int pipefd[2];
	size_t pipe_size;
	const struct send_item *items;
	size_t n;
	size_t held;		/* first item whose entry is not released */
	size_t cursor;		/* next item to send or batch */
	size_t fetch;		/* next item to consider for read-ahead */
	size_t window_bytes;
	unsigned inflight;	/* submitted requests whose completion has not arrived */
	int splice_done, splice_res;
	uint64_t records, content, wire;	/* every record: what END says */
	uint64_t files, file_bytes;		/* FILE and RANGE records, and their content */
	struct iovec iov[BATCH_FILES * 3];
	unsigned niov;
	size_t batch_bytes;
	struct entry ents[WINDOW];
};

static struct entry *entry_of(struct sender *s, size_t item)
{
	return &s->ents[item % WINDOW];
}

static int is_small(const struct send_item *it)
{
	return it->kind == SEND_FILE && it->file_size <= SPLICE_SMALL_MAX;
}

static int is_meta(const struct send_item *it)
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

/* Submits what is queued and waits for at least one completion. Returns 0 or -1. */
static int wait_some(struct sender *s)
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
	struct entry *e = entry_of(s, i);
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

/* Starts read-ahead for items up to WINDOW past the oldest one still held. */
static int refill(struct sender *s)
{
	while (s->fetch < s->n && s->fetch < s->held + WINDOW) {
		const struct send_item *it = &s->items[s->fetch];

		if (is_meta(it)) {
			entry_of(s, s->fetch)->state = ENTRY_META;
		} else if (!is_small(it)) {
			entry_of(s, s->fetch)->state = ENTRY_LARGE;
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

static void release(struct sender *s, struct entry *e)
{
	if (e->buf) {
		s->window_bytes -= e->cap;
		free(e->buf);
		e->buf = NULL;
	}
	e->state = ENTRY_FREE;
}

static int wait_writable(struct sender *s)
{
	struct pollfd p = { .fd = s->sock, .events = POLLOUT };

	if (!s->sock_nonblock) {
		errno = ETIMEDOUT;
		return -1;
	}
	while (poll(&p, 1, -1) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

/* Sends all of iov[0..cnt) (modifying it). Returns 0 or -1 with errno set. */
static int send_iov(struct sender *s, struct iovec *iov, unsigned cnt, int more)
{
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = cnt };

	while (msg.msg_iovlen > 0) {
		ssize_t w = sendmsg(s->sock, &msg, MSG_NOSIGNAL | (more ? MSG_MORE : 0));

		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN && wait_writable(s) == 0)
				continue;
			return -1;
		}
		s->wire += (uint64_t)w;
		while (msg.msg_iovlen > 0 && (size_t)w >= msg.msg_iov->iov_len) {
			w -= (ssize_t)msg.msg_iov->iov_len;
			msg.msg_iov++;
			msg.msg_iovlen--;
		}
		if (msg.msg_iovlen > 0) {
			msg.msg_iov->iov_base = (char *)msg.msg_iov->iov_base + w;
			msg.msg_iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

static void set_iov(struct iovec *v, const void *p, size_t len)
{
	v->iov_base = (void *)(uintptr_t)p;
	v->iov_len = len;
}

/* Returns 0, or -1 (error set) for a path the record format cannot carry. */
static int make_header(struct sender *s, const struct send_item *it,
		       unsigned char hdr[FRAME_HEADER])
{
	static const enum frame_type types[] = {
		[SEND_FILE] = FRAME_FILE, [SEND_RANGE] = FRAME_RANGE, [SEND_DIR] = FRAME_DIR,
		[SEND_SYMLINK] = FRAME_SYMLINK, [SEND_HARDLINK] = FRAME_HARDLINK,
	};
	size_t len = strlen(it->path);
	struct frame f = {
		.type = types[it->kind],
		.path_len = (uint16_t)len,
		.offset = it->kind == SEND_RANGE ? it->offset : 0,
		.length = it->length,
	};

	if (len == 0 || len > FRAME_PATH_MAX)
		return err_set("cannot send '%s/%s': a path of %zu bytes (records carry 1..%d)",
			       s->root, it->path, len, FRAME_PATH_MAX);
	if (is_meta(it) && it->kind != SEND_DIR) {
		if (it->length == 0 || it->length > FRAME_PATH_MAX)
			return err_set("cannot send '%s/%s': a link of %llu bytes (records carry 1..%d)",
				       s->root, it->path, (unsigned long long)it->length,
				       FRAME_PATH_MAX);
	} else {
		f.mode = it->mode & 07777;
		if (it->mtime != MANIFEST_NO_MTIME) {
			f.flags = FRAME_F_MTIME;
			f.mtime = it->mtime;
		}
	}
	frame_encode(&f, hdr);
	return 0;
}

/* Sends the batched records and releases their buffers. Returns 0 or -1 (error set). */
static int flush_batch(struct sender *s)
{
	if (s->niov > 0 && send_iov(s, s->iov, s->niov, 1) < 0)
		return err_errno("cannot send '%s' and the files before it",
				 s->items[s->cursor - 1].path);
	s->niov = 0;
	s->batch_bytes = 0;
	for (; s->held < s->cursor; s->held++)
		release(s, entry_of(s, s->held));
	return 0;
}

/* Checks a read-ahead result and adds the item's record to the batch. */
static int batch_small(struct sender *s, const struct send_item *it, struct entry *e)
{
	if (e->open_res < 0) {
		errno = -e->open_res;
		return err_errno("cannot open '%s/%s'", s->root, it->path);
	}
	if (e->read_res < 0) {
		errno = -e->read_res;
		return err_errno("cannot read '%s/%s'", s->root, it->path);
	}
	if ((uint64_t)e->read_res != it->file_size)
		return err_set("'%s/%s' changed during the transfer: planned %llu bytes, found %s%d",
			       s->root, it->path, (unsigned long long)it->file_size,
			       (uint64_t)e->read_res > it->file_size ? "more than " : "", e->read_res);
	if (make_header(s, it, e->hdr) < 0)
		return -1;
	set_iov(&s->iov[s->niov++], e->hdr, FRAME_HEADER);
	set_iov(&s->iov[s->niov++], it->path, strlen(it->path));
	if (it->file_size > 0)
		set_iov(&s->iov[s->niov++], e->buf, (size_t)it->file_size);
	s->batch_bytes += FRAME_HEADER + strlen(it->path) + (size_t)it->file_size;
	s->records++;
	s->content += it->file_size;
	s->files++;
	sent_progress_file();
	sent_progress_bytes(it->file_size);
	s->file_bytes += it->file_size;
	return 0;
}

/* Adds a directory's or link's record to the batch: its content is the link text. */
static int batch_meta(struct sender *s, const struct send_item *it, struct entry *e)
{
	if (make_header(s, it, e->hdr) < 0)
		return -1;
	set_iov(&s->iov[s->niov++], e->hdr, FRAME_HEADER);
	set_iov(&s->iov[s->niov++], it->path, strlen(it->path));
	if (it->length > 0)
		set_iov(&s->iov[s->niov++], it->link, (size_t)it->length);
	s->batch_bytes += FRAME_HEADER + strlen(it->path) + (size_t)it->length;
	s->records++;
	s->content += it->length;
	return 0;
}

/* One splice through the ring, waiting for it while read-ahead completions come in. */
static int splice_once(struct sender *s, int in, int64_t off_in, int out, unsigned len,
		       unsigned flags)
{
	struct io_uring_sqe *sqe = get_sqe(s);

	io_uring_prep_splice(sqe, in, off_in, out, -1, len, flags);
	io_uring_sqe_set_data64(sqe, OP_SPLICE);
	s->inflight++;
	s->splice_done = 0;
	while (!s->splice_done)
		if (wait_some(s) < 0)
			return INT_MIN;
	if (refill(s) < 0)
		return INT_MIN;
	return s->splice_res;
}

/* Moves exactly len bytes from the pipe to the socket. Returns 0 or -1 (error set). */
static int drain_pipe(struct sender *s, const struct send_item *it, size_t len)
{
	while (len > 0) {
		int res = splice_once(s, s->pipefd[0], -1, s->sock, (unsigned)len,
				      SPLICE_F_MOVE | SPLICE_F_MORE);

		if (res == INT_MIN)
			return -1;
		if (res == -EINTR)
			continue;
		if (res == -EAGAIN) {
			if (wait_writable(s) == 0)
				continue;
			return err_errno("cannot send '%s/%s'", s->root, it->path);
		}
		if (res <= 0) {
			errno = res < 0 ? -res : EPIPE;
			return err_errno("cannot send '%s/%s'", s->root, it->path);
		}
		len -= (size_t)res;
		s->wire += (uint64_t)res;
	}
	return 0;
}

/* Opens a file sent by splice and checks it still has the planned size. Returns fd or -1. */
static int open_large(struct sender *s, const struct send_item *it)
{
	struct stat st;
	int fd = openat(s->dirfd, it->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return err_errno("cannot open '%s/%s'", s->root, it->path);
	if (fstat(fd, &st) < 0) {
		err_errno("cannot stat '%s/%s'", s->root, it->path);
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size != it->file_size) {
		err_set("'%s/%s' changed during the transfer: planned %llu bytes, found %llu",
			s->root, it->path, (unsigned long long)it->file_size,
			(unsigned long long)st.st_size);
		close(fd);
		return -1;
	}
	return fd;
}

static int splice_content(struct sender *s, const struct send_item *it, int fd)
{
	uint64_t off = it->offset, end = it->offset + it->length;
	struct read_behind rb;

	read_behind_init(&rb, fd, it->offset);

	while (off < end) {
		uint64_t left = end - off;
		unsigned len = (unsigned)(left < s->pipe_size ? left : s->pipe_size);
		int res = splice_once(s, fd, (int64_t)off, s->pipefd[1], len, SPLICE_F_MOVE);

		if (res == INT_MIN)
			return -1;
		if (res == -EINTR || res == -EAGAIN)
			continue;
		if (res < 0) {
			errno = -res;
			return err_errno("cannot read '%s/%s'", s->root, it->path);
		}
		if (res == 0)
			return err_set("'%s/%s' changed during the transfer: ended at byte %llu of %llu",
				       s->root, it->path, (unsigned long long)off,
				       (unsigned long long)it->file_size);
		off += (uint64_t)res;
		sent_progress_bytes((uint64_t)res);
		if (drain_pipe(s, it, (size_t)res) < 0)
			return -1;
		/* pages still in flight on the socket are skipped: the final drop gets them */
		if (s->drop_cache && off - it->offset > s->pipe_size)
			read_behind_done(&rb, off - s->pipe_size);
	}
	return 0;
}

/* Sends a large file or range: header and path by sendmsg, the content by splice. */
static int send_large(struct sender *s, const struct send_item *it)
{
	unsigned char hdr[FRAME_HEADER];
	struct iovec iov[2];
	int fd, rc;

	if (make_header(s, it, hdr) < 0 || (fd = open_large(s, it)) < 0)
		return -1;
	set_iov(&iov[0], hdr, FRAME_HEADER);
	set_iov(&iov[1], it->path, strlen(it->path));
	rc = send_iov(s, iov, 2, 1);
	if (rc < 0)
		err_errno("cannot send '%s/%s'", s->root, it->path);
	else
		rc = splice_content(s, it, fd);
	if (s->drop_cache)
		posix_fadvise(fd, (off_t)it->offset, (off_t)it->length, POSIX_FADV_DONTNEED);
	close(fd);
	if (rc == 0) {
		s->records++;
		s->content += it->length;
		s->files++;
		/* a file cut into ranges counts once, with its last range */
		if (it->offset + it->length >= it->file_size)
			sent_progress_file();
		s->file_bytes += it->length;
	}
	return rc;
}

static int send_end(struct sender *s)
{
	struct frame f = { .type = FRAME_END, .offset = s->records, .length = s->content };
	unsigned char hdr[FRAME_HEADER];
	struct iovec iov;

	frame_encode(&f, hdr);
	set_iov(&iov, hdr, FRAME_HEADER);
	if (send_iov(s, &iov, 1, 0) < 0)
		return err_errno("cannot send the end record");
	return 0;
}

static int send_all(struct sender *s)
{
	while (s->cursor < s->n) {
		const struct send_item *it = &s->items[s->cursor];
		struct entry *e;

		if (refill(s) < 0)
			return -1;
		e = entry_of(s, s->cursor);
		if (e->state == ENTRY_LARGE) {
			if (flush_batch(s) < 0 || send_large(s, it) < 0)
				return -1;
			e->state = ENTRY_FREE;
			s->cursor++;
			s->held = s->cursor;
		} else if (e->state == ENTRY_READING) {
			/* send what is ready before sleeping on the disk */
			if (flush_batch(s) < 0 || wait_some(s) < 0)
				return -1;
		} else {
			if ((e->state == ENTRY_META ? batch_meta(s, it, e) : batch_small(s, it, e)) < 0)
				return -1;
			s->cursor++;
			if (s->niov + 3 > BATCH_FILES * 3 || s->batch_bytes >= BATCH_BYTES)
				if (flush_batch(s) < 0)
					return -1;
		}
	}
	if (flush_batch(s) < 0)
		return -1;
	return send_end(s);
}


/* Waits for every request in flight: the kernel may still write into entry buffers. */
static void drain(struct sender *s)
{
	while (s->inflight > 0)
		if (wait_some(s) < 0)
			return;	/* leaking the buffers beats freeing memory the kernel may write */
	for (unsigned i = 0; i < WINDOW; i++)
		release(s, &s->ents[i]);
}

int splice_send(int sock, const char *src_root, const struct send_item *items, size_t n,
		bool drop_cache, struct send_stats *st)
{
	struct sender *s = calloc(1, sizeof(*s));
	int rc = -1, fl;

	if (!s)
		return err_set("out of memory");
	s->sock = sock;
	s->root = src_root;
	s->items = items;
	s->n = n;
	s->drop_cache = drop_cache;
	s->pipefd[0] = s->pipefd[1] = -1;
	fl = fcntl(sock, F_GETFL);
	if (fl < 0) {
		err_errno("bad socket");
		free(s);
		return -1;
	}
	s->sock_nonblock = !!(fl & O_NONBLOCK);
	s->dirfd = open(src_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->dirfd < 0) {
		err_errno("cannot open source directory '%s'", src_root);
		free(s);
		return -1;
	}
	if (pipe_open_large(s->pipefd, &s->pipe_size) == 0) {
		if (uring_setup(&s->ring, WINDOW * 4, WINDOW * 8, WINDOW, IOWQ_WORKERS) == 0) {
			rc = send_all(s);
			drain(s);
			io_uring_queue_exit(&s->ring);
		}
		close(s->pipefd[0]);
		close(s->pipefd[1]);
	}
	close(s->dirfd);
	if (st) {
		memset(st, 0, sizeof(*st));
		st->files = s->files;
		st->bytes_read = s->file_bytes;
		st->wire_bytes = s->wire;
	}
	free(s);
	return rc;
}
