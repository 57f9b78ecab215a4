/*
 * The sending half of the `splice` strategy; frames_receiver.c mirrors it.
 *
 * One io_uring (splice_window.c) drives two things from its completions:
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
 *
 * The records go in authenticated segments (seal_stream.h): a batch of
 * records is one segment, its tag computed over the buffers it is sent
 * from. A large file's (or range's) record ends its segment, and its
 * content follows raw, file -> pipe -> socket, never through user memory
 * (frames.h: checked at verify with a keyed hash); content no longer than
 * FRAME_RAW_MIN of a range goes in a segment of its own, read once with
 * pread for its tag and then spliced.
 */
#define _GNU_SOURCE
#include "stream/splice_sender.h"
#include "stream/splice_window.h"

#include "cache_behind.h"
#include "err.h"
#include "sent_progress.h"
#include "pipeutil.h"
#include "stream/frames.h"
#include "stream/seal_stream.h"
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
	if (splice_item_is_meta(it) && it->kind != SEND_DIR) {
		if (it->length == 0 || it->length > FRAME_PATH_MAX)
			return err_set("cannot send '%s/%s': a link of %llu bytes (records carry 1..%d)",
				       s->root, it->path, (unsigned long long)it->length,
				       FRAME_PATH_MAX);
	} else {
		f.mode = it->mode & 07777;
		/* a file cut into ranges gives its mtime once, with the first (frames.h) */
		if (it->mtime != MANIFEST_NO_MTIME && (it->kind != SEND_RANGE || it->offset == 0)) {
			f.flags = FRAME_F_MTIME;
			f.mtime = it->mtime;
		}
	}
	frame_encode(&f, hdr);
	return 0;
}

/*
 * Sends the batched records as one segment (end: the stream's last) and
 * releases their buffers. Returns 0 or -1 (error set).
 */
static int flush_segment(struct sender *s, int end)
{
	if (s->niov == 0 && !end)
		return 0;
	seal_segment_header(s->seg_hdr, s->batch_bytes, end);
	set_iov(&s->iov[0], s->seg_hdr, SEAL_SEG_HEADER);
	if (seal_writer_tag(&s->seal, s->iov, (int)s->niov + 1, s->seg_tag) < 0)
		return -1;
	set_iov(&s->iov[1 + s->niov], s->seg_tag, SEAL_TAG_BYTES);
	if (send_iov(s, s->iov, s->niov + 2, !end) < 0)
		return err_errno(s->cursor ? "cannot send '%s' and the files before it" : "cannot send%.0s",
				 s->cursor ? s->items[s->cursor - 1].path : "");
	s->niov = 0;
	s->batch_bytes = 0;
	for (; s->held < s->cursor; s->held++)
		splice_window_release(s, splice_window_entry(s, s->held));
	return 0;
}

static int flush_batch(struct sender *s)
{
	return flush_segment(s, 0);
}

/* Room in the batch for a record of that many bytes: else it goes out first. */
static int batch_room(struct sender *s, uint64_t bytes)
{
	if (s->batch_bytes + bytes > SEAL_SEG_MAX || s->niov + 3 > BATCH_FILES * 3)
		return flush_batch(s);
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
	if (make_header(s, it, e->hdr) < 0 ||
	    batch_room(s, FRAME_HEADER + strlen(it->path) + it->file_size) < 0)
		return -1;
	set_iov(&s->iov[1 + s->niov++], e->hdr, FRAME_HEADER);
	set_iov(&s->iov[1 + s->niov++], it->path, strlen(it->path));
	if (it->file_size > 0)
		set_iov(&s->iov[1 + s->niov++], e->buf, (size_t)it->file_size);
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
	if (make_header(s, it, e->hdr) < 0 ||
	    batch_room(s, FRAME_HEADER + strlen(it->path) + it->length) < 0)
		return -1;
	set_iov(&s->iov[1 + s->niov++], e->hdr, FRAME_HEADER);
	set_iov(&s->iov[1 + s->niov++], it->path, strlen(it->path));
	if (it->length > 0)
		set_iov(&s->iov[1 + s->niov++], it->link, (size_t)it->length);
	s->batch_bytes += FRAME_HEADER + strlen(it->path) + (size_t)it->length;
	s->records++;
	s->content += it->length;
	return 0;
}

