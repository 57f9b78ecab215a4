/*
 * Sender side of the tar strategies: walks the manifest and writes a
 * pax-restricted tar stream with libarchive into a byte sink. The receiving
 * mirror is tar_extract.c (or the host's GNU tar for the SSH strategies).
 *
 * The tree is walked by hand (openat + fstat + read relative to one
 * directory fd) rather than with archive_read_disk, which costs an extra
 * open, ACL, xattr and FIEMAP look-ups per file.
 */
#include "stream/tar_stream.h"

#include "clock.h"
#include "err.h"
#include "sent_progress.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define TAR_CHUNK (1u << 20)	/* read size, and libarchive's output block */

static int fd_sink_write(void *ctx, const void *buf, size_t len)
{
	int fd = *(int *)ctx;
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				struct pollfd pfd = { .fd = fd, .events = POLLOUT };

				/* An error or hang-up shows in the next write. */
				if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
					return err_errno("cannot wait to write to the stream");
				continue;
			}
			return err_errno("cannot write to the stream");
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int fd_sink_close(void *ctx)
{
	int *fd = ctx;

	if (shutdown(*fd, SHUT_WR) == 0)
		return 0;
	if (errno != ENOTSOCK)
		return err_errno("cannot end the stream");
	/* Linux releases the fd even when close fails. */
	if (close(*fd) < 0) {
		*fd = -1;
		return err_errno("cannot close the stream");
	}
	*fd = -1;
	return 0;
}

void byte_sink_fd(struct byte_sink *s, int *fd)
{
	s->write = fd_sink_write;
	s->close = fd_sink_close;
	s->ctx = fd;
}

struct tar_writer {
	struct archive *a;
	struct archive_entry *e;
	struct byte_sink *out;
	struct send_stats *st;
	clock_ns handed_ns;	/* time spent in out->write: the next stage taking the bytes */
	const struct manifest *m;
	bool drop_cache;	/* drop each file's pages once read */
	const char *root_name;
	int root;
	int failed;	/* refuse all output: the stream must not get its end marker */
	char *buf;
	/*
	 * Per inode group (indexed like m->entries), the name it went out
	 * under first: the others become hard-link entries to it. NULL when
	 * the manifest has no hard links.
	 */
	const char **sent_as;
	/* The directory of the previous node ("" for the root); its entries are out. */
	char dir[PATH_MAX];
	size_t dirlen;
};

static la_ssize_t tar_writer_sink_write(struct archive *a, void *ctx, const void *buf, size_t len)
{
	struct tar_writer *w = ctx;
	clock_ns t;

	if (w->failed) {
		archive_set_error(a, ECANCELED, "the stream has failed");
		return -1;
	}
	t = clock_now();
	if (w->out->write(w->out->ctx, buf, len) < 0) {
		archive_set_error(a, EIO, "%s", err_msg());
		return -1;
	}
	w->handed_ns += clock_now() - t;
	w->st->wire_bytes += len;
	return (la_ssize_t)len;
}

static int tar_writer_sink_close(struct archive *a, void *ctx)
{
	struct tar_writer *w = ctx;
	clock_ns t;

	if (w->failed)
		return ARCHIVE_OK;
	t = clock_now();
	if (w->out->close(w->out->ctx) < 0) {
		archive_set_error(a, EIO, "%s", err_msg());
		return ARCHIVE_FATAL;
	}
	w->handed_ns += clock_now() - t;
	return ARCHIVE_OK;
}

/* Sets the error "tar stream: what[ 'name']: libarchive's message"; returns -1. */
static int tar_writer_error(struct tar_writer *w, const char *what, const char *name)
{
	const char *msg = archive_error_string(w->a);

	if (!msg)
		msg = "unknown libarchive error";
	if (name)
		return err_set("tar stream: %s '%s': %s", what, name, msg);
	return err_set("tar stream: %s: %s", what, msg);
}

/*
 * archive_write_header's answer as 0 (written) or -1. ARCHIVE_WARN is
 * written too: in the C locale (ours) the pax writer cannot convert a name
 * byte >= 0x80 to UTF-8, so it writes the name as its bytes with
 * hdrcharset=BINARY in that entry's extended header and warns; GNU tar and
 * libarchive read such a name back as the same bytes.
 */
static int header_written(int r)
{
	return r == ARCHIVE_OK || r == ARCHIVE_WARN ? 0 : -1;
}

