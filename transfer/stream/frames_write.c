/*
 * Large files and ranges of the record stream (frames_recv.h): opened with
 * openat2 beneath the destination, and written, dropped from the page cache
 * behind the writes: content longer than FRAME_RAW_MIN comes raw after its
 * record's segment and goes socket -> pipe -> file by splice, never
 * through memory (its integrity is checked at verify, frames.h); shorter
 * content comes in checked segments and is written with pwrite.
 */
#define _GNU_SOURCE
#include "stream/frames_recv.h"

#include "cache_behind.h"
#include "err.h"
#include "pipeutil.h"
#include "stream/beneath.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Writes the next len bytes of the stream to fd at off. Returns 0 or -1 (error set). */
static int write_from_stream(struct receiver *r, int fd, uint64_t off, uint64_t len)
{
	struct write_behind wb;
	uint64_t left = len;

	write_behind_init(&wb, fd, off);
	while (left > 0) {
		size_t have = seal_reader_avail(&r->in), now;
		int rc;

		if (have == 0) {
			rc = seal_reader_fill(&r->in, 1);
			if (rc < 0)
				return -1;
			if (rc == 0)
				return err_set("stream ended after %llu of %llu bytes of '%s'",
					       (unsigned long long)(len - left), (unsigned long long)len,
					       r->path);
			continue;
		}
		now = have < left ? have : (size_t)left;
		if (pwrite_all(fd, r->in.buf + r->in.start, now, off) < 0)
			return err_errno("cannot write '%s/%s'", r->dest, r->path);
		r->in.start += now;
		off += now;
		left -= now;
		if (write_behind_wrote(&wb, off) < 0)
			return err_errno("cannot write '%s/%s' back to disk", r->dest, r->path);
	}
	return 0;
}

/* Moves len raw bytes socket -> pipe -> fd at off. Returns 0 or -1 (error set). */
static int splice_raw(struct receiver *r, int fd, uint64_t off, uint64_t len)
{
	struct write_behind wb;
	uint64_t left = len;
	loff_t pos = (loff_t)off;

	write_behind_init(&wb, fd, off);
	if (r->pipefd[0] < 0 && pipe_open_large(r->pipefd, &r->pipe_size) < 0)
		return -1;
	while (left > 0) {
		size_t want = left < r->pipe_size ? (size_t)left : r->pipe_size;
		ssize_t n;

		if (seal_reader_raw_wait(&r->in) < 0)
			return -1;
		n = splice(r->in.fd, NULL, r->pipefd[1], NULL, want, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return err_errno("cannot read '%s' from the stream", r->path);
		}
		if (n == 0)
			return err_set("stream ended after %llu of %llu bytes of '%s'",
				       (unsigned long long)(len - left), (unsigned long long)len, r->path);
		if (seal_reader_raw_took(&r->in, (uint64_t)n) < 0)
			return -1;
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
	int fd = beneath_open(r->dirfd, r->path, O_PATH | O_CLOEXEC, 0), rc;

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
 * mode again once open (frames_write_sync's fchmod): every range ends with
 * the record's mode in place, whichever finishes last.
 */
static int open_range(struct receiver *r, uint64_t flags, mode_t mode)
{
	for (int tries = 0;; tries++) {
		int fd = beneath_open(r->dirfd, r->path, flags, mode);

		if (fd >= 0 || errno != EACCES || (mode & S_IWUSR) || tries == 100)
			return fd;
		if (chmod_beneath(r, mode | S_IWUSR) < 0)
			return -1;
	}
}

int frames_write_sync(struct receiver *r, const struct frame *f, mode_t mode, int chmod_needed)
{
	uint64_t flags = O_WRONLY | O_CREAT | O_CLOEXEC | (f->type == FRAME_FILE ? O_EXCL : 0);
	int fd, rc = 0;

	if (f->type == FRAME_RANGE && !(mode & S_IWUSR)) {
		fd = open_range(r, flags, mode);
		chmod_needed = 1;
	} else {
		fd = beneath_open(r->dirfd, r->path, flags, mode);
	}
	if (fd < 0)
		return err_errno("cannot create '%s/%s'", r->dest, r->path);
	if (chmod_needed && fchmod(fd, mode) < 0)
		rc = err_errno("cannot set the mode of '%s/%s'", r->dest, r->path);
	if (rc == 0 && f->length > FRAME_RAW_MIN)
		rc = splice_raw(r, fd, f->offset, f->length);
	else if (rc == 0)
		rc = write_from_stream(r, fd, f->offset, f->length);
	if (close(fd) < 0 && rc == 0)
		rc = err_errno("cannot close '%s/%s'", r->dest, r->path);
	if (rc == 0) {
		r->files_done++;
		r->bytes_done += f->length;
	}
	return rc;
}