/* Moves exactly len bytes from the pipe to the socket. Returns 0 or -1 (error set). */
static int drain_pipe(struct sender *s, const struct send_item *it, size_t len)
{
	while (len > 0) {
		int res = splice_window_splice(s, s->pipefd[0], -1, s->sock, (unsigned)len,
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

/* Reads len bytes at off into s->chunk, for the segment's tag. Returns 0 or -1 (error set). */
static int read_chunk(struct sender *s, const struct send_item *it, int fd, uint64_t off, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = pread(fd, s->chunk + got, len - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return err_errno("cannot read '%s/%s'", s->root, it->path);
		if (n == 0)
			return err_set("'%s/%s' changed during the transfer: ended at byte %llu of %llu",
				       s->root, it->path, (unsigned long long)(off + got),
				       (unsigned long long)it->file_size);
		got += (size_t)n;
	}
	return 0;
}

/* Sends the segment header or tag in s->seg_hdr / s->seg_tag. Returns 0 or -1 (error set). */
static int send_small_part(struct sender *s, const struct send_item *it, const void *p, size_t len)
{
	struct iovec v;

	set_iov(&v, p, len);
	if (send_iov(s, &v, 1, 1) < 0)
		return err_errno("cannot send '%s/%s'", s->root, it->path);
	return 0;
}

/*
 * The content of a record no longer than FRAME_RAW_MIN, as one segment:
 * read for its tag, then its header, the bytes file -> pipe -> socket, the
 * tag. (A range of a file cut into ranges may be that short; whole files
 * that short are read ahead and batched instead.)
 */
static int splice_raw(struct sender *s, const struct send_item *it, int fd, uint64_t off,
		      unsigned len);

static int splice_segment(struct sender *s, const struct send_item *it, int fd, uint64_t off,
			  unsigned chunk)
{
	struct iovec parts[2];

	if (read_chunk(s, it, fd, off, chunk) < 0)
		return -1;
	seal_segment_header(s->seg_hdr, chunk, 0);
	set_iov(&parts[0], s->seg_hdr, SEAL_SEG_HEADER);
	set_iov(&parts[1], s->chunk, chunk);
	if (seal_writer_tag(&s->seal, parts, 2, s->seg_tag) < 0 ||
	    send_small_part(s, it, s->seg_hdr, SEAL_SEG_HEADER) < 0 || splice_raw(s, it, fd, off, chunk) < 0)
		return -1;
	sent_progress_bytes(chunk);
	return send_small_part(s, it, s->seg_tag, SEAL_TAG_BYTES);
}

/* Moves exactly len bytes of fd at off file -> pipe -> socket. Returns 0 or -1 (error set). */
static int splice_raw(struct sender *s, const struct send_item *it, int fd, uint64_t off,
		      unsigned len)
{
	unsigned moved = 0;

	while (moved < len) {
		int res = splice_window_splice(s, fd, (int64_t)(off + moved), s->pipefd[1], len - moved,
					       SPLICE_F_MOVE);

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
				       s->root, it->path, (unsigned long long)(off + moved),
				       (unsigned long long)it->file_size);
		if (drain_pipe(s, it, (size_t)res) < 0)
			return -1;
		moved += (unsigned)res;
	}
	return 0;
}

/*
 * The content of a large file or range: raw after its record's segment
 * when longer than FRAME_RAW_MIN (frames.h), in pipe-sized splices, else
 * one segment of its own.
 */
static int splice_content(struct sender *s, const struct send_item *it, int fd)
{
	uint64_t off = it->offset, end = it->offset + it->length;
	struct read_behind rb;

	if (it->length <= FRAME_RAW_MIN)
		return splice_segment(s, it, fd, off, (unsigned)it->length);
	read_behind_init(&rb, fd, it->offset);
	while (off < end) {
		uint64_t left = end - off;
		unsigned len = (unsigned)(left < s->pipe_size ? left : s->pipe_size);

		if (splice_raw(s, it, fd, off, len) < 0)
			return -1;
		off += len;
		sent_progress_bytes(len);
		/* pages still in flight on the socket are skipped: the final drop gets them */
		if (s->drop_cache && off - it->offset > s->pipe_size)
			read_behind_done(&rb, off - s->pipe_size);
	}
	return 0;
}

/*
 * Sends a large file or range: its header and path end a segment, the
 * content follows by splice (splice_content: raw, or a segment of its own).
 */
static int send_large(struct sender *s, const struct send_item *it)
{
	int fd, rc;

	if (make_header(s, it, s->large_hdr) < 0 || (fd = open_large(s, it)) < 0)
		return -1;
	set_iov(&s->iov[1 + s->niov++], s->large_hdr, FRAME_HEADER);
	set_iov(&s->iov[1 + s->niov++], it->path, strlen(it->path));
	s->batch_bytes += FRAME_HEADER + strlen(it->path);
	rc = flush_batch(s);
	if (rc == 0)
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

/* The end record, in the stream's last segment. */
static int send_end(struct sender *s)
{
	struct frame f = { .type = FRAME_END, .offset = s->records, .length = s->content };

	frame_encode(&f, s->large_hdr);
	set_iov(&s->iov[1 + s->niov++], s->large_hdr, FRAME_HEADER);
	s->batch_bytes += FRAME_HEADER;
	if (flush_segment(s, 1) < 0)
		return err_wrap("cannot send the end record");
	return 0;
}

static int send_all(struct sender *s)
{
	while (s->cursor < s->n) {
		const struct send_item *it = &s->items[s->cursor];
		struct entry *e;

		if (splice_window_refill(s) < 0)
			return -1;
		e = splice_window_entry(s, s->cursor);
		if (e->state == ENTRY_LARGE) {
			if (flush_batch(s) < 0 || send_large(s, it) < 0)
				return -1;
			e->state = ENTRY_FREE;
			s->cursor++;
			s->held = s->cursor;
		} else if (e->state == ENTRY_READING) {
			/* send what is ready before sleeping on the disk */
			if (flush_batch(s) < 0 || splice_window_wait(s) < 0)
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
	/* the end record rides with the last batch, in the stream's last segment */
	return send_end(s);
}


int splice_send(int sock, const unsigned char key[SEAL_KEY_BYTES], const char *src_root,
		const struct send_item *items, size_t n, bool drop_cache, struct send_stats *st)
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
	if (seal_writer_init(&s->seal, key) < 0) {
		free(s);
		return -1;
	}
	s->dirfd = open(src_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->dirfd < 0) {
		err_errno("cannot open source directory '%s'", src_root);
		seal_writer_release(&s->seal);
		free(s);
		return -1;
	}
	if (pipe_open_large(s->pipefd, &s->pipe_size) == 0) {
		/* a segment is at most one pipe's size, and at most SEAL_SEG_MAX */
		if (s->pipe_size > SEAL_SEG_MAX)
			s->pipe_size = SEAL_SEG_MAX;
		s->chunk = malloc(FRAME_RAW_MIN);
		if (!s->chunk)
			err_set("out of memory for a segment");
		else if (uring_setup(&s->ring, WINDOW * 4, WINDOW * 8, WINDOW, IOWQ_WORKERS) == 0) {
			rc = send_all(s);
			splice_window_drain(s);
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
	seal_writer_release(&s->seal);
	free(s->chunk);
	free(s);
	return rc;
}