/* Writes w->e's header; returns 0 or -1 (error set naming path). */
static int tar_writer_header(struct tar_writer *w, const char *path)
{
	if (header_written(archive_write_header(w->a, w->e)) < 0)
		return tar_writer_error(w, "cannot write the entry of", path);
	return 0;
}

/*
 * Writes a directory entry for w->dir cut at len bytes, with the mode and
 * mtime the manifest gives it; a directory the manifest does not list (a
 * generated workload's, or a version-1 manifest's) goes out 0755 with its
 * own mtime, as before the manifest described directories.
 */
static int tar_writer_dir(struct tar_writer *w, size_t len)
{
	char saved = w->dir[len];
	const struct manifest_dir *md;
	struct stat sb;
	int r = -1;

	w->dir[len] = '\0';
	if (fstatat(w->root, w->dir, &sb, AT_SYMLINK_NOFOLLOW) < 0) {
		err_errno("cannot stat '%s/%s'", w->root_name, w->dir);
		goto out;
	}
	if (!S_ISDIR(sb.st_mode)) {
		err_set("'%s/%s' is not a directory", w->root_name, w->dir);
		goto out;
	}
	md = manifest_find_dir(w->m, w->dir);
	archive_entry_clear(w->e);
	archive_entry_copy_stat(w->e, &sb);
	archive_entry_set_perm(w->e, md ? md->mode : 0755);
	if (md && md->mtime != MANIFEST_NO_MTIME)
		archive_entry_set_mtime(w->e, md->mtime, 0);
	archive_entry_copy_pathname(w->e, w->dir);
	r = tar_writer_header(w, w->dir);
out:
	w->dir[len] = saved;
	return r;
}

/*
 * Makes dir (len bytes of it) the current directory: writes entries for
 * the directories of it that the previous node's directory did not share.
 * The nodes come in bytewise path order, which keeps each directory's
 * subtree together (every path starting "D/" is in one run), so a
 * directory is entered once, its entry comes before everything in it and
 * nothing comes into it after the stream has left it. GNU tar needs that:
 * it applies a directory's mode and mtime as soon as an entry outside it
 * comes, and a 0555 directory re-entered would refuse the file.
 */
static int tar_writer_enter(struct tar_writer *w, const char *dir, size_t len)
{
	size_t i = 0;

	if (len >= sizeof(w->dir))
		return err_set("path '%.*s' is too long", (int)len, dir);
	while (i < len && i < w->dirlen && dir[i] == w->dir[i])
		i++;
	/* Back off to a whole shared component. */
	if (!((i == len || dir[i] == '/') && (i == w->dirlen || w->dir[i] == '/')) && i > 0)
		do
			i--;
		while (i > 0 && dir[i] != '/');
	memcpy(w->dir, dir, len);
	w->dir[len] = '\0';
	w->dirlen = len;
	for (size_t k = i + 1; k <= len; k++)
		if ((k == len || w->dir[k] == '/') && tar_writer_dir(w, k) < 0)
			return -1;
	return 0;
}

/* Enters the directory holding path. */
static int tar_writer_enter_parent(struct tar_writer *w, const char *path)
{
	const char *slash = strrchr(path, '/');

	return tar_writer_enter(w, path, slash ? (size_t)(slash - path) : 0);
}

