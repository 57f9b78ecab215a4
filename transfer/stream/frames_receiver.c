/*
 * The receiving half of the `splice` strategy; splice_sender.c mirrors it.
 *
 * The stream comes in checked segments (seal_stream.h) through a
 * seal_reader: no byte is used before its segment's tag checked. This file
 * reads the records; small whole files are created many at once through
 * io_uring (frames_create.c) while this thread goes on reading; everything
 * else (large files, ranges, files whose mode the umask would change) is
 * written by plain syscalls (frames_write.c). Directories and symbolic links
 * are made when their record arrives; hard links, mtimes and directory modes
 * are noted for the end of the receive (frames_tree.h), when every stream
 * has ended.
 */
#define _GNU_SOURCE
#include "stream/frames_receiver.h"

#include "err.h"
#include "stream/beneath.h"
#include "stream/frames_recv.h"
#include "stream/pathcheck.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

enum later_count { COUNT_DIR, COUNT_MTIME, COUNT_LINK };

/* Bytes of the stream's checked payload consumed so far. */
static uint64_t stream_pos(const struct receiver *r)
{
	return r->in.payload - seal_reader_avail(&r->in);
}

int frames_recv_take(struct receiver *r, unsigned char *p, size_t len)
{
	size_t got = 0;

	while (got < len) {
		size_t have = seal_reader_avail(&r->in), now = have < len - got ? have : len - got;
		int rc;

		if (now == 0) {
			rc = seal_reader_fill(&r->in, 1);
			if (rc < 0)
				return -1;
			if (rc == 0)
				return err_set("stream ended after %zu of %zu bytes of '%s' (%llu bytes into the stream)",
					       got, len, r->path, (unsigned long long)stream_pos(r));
			continue;
		}
		memcpy(p + got, r->in.buf + r->in.start, now);
		r->in.start += now;
		got += now;
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

/*
 * Counts a record noted for the end of the receive (frames_tree.h) against
 * the receive's bounds: no more of that kind than the manifest lists, and
 * no more bytes of names than its text (recv_opts.h). Returns 0 or -1.
 */
static int count_noted(struct receiver *r, enum later_count kind, size_t names)
{
	struct recv_bounds *b = r->in.bounds;

	if (!b)
		return 0;
	if (kind == COUNT_DIR && recv_bounds_take(b, &b->dirs, b->max_dirs, 1, "directory records") < 0)
		return -1;
	if (kind == COUNT_MTIME && recv_bounds_take(b, &b->mtimes, b->max_mtimes, 1, "file mtimes") < 0)
		return -1;
	if (kind == COUNT_LINK && recv_bounds_take(b, &b->links, b->max_links, 1, "hard-link records") < 0)
		return -1;
	return recv_bounds_take(b, &b->names, b->max_names, names, "bytes of names noted for the end");
}

/* Reads a link record's content into r->link. Returns 0 or -1 (error set). */
static int take_link(struct receiver *r, const struct frame *f)
{
	size_t len = (size_t)f->length;	/* frame_decode: 1..FRAME_PATH_MAX */

	if (frames_recv_take(r, (unsigned char *)r->link, len) < 0)
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
	if (count_noted(r, COUNT_LINK, strlen(r->path) + strlen(r->link) + 2) < 0)
		return -1;
	return frames_later_hardlink(&r->later, r->path, r->link);
}

/* A directory, made now (mode 0755 while it fills); its mode and mtime are for the end. */
static int receive_dir(struct receiver *r, const struct frame *f)
{
	int fd;

	if (count_noted(r, COUNT_DIR, strlen(r->path) + 1) < 0)
		return -1;
	fd = beneath_mkdirs(r->dirfd, r->dest, r->path);
	if (fd < 0)
		return -1;
	close(fd);
	return frames_later_dir(&r->later, r->path, (mode_t)f->mode & ~(mode_t)FRAMES_MODE_NEVER,
				!!(f->flags & FRAME_F_MTIME), f->mtime);
}

static int receive_record(struct receiver *r, const struct frame *f)
{
	mode_t mode = (mode_t)f->mode & ~(mode_t)FRAMES_MODE_NEVER;
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
	if ((f->flags & FRAME_F_MTIME) && (count_noted(r, COUNT_MTIME, strlen(r->path) + 1) < 0 ||
					   frames_later_mtime(&r->later, r->path, f->mtime) < 0))
		return -1;
	/* raw content follows the segment that ends with its record (frames.h) */
	if (f->length > FRAME_RAW_MIN && seal_reader_avail(&r->in))
		return err_set("integrity check failed: record '%s' of %llu bytes does not end its segment",
			       r->path, (unsigned long long)f->length);
	if (r->ring_ok && f->type == FRAME_FILE && f->length <= FRAMES_SMALL_MAX && !chmod_needed)
		return frames_create_small(r, f, mode);
	return frames_write_sync(r, f, mode, chmod_needed);
}

static int finish(struct receiver *r, const struct frame *f)
{
	if (frames_create_drain(r) < 0)
		return -1;
	if (f->offset != r->records || f->length != r->content)
		return err_set("end record says %llu records of %llu bytes, but %llu records of %llu bytes arrived",
			       (unsigned long long)f->offset, (unsigned long long)f->length,
			       (unsigned long long)r->records, (unsigned long long)r->content);
	/*
	 * The end record ends the sealed stream: nothing checked may follow it,
	 * and the sender shuts its side down after it: read to that end of
	 * file, so bytes that arrive in a later read are caught too.
	 */
	switch (seal_reader_fill(&r->in, 1)) {
	case 0:
		return seal_reader_finish(&r->in);
	case 1:
		return err_set("%zu unexpected bytes after the end record", seal_reader_avail(&r->in));
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

		if (frames_create_reap(r) < 0)
			return -1;
		rc = seal_reader_fill(&r->in, FRAME_HEADER);
		if (rc < 0)
			return -1;
		if (rc == 0)
			return err_set("stream ended after %llu bytes%s, before the end record (%llu records arrived)",
				       (unsigned long long)r->in.payload,
				       seal_reader_avail(&r->in) ? " inside a record header" : "",
				       (unsigned long long)r->records);
		memcpy(hdr, r->in.buf + r->in.start, FRAME_HEADER);
		if (frame_decode(hdr, &f) < 0)
			return err_wrap("record %llu at byte %llu", (unsigned long long)r->records + 1,
					(unsigned long long)stream_pos(r));
		r->in.start += FRAME_HEADER;
		if (f.type == FRAME_END)
			return finish(r, &f);
		rc = seal_reader_fill(&r->in, f.path_len);
		if (rc <= 0)
			return rc < 0 ? -1 : err_set("stream ended after %llu bytes, inside the path of record %llu",
						     (unsigned long long)r->in.payload,
						     (unsigned long long)r->records + 1);
		if (pathcheck_relative((const char *)r->in.buf + r->in.start, f.path_len) < 0)
			return err_wrap("record %llu", (unsigned long long)r->records + 1);
		memcpy(r->path, r->in.buf + r->in.start, f.path_len);
		r->path[f.path_len] = '\0';
		r->in.start += f.path_len;
		r->records++;
		r->content += f.length;
		if (receive_record(r, &f) < 0)
			return -1;
	}
}

/* Before the reader waits on the network: the creates queued so far must not wait with it. */
static void submit_before_read(void *ctx)
{
	frames_create_submit(ctx);
}

int frames_receive_part(struct frames_tree *tree, const char *dest, int sock,
			const struct recv_opts *o, struct recv_stats *st)
{
	struct receiver *r = calloc(1, sizeof(*r));
	int rc = -1;

	if (!r)
		return err_set("out of memory");
	r->dest = dest;
	r->lastdir_len = SIZE_MAX;
	r->pipefd[0] = r->pipefd[1] = -1;
	r->umask = current_umask();
	/* the tree's descriptor, not the path: nothing re-resolves dest */
	r->dirfd = fcntl(frames_tree_dirfd(tree), F_DUPFD_CLOEXEC, 0);
	if (r->dirfd < 0)
		err_errno("cannot duplicate the descriptor of '%s'", dest);
	else if (seal_reader_init(&r->in, sock, o) == 0) {
		r->in.before_read = submit_before_read;
		r->in.ctx = r;
		/* without io_uring (disabled on this host) every file takes the plain path */
		frames_create_setup(r);
		rc = receive_all(r);
		if (rc < 0)
			r->failed = 1;
		if (frames_create_drain(r) < 0)
			rc = -1;
		frames_create_release(r);
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
		st->wire_bytes = r->in.wire;
	}
	seal_reader_release(&r->in);
	if (rc == 0)
		rc = frames_tree_add(tree, &r->later);
	frames_later_release(&r->later);
	free(r);
	return rc;
}

static int receive_alone(struct frames_tree *tree, int sock, const struct recv_opts *o,
			 const char *dest, struct recv_stats *st)
{
	int rc;

	if (!tree)
		return -1;
	rc = frames_receive_part(tree, dest, sock, o, st);
	if (frames_tree_finish(tree, rc == 0) < 0)
		rc = -1;
	return rc;
}

int frames_receive_at(int sock, const struct recv_opts *o, int dirfd, const char *dest,
		      struct recv_stats *st)
{
	return receive_alone(frames_tree_new_at(dirfd, dest), sock, o, dest, st);
}

int frames_receive(int sock, const struct recv_opts *o, const char *dest, struct recv_stats *st)
{
	return receive_alone(frames_tree_new(dest), sock, o, dest, st);
}
