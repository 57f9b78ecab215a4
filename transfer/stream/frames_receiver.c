/*
 * The receiving half of the `splice` strategy; splice_sender.c mirrors it.
 *
 * The stream is read through a buffer. Small whole files are copied out of
 * it and created by io_uring chains openat2_direct -> write -> close_direct
 * in a sparse registered file table, CHAINS of them in flight, while this
 * thread goes on reading the socket; the creates run in parallel in io-wq
 * workers. Everything else (large files, ranges, files whose mode the umask
 * would change) is opened here with openat2 and written with pwrite for the
 * bytes already buffered and splice socket -> pipe -> file for the rest.
 * Directories and symbolic links are made when their record arrives; hard
 * links, mtimes and directory modes are noted for the end of the receive
 * (frames_tree.h), when every stream has ended.
 */
#define _GNU_SOURCE
#include "stream/frames_receiver.h"

#include "err.h"
#include "pipeutil.h"
#include "stream/beneath.h"
#include "stream/frames.h"
#include "stream/frames_tree.h"
#include "stream/pathcheck.h"
#include "stream/uring_util.h"
#include "cache_behind.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <linux/openat2.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define READBUF (1u << 20)
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
#define MODE_NEVER (S_ISUID | S_ISGID)

enum chain_op {
	CH_OPEN,
	CH_WRITE,
	CH_CLOSE,
};

struct chain {
	struct chain *next_free;
	unsigned pending;	/* completions still to come */
	int err;		/* first failure: errno, or -1 for a short write */
	enum chain_op err_op;
	unsigned char *buf;	/* the content, owned until the chain completes */
	size_t len;
	struct open_how how;
	char path[FRAME_PATH_MAX + 1];
};

struct receiver {
	int sock, dirfd, sock_nonblock;
	const char *dest;
	unsigned char *buf;	/* READBUF bytes; [start, end) not yet consumed */
	size_t start, end;
	struct io_uring ring;
	int ring_ok;
	unsigned queued;	/* SQEs not yet submitted */
	struct chain *chains, *free_chains;
	unsigned busy;		/* chains in flight */
	int failed;		/* an error is set: later chain failures must not replace it */
	int stranded;		/* the ring failed with chains in flight: leak, never free */
	int pipefd[2];
	size_t pipe_size;
	mode_t umask;
	char lastdir[FRAME_PATH_MAX + 1];
	size_t lastdir_len;	/* SIZE_MAX: none yet */
	char path[FRAME_PATH_MAX + 1];
	uint64_t records, content;	/* as announced by the headers that arrived */
	uint64_t files_done, bytes_done, wire;
	struct frames_later later;	/* for the end of the receive: links, times, modes */
	char link[FRAME_PATH_MAX + 1];	/* a link record's content */
};

static int open_beneath(int dirfd, const char *path, uint64_t flags, mode_t mode)
{
	return beneath_open(dirfd, path, flags, mode);
}

/*
 * The process umask without changing it: umask(2) can only be read by setting
 * it, which would race with other threads creating files. Unknown (no /proc):
 * every bit, so every mode gets its fchmod.
 */
static mode_t current_umask(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	unsigned mask = 07777;

	if (!f)
		return (mode_t)mask;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Umask: %o", &mask) == 1)
			break;
	fclose(f);
	return (mode_t)mask;
}

/* Bytes of the stream consumed so far (read minus buffered). */
static uint64_t stream_pos(const struct receiver *r)
{
	return r->wire - (r->end - r->start);
}