/* Writes a file's entry and content, read from its name path (of the inode me). */
static int tar_writer_file(struct tar_writer *w, const char *path, const struct manifest_entry *me)
{
	struct stat sb;
	uint64_t left;
	int fd = openat(w->root, path, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return err_errno("cannot open '%s/%s'", w->root_name, path);
	if (fstat(fd, &sb) < 0) {
		err_errno("cannot stat '%s/%s'", w->root_name, path);
		goto fail;
	}
	if (!S_ISREG(sb.st_mode)) {
		err_set("'%s/%s' is no longer a regular file", w->root_name, path);
		goto fail;
	}
	if ((uint64_t)sb.st_size != me->size) {
		err_set("'%s/%s' changed during the run: %llu bytes, the manifest says %llu",
			w->root_name, path, (unsigned long long)sb.st_size,
			(unsigned long long)me->size);
		goto fail;
	}
	archive_entry_clear(w->e);
	archive_entry_copy_stat(w->e, &sb);
	/* Each inode is sent once: the receiver links the other names. */
	archive_entry_set_nlink(w->e, 1);
	archive_entry_copy_pathname(w->e, path);
	if (tar_writer_header(w, path) < 0)
		goto fail;
	for (left = me->size; left > 0;) {
		size_t want = left < TAR_CHUNK ? (size_t)left : TAR_CHUNK;
		ssize_t n = read(fd, w->buf, want);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err_errno("cannot read '%s/%s'", w->root_name, path);
			goto fail;
		}
		if (n == 0) {
			err_set("'%s/%s' changed during the run: shrank below the manifest's %llu bytes",
				w->root_name, path, (unsigned long long)me->size);
			goto fail;
		}
		if (archive_write_data(w->a, w->buf, (size_t)n) != n) {
			tar_writer_error(w, "cannot write the content of", path);
			goto fail;
		}
		left -= (uint64_t)n;
		w->st->bytes_read += (uint64_t)n;
		sent_progress_bytes((uint64_t)n);
	}
	/* Sources are read cold: drop what this file put in the page cache. Advice only. */
	if (w->drop_cache)
		(void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	w->st->files++;
	sent_progress_file();
	return 0;
fail:
	close(fd);
	return -1;
}

/*
 * Writes one name of the inode me: its content the first time the inode
 * comes (whichever of its names that is), a hard-link entry to that name
 * after, carrying the inode's mode and mtime from the manifest.
 */
static int tar_writer_inode(struct tar_writer *w, const char *path, const struct manifest_entry *me)
{
	const char **first = w->sent_as ? &w->sent_as[me - w->m->entries] : NULL;

	if (!first || !*first) {
		if (tar_writer_file(w, path, me) < 0)
			return -1;
		if (first)
			*first = path;
		return 0;
	}
	archive_entry_clear(w->e);
	archive_entry_set_filetype(w->e, AE_IFREG);
	archive_entry_set_perm(w->e, me->mode);
	if (me->mtime != MANIFEST_NO_MTIME)
		archive_entry_set_mtime(w->e, me->mtime, 0);
	archive_entry_set_size(w->e, 0);
	archive_entry_copy_pathname(w->e, path);
	archive_entry_copy_hardlink(w->e, *first);
	return tar_writer_header(w, path);
}

/*
 * Writes a symbolic link with the manifest's text. The link is looked at
 * (lstat, for its mtime and to see it is still a link), never opened or
 * followed.
 */
static int tar_writer_symlink(struct tar_writer *w, const struct manifest_symlink *ms)
{
	struct stat sb;

	if (fstatat(w->root, ms->path, &sb, AT_SYMLINK_NOFOLLOW) < 0)
		return err_errno("cannot stat '%s/%s'", w->root_name, ms->path);
	if (!S_ISLNK(sb.st_mode))
		return err_set("'%s/%s' is no longer a symbolic link", w->root_name, ms->path);
	archive_entry_clear(w->e);
	archive_entry_copy_stat(w->e, &sb);
	archive_entry_set_size(w->e, 0);
	archive_entry_copy_pathname(w->e, ms->path);
	archive_entry_copy_symlink(w->e, ms->target);
	return tar_writer_header(w, ms->path);
}

/*
 * A directory with nothing below it in the manifest is entered at its own
 * place in the order (that writes its entry); any other is entered by the
 * first node below it, which may come later: between "d" and "d/x" come
 * names such as "d.txt" or "d-1", and entering "d" early would leave it and
 * come back.
 */
static int tar_writer_dir_node(struct tar_writer *w, const struct manifest_dir *md)
{
	/* Special files are left out: a directory of only those goes out empty. */
	if (manifest_has_below(w->m, md->path, 0))
		return 0;
	return tar_writer_enter(w, md->path, strlen(md->path));
}

/* The next node in bytewise path order over the four sorted arrays. */
enum node_kind { NODE_FILE, NODE_DIR, NODE_SYMLINK, NODE_HARDLINK, NODE_NONE };

struct node_walk {
	size_t at[NODE_NONE];
};

static const char *node_path(const struct manifest *m, const struct node_walk *nw, enum node_kind k)
{
	switch (k) {
	case NODE_FILE:
		return nw->at[k] < m->count ? m->entries[nw->at[k]].path : NULL;
	case NODE_DIR:
		return nw->at[k] < m->ndirs ? m->dirs[nw->at[k]].path : NULL;
	case NODE_SYMLINK:
		return nw->at[k] < m->nsymlinks ? m->symlinks[nw->at[k]].path : NULL;
	case NODE_HARDLINK:
		return nw->at[k] < m->nhardlinks ? m->hardlinks[nw->at[k]].path : NULL;
	default:
		return NULL;
	}
}

static enum node_kind node_next(const struct manifest *m, const struct node_walk *nw)
{
	enum node_kind best = NODE_NONE;
	const char *best_path = NULL;

	for (enum node_kind k = NODE_FILE; k < NODE_NONE; k++) {
		const char *p = node_path(m, nw, k);

		if (p && (!best_path || strcmp(p, best_path) < 0)) {
			best = k;
			best_path = p;
		}
	}
	return best;
}

/* Writes node k at nw (and the directories it enters). Returns 0 or -1. */
static int tar_writer_node(struct tar_writer *w, const struct node_walk *nw, enum node_kind k)
{
	const struct manifest *m = w->m;
	size_t i = nw->at[k];

	switch (k) {
	case NODE_FILE:
		return tar_writer_enter_parent(w, m->entries[i].path) < 0 ? -1 :
		       tar_writer_inode(w, m->entries[i].path, &m->entries[i]);
	case NODE_DIR:
		return tar_writer_dir_node(w, &m->dirs[i]);
	case NODE_SYMLINK:
		return tar_writer_enter_parent(w, m->symlinks[i].path) < 0 ? -1 :
		       tar_writer_symlink(w, &m->symlinks[i]);
	case NODE_HARDLINK: {
		const struct manifest_entry *me = manifest_find(m, m->hardlinks[i].primary);

		if (!me)
			return err_set("hard link '%s': its file '%s' is not in the manifest",
				       m->hardlinks[i].path, m->hardlinks[i].primary);
		return tar_writer_enter_parent(w, m->hardlinks[i].path) < 0 ? -1 :
		       tar_writer_inode(w, m->hardlinks[i].path, me);
	}
	default:
		return 0;
	}
}

static int tar_writer_tree(struct tar_writer *w)
{
	struct node_walk nw = { { 0 } };
	enum node_kind k;

	if (w->m->nhardlinks && !(w->sent_as = calloc(w->m->count, sizeof(*w->sent_as))))
		return err_set("out of memory starting a tar stream");
	while ((k = node_next(w->m, &nw)) != NODE_NONE) {
		if (tar_writer_node(w, &nw, k) < 0)
			return -1;
		nw.at[k]++;
	}
	return 0;
}

int tar_stream_write(const char *src_root, const struct manifest *m, bool drop_cache,
		     struct byte_sink *out, struct send_stats *st)
{
	struct tar_writer w;
	clock_ns start = clock_now();
	int rc = -1;

	memset(st, 0, sizeof(*st));
	memset(&w, 0, sizeof(w));
	w.out = out;
	w.st = st;
	w.m = m;
	w.drop_cache = drop_cache;
	w.root_name = src_root;
	w.root = open(src_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w.root < 0)
		return err_errno("cannot open '%s'", src_root);
	w.buf = malloc(TAR_CHUNK);
	w.a = archive_write_new();
	w.e = archive_entry_new();
	if (!w.buf || !w.a || !w.e) {
		err_set("out of memory starting a tar stream");
		goto out;
	}
	if (archive_write_set_format_pax_restricted(w.a) != ARCHIVE_OK ||
	    archive_write_set_bytes_per_block(w.a, TAR_CHUNK) != ARCHIVE_OK ||
	    archive_write_set_bytes_in_last_block(w.a, 1) != ARCHIVE_OK ||
	    archive_write_open2(w.a, &w, NULL, tar_writer_sink_write, tar_writer_sink_close,
				NULL) != ARCHIVE_OK) {
		tar_writer_error(&w, "cannot start", NULL);
		goto out;
	}
	if (tar_writer_tree(&w) < 0)
		goto out;
	if (archive_write_close(w.a) != ARCHIVE_OK) {
		tar_writer_error(&w, "cannot finish", NULL);
		goto out;
	}
	/* its own stage: the next ones' pace is theirs (a pipe, a channel, a compressor) */
	st->own_s = clock_seconds(start, clock_now()) - (double)w.handed_ns / 1e9;
	rc = 0;
out:
	if (w.a) {
		/*
		 * A failed stream must not get its end marker, which close (or
		 * free) would write: with failed set, nothing more reaches out.
		 * archive_write_fail would do the same, but libarchive 3.6 then
		 * leaks its output block (1 MiB here), which only close frees.
		 */
		if (rc < 0) {
			w.failed = 1;
			archive_write_close(w.a);
		}
		archive_write_free(w.a);
	}
	archive_entry_free(w.e);
	free(w.sent_as);
	free(w.buf);
	close(w.root);
	return rc;
}