static int wait_readable(struct receiver *r)
{
	struct pollfd p = { .fd = r->sock, .events = POLLIN };

	if (!r->sock_nonblock) {
		errno = ETIMEDOUT;	/* a blocking socket says EAGAIN only when SO_RCVTIMEO expires */
		return -1;
	}
	while (poll(&p, 1, -1) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

static int submit_queued(struct receiver *r)
{
	if (r->queued > 0) {
		int rc = io_uring_submit(&r->ring);

		if (rc < 0) {
			errno = -rc;
			return err_errno("cannot submit to io_uring");
		}
		r->queued = 0;
	}
	return 0;
}

/* Reads from the socket into p. Returns bytes (> 0), 0 at end of stream, -1 (error set). */
static ssize_t sock_read(struct receiver *r, void *p, size_t len)
{
	/* creates queued so far must not wait while this thread sleeps on the network */
	if (submit_queued(r) < 0)
		return -1;
	for (;;) {
		ssize_t n = read(r->sock, p, len);

		if (n >= 0) {
			r->wire += (uint64_t)n;
			return n;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN && wait_readable(r) == 0)
			continue;
		return err_errno("cannot read the stream after %llu bytes",
				 (unsigned long long)stream_pos(r));
	}
}

/* Buffers at least want (<= READBUF) bytes. Returns 1, 0 if the stream ends first, -1. */
static int fill(struct receiver *r, size_t want)
{
	if (r->start + want > READBUF) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->start = 0;
	}
	while (r->end - r->start < want) {
		ssize_t n = sock_read(r, r->buf + r->end, READBUF - r->end);

		if (n <= 0)
			return (int)n;
		r->end += (size_t)n;
	}
	return 1;
}

static int truncated(struct receiver *r, uint64_t got, uint64_t want)
{
	return err_set("stream ended after %llu of %llu bytes of '%s' (%llu bytes into the stream)",
		       (unsigned long long)got, (unsigned long long)want, r->path,
		       (unsigned long long)stream_pos(r));
}

/* Copies the next len content bytes into p. Returns 0 or -1 (error set). */
static int take(struct receiver *r, unsigned char *p, size_t len)
{
	size_t have = r->end - r->start, got = have < len ? have : len;

	memcpy(p, r->buf + r->start, got);
	r->start += got;
	while (got < len) {
		ssize_t n = sock_read(r, p + got, len - got);

		if (n < 0)
			return -1;
		if (n == 0)
			return truncated(r, got, len);
		got += (size_t)n;
	}
	return 0;
}

/* Makes r->path's parent directory unless it is the last one made. */
static int ensure_parent(struct receiver *r)
{
	const char *slash = strrchr(r->path, '/');
	size_t len;
	char dir[FRAME_PATH_MAX + 1];
	int fd;

	if (!slash)
		return 0;
	len = (size_t)(slash - r->path);
	if (len == r->lastdir_len && !memcmp(r->lastdir, r->path, len))
		return 0;
	memcpy(dir, r->path, len);
	dir[len] = '\0';
	fd = beneath_mkdirs(r->dirfd, r->dest, dir);
	if (fd < 0)
		return -1;
	close(fd);
	memcpy(r->lastdir, r->path, len);
	r->lastdir_len = len;
	return 0;
}

static const char *op_verb(enum chain_op op)
{
	return op == CH_OPEN ? "create" : op == CH_WRITE ? "write" : "close";
}

static void chain_done(struct receiver *r, struct chain *c)
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
	struct chain *c = &r->chains[data >> 2];
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

/* Handles the completions that have arrived. Returns 0, or -1 if a chain failed. */
static int reap(struct receiver *r)
{
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
	return reap(r);
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

/* Reads a small file's content and queues its create chain. Returns 0 or -1. */
static int receive_small(struct receiver *r, const struct frame *f, mode_t mode)
{
	struct io_uring_sqe *sqe;
	struct chain *c;
	unsigned slot;

	while (!r->free_chains)
		if (wait_some(r) < 0)
			return -1;
	c = r->free_chains;
	r->free_chains = c->next_free;
	c->len = (size_t)f->length;
	c->buf = malloc(c->len ? c->len : 1);
	if (!c->buf) {
		c->next_free = r->free_chains;
		r->free_chains = c;
		return err_set("out of memory receiving '%s'", r->path);
	}
	if (take(r, c->buf, c->len) < 0) {
		free(c->buf);
		c->buf = NULL;
		c->next_free = r->free_chains;
		r->free_chains = c;
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
		return submit_queued(r);
	return 0;
}

static int pwrite_all(int fd, const unsigned char *p, size_t len, uint64_t off)
{
	while (len > 0) {
		ssize_t w = pwrite(fd, p, len, (off_t)off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			return -1;
		}
		p += w;
		len -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

/* Moves len bytes socket -> pipe -> fd at off. Returns 0 or -1 (error set). */
static int splice_in(struct receiver *r, int fd, uint64_t off, uint64_t len, uint64_t total)
{
	struct write_behind wb;
	uint64_t left = len;
	loff_t pos = (loff_t)off;

	write_behind_init(&wb, fd, off);
	if (r->pipefd[0] < 0 && pipe_open_large(r->pipefd, &r->pipe_size) < 0)
		return -1;
	if (submit_queued(r) < 0)
		return -1;
	while (left > 0) {
		size_t want = left < r->pipe_size ? (size_t)left : r->pipe_size;
		ssize_t n = splice(r->sock, NULL, r->pipefd[1], NULL, want, SPLICE_F_MOVE);

		if (n < 0) {
			if (errno == EINTR || (errno == EAGAIN && wait_readable(r) == 0))
				continue;
			return err_errno("cannot read '%s' from the stream", r->path);
		}
		if (n == 0)
			return truncated(r, total - left, total);
		r->wire += (uint64_t)n;
		left -= (uint64_t)n;
		while (n > 0) {
			ssize_t w = splice(r->pipefd[0], NULL, fd, &pos, (size_t)n, SPLICE_F_MOVE);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				if (w == 0)
					errno = EIO;
				/* the pipe still holds bytes: it must not carry the next record */
				close(r->pipefd[0]);
				close(r->pipefd[1]);
				r->pipefd[0] = r->pipefd[1] = -1;
				return err_errno("cannot write '%s/%s'", r->dest, r->path);
			}
			n -= w;
		}
		if (write_behind_wrote(&wb, (uint64_t)pos) < 0)
			return err_errno("cannot write '%s/%s' back to disk", r->dest, r->path);
	}
	return 0;
}

/* chmod of r->path, resolved as every open here is (no symlink, nothing outside dest). */
static int chmod_beneath(struct receiver *r, mode_t mode)
{
	char proc[32];
	int fd = open_beneath(r->dirfd, r->path, O_PATH | O_CLOEXEC, 0), rc;

	if (fd < 0)
		return -1;
	beneath_proc_name(fd, proc);
	rc = chmod(proc, mode);
	close(fd);
	return rc;
}

/*
 * Opens the file of a RANGE record. The first range creates it with its mode;
 * when that mode has no owner write, a later range (as any user but root)
 * cannot open it for writing, so it gives the owner write back and sets the
 * mode again once open (receive_sync's fchmod): every range ends with the
 * record's mode in place, whichever finishes last.
 */
static int open_range(struct receiver *r, uint64_t flags, mode_t mode)
{
	for (int tries = 0;; tries++) {
		int fd = open_beneath(r->dirfd, r->path, flags, mode);

		if (fd >= 0 || errno != EACCES || (mode & S_IWUSR) || tries == 100)
			return fd;
		if (chmod_beneath(r, mode | S_IWUSR) < 0)
			return -1;
	}
}

/* Receives a record by plain syscalls: large files, ranges, modes the umask would change. */
static int receive_sync(struct receiver *r, const struct frame *f, mode_t mode, int chmod_needed)
{
	uint64_t flags = O_WRONLY | O_CREAT | O_CLOEXEC | (f->type == FRAME_FILE ? O_EXCL : 0);
	uint64_t off = f->offset, have = r->end - r->start;
	size_t now = (size_t)(have < f->length ? have : f->length);
	int fd, rc = 0;

	if (f->type == FRAME_RANGE && !(mode & S_IWUSR)) {
		fd = open_range(r, flags, mode);
		chmod_needed = 1;
	} else {
		fd = open_beneath(r->dirfd, r->path, flags, mode);
	}
	if (fd < 0)
		return err_errno("cannot create '%s/%s'", r->dest, r->path);
	if (chmod_needed && fchmod(fd, mode) < 0)
		rc = err_errno("cannot set the mode of '%s/%s'", r->dest, r->path);
	if (rc == 0 && now > 0) {
		if (pwrite_all(fd, r->buf + r->start, now, off) < 0)
			rc = err_errno("cannot write '%s/%s'", r->dest, r->path);
		r->start += now;
	}
	if (rc == 0 && f->length > now)
		rc = splice_in(r, fd, off + now, f->length - now, f->length);
	if (close(fd) < 0 && rc == 0)
		rc = err_errno("cannot close '%s/%s'", r->dest, r->path);
	if (rc == 0) {
		r->files_done++;
		r->bytes_done += f->length;
	}
	return rc;
}

/* Reads a link record's content into r->link. Returns 0 or -1 (error set). */
static int take_link(struct receiver *r, const struct frame *f)
{
	size_t len = (size_t)f->length;	/* frame_decode: 1..FRAME_PATH_MAX */

	if (take(r, (unsigned char *)r->link, len) < 0)
		return -1;
	r->link[len] = '\0';
	if (memchr(r->link, '\0', len))
		return err_set("link '%s' holds a NUL byte", r->path);
	return 0;
}

/*
 * A symbolic link, made now with symlinkat below its parent (opened without
 * following a link). Its text is data: never resolved here, and every later
 * path through it is refused (RESOLVE_NO_SYMLINKS).
 */
static int receive_symlink(struct receiver *r, const struct frame *f)
{
	const char *base;
	int pfd, rc = 0;

	if (take_link(r, f) < 0)
		return -1;
	pfd = beneath_parent(r->dirfd, r->dest, r->path, &base);
	if (pfd < 0)
		return -1;
	if (symlinkat(r->link, pfd, base) < 0)
		rc = err_errno("cannot create symbolic link '%s/%s'", r->dest, r->path);
	close(pfd);
	return rc;
}

/* A hard link: its primary's path is checked as every path, the link made at the end. */
static int receive_hardlink(struct receiver *r, const struct frame *f)
{
	if (take_link(r, f) < 0)
		return -1;
	if (pathcheck_relative(r->link, (size_t)f->length) < 0)
		return err_wrap("hard link '%s'", r->path);
	return frames_later_hardlink(&r->later, r->path, r->link);
}

/* A directory, made now (mode 0755 while it fills); its mode and mtime are for the end. */
static int receive_dir(struct receiver *r, const struct frame *f)
{
	int fd = beneath_mkdirs(r->dirfd, r->dest, r->path);

	if (fd < 0)
		return -1;
	close(fd);
	return frames_later_dir(&r->later, r->path, (mode_t)f->mode & ~(mode_t)MODE_NEVER,
				!!(f->flags & FRAME_F_MTIME), f->mtime);
}

static int receive_record(struct receiver *r, const struct frame *f)
{
	mode_t mode = (mode_t)f->mode & ~(mode_t)MODE_NEVER;
	int chmod_needed = (mode & r->umask) != 0;

	switch (f->type) {
	case FRAME_DIR:
		return receive_dir(r, f);
	case FRAME_SYMLINK:
		return receive_symlink(r, f);
	case FRAME_HARDLINK:
		return receive_hardlink(r, f);
	default:
		break;
	}
	if (ensure_parent(r) < 0)
		return -1;
	/* noted before the content: the end applies it only if the whole receive succeeded */
	if ((f->flags & FRAME_F_MTIME) && frames_later_mtime(&r->later, r->path, f->mtime) < 0)
		return -1;
	if (r->ring_ok && f->type == FRAME_FILE && f->length <= FRAMES_SMALL_MAX && !chmod_needed)
		return receive_small(r, f, mode);
	return receive_sync(r, f, mode, chmod_needed);
}

/*
 * Waits for every chain in flight. Returns 0, or -1 if one failed (error
 * set). If the ring itself fails, r->stranded is set: the kernel may still
 * use the chains' buffers, so they must not be freed.
 */
static int drain(struct receiver *r)
{
	while (r->busy > 0) {
		if (uring_submit_wait(&r->ring) < 0) {
			if (!r->failed)
				err_errno("io_uring wait failed");
			r->failed = 1;
			r->stranded = 1;
			return -1;
		}
		reap(r);
	}
	return r->failed ? -1 : 0;
}

static int finish(struct receiver *r, const struct frame *f)
{
	if (r->ring_ok && drain(r) < 0)
		return -1;
	if (f->offset != r->records || f->length != r->content)
		return err_set("end record says %llu records of %llu bytes, but %llu records of %llu bytes arrived",
			       (unsigned long long)f->offset, (unsigned long long)f->length,
			       (unsigned long long)r->records, (unsigned long long)r->content);
	if (r->end > r->start)
		return err_set("%zu unexpected bytes after the end record", r->end - r->start);
	/*
	 * The sender shuts its side down after the end record: read to that end
	 * of file, so bytes that arrive in a later read are caught too.
	 */
	switch (fill(r, 1)) {
	case 0:
		return 0;
	case 1:
		return err_set("%zu unexpected bytes after the end record", r->end - r->start);
	default:
		return -1;
	}
}

static int receive_all(struct receiver *r)
{
	for (;;) {
		unsigned char hdr[FRAME_HEADER];
		struct frame f;
		int rc;

		if (r->ring_ok && reap(r) < 0)
			return -1;
		rc = fill(r, FRAME_HEADER);
		if (rc < 0)
			return -1;
		if (rc == 0)
			return err_set("stream ended after %llu bytes%s, before the end record (%llu records arrived)",
				       (unsigned long long)r->wire,
				       r->end > r->start ? " inside a record header" : "",
				       (unsigned long long)r->records);
		memcpy(hdr, r->buf + r->start, FRAME_HEADER);
		if (frame_decode(hdr, &f) < 0)
			return err_wrap("record %llu at byte %llu", (unsigned long long)r->records + 1,
					(unsigned long long)stream_pos(r));
		r->start += FRAME_HEADER;
		if (f.type == FRAME_END)
			return finish(r, &f);
		rc = fill(r, f.path_len);
		if (rc <= 0)
			return rc < 0 ? -1 : err_set("stream ended after %llu bytes, inside the path of record %llu",
						     (unsigned long long)r->wire,
						     (unsigned long long)r->records + 1);
		if (pathcheck_relative((const char *)r->buf + r->start, f.path_len) < 0)
			return err_wrap("record %llu", (unsigned long long)r->records + 1);
		memcpy(r->path, r->buf + r->start, f.path_len);
		r->path[f.path_len] = '\0';
		r->start += f.path_len;
		r->records++;
		r->content += f.length;
		if (receive_record(r, &f) < 0)
			return -1;
	}
}

/*
 * Sets up the ring for small-file creates. Returns 0, or -1 with the error
 * message as it was: without io_uring every file takes the plain path.
 */
static int setup_ring(struct receiver *r)
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

int frames_receive_part(struct frames_tree *tree, const char *dest, int sock,
			struct recv_stats *st)
{
	struct receiver *r = calloc(1, sizeof(*r));
	int rc = -1, fl;

	if (!r)
		return err_set("out of memory");
	r->sock = sock;
	r->dest = dest;
	r->pipefd[0] = r->pipefd[1] = -1;
	r->lastdir_len = SIZE_MAX;
	r->umask = current_umask();
	fl = fcntl(sock, F_GETFL);
	r->sock_nonblock = fl >= 0 && (fl & O_NONBLOCK);
	r->buf = malloc(READBUF);
	/* the tree's descriptor, not the path: nothing re-resolves dest */
	r->dirfd = fcntl(frames_tree_dirfd(tree), F_DUPFD_CLOEXEC, 0);
	if (fl < 0)
		err_errno("bad socket");
	else if (!r->buf)
		err_set("out of memory");
	else if (r->dirfd < 0)
		err_errno("cannot duplicate the descriptor of '%s'", dest);
	else {
		/* without io_uring (disabled on this host) every file takes the plain path */
		setup_ring(r);
		rc = receive_all(r);
		if (r->ring_ok) {
			if (rc < 0)
				r->failed = 1;
			if (drain(r) < 0)
				rc = -1;
			io_uring_queue_exit(&r->ring);
		}
	}
	if (r->dirfd >= 0)
		close(r->dirfd);
	if (r->pipefd[0] >= 0) {
		close(r->pipefd[0]);
		close(r->pipefd[1]);
	}
	if (st) {
		st->files = r->files_done;
		st->bytes = r->bytes_done;
		st->wire_bytes = r->wire;
	}
	if (rc == 0)
		rc = frames_tree_add(tree, &r->later);
	frames_later_release(&r->later);
	free(r->buf);
	if (!r->stranded) {
		free(r->chains);
		free(r);
	}
	return rc;
}

static int receive_alone(struct frames_tree *tree, int sock, const char *dest, struct recv_stats *st)
{
	int rc;

	if (!tree)
		return -1;
	rc = frames_receive_part(tree, dest, sock, st);
	if (frames_tree_finish(tree, rc == 0) < 0)
		rc = -1;
	return rc;
}

int frames_receive_at(int sock, int dirfd, const char *dest, struct recv_stats *st)
{
	return receive_alone(frames_tree_new_at(dirfd, dest), sock, dest, st);
}

int frames_receive(int sock, const char *dest, struct recv_stats *st)
{
	return receive_alone(frames_tree_new(dest), sock, dest, st);
}
