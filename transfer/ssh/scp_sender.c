/*
 * The `scp` strategy's sender. It models `scp -r` as OpenSSH 9 runs it: over
 * SFTP, not the legacy SCP protocol. Since OpenSSH 9.0, scp speaks SFTP by
 * default and the old rcp-style protocol (`scp -t` on the far side) is
 * only used with `scp -O`; a person who types `scp -r` today gets SFTP, so
 * that is what this measures. The legacy mode is modeled elsewhere.
 *
 * Per file, as OpenSSH 9.2's scp sends it (Debian 12's `scp -r` against
 * `sftp-server -l DEBUG3` logs open flags WRITE,CREATE, write, fsetstat,
 * close for every file): open (create, no truncate) and wait for the handle;
 * the writes, up to SCP_REQUESTS of them in flight, as OpenSSH's sftp client
 * keeps them; wait for the last; a set-size to the length written; close.
 * Small files thus cost four round trips each, which is what makes scp slow
 * on them. Per directory a mkdir, and a stat when it fails (SFTP has no
 * "already exists" status), as OpenSSH's upload does.
 *
 * The SFTP messages are sent by hand (sftp_conn.c): libssh 0.10's SFTP API
 * waits for the reply to each write, which made this model 1.17x the real
 * scp's time on 4 GiB (docs/BENCHMARKS.md at commit 81d0f8b). They cross a
 * socket pair to a pump thread that owns the channel (channel_pump.c), as
 * the real scp's cross a socket pair to its ssh child.
 */
#define _GNU_SOURCE
#include "ssh/scp_sender.h"

#include "err.h"
#include "fsutil.h"
#include "stream/pathcheck.h"
#include "ssh/sftp_conn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A request other than a write: the largest path plus its fields. */
#define REQUEST_MAX (PATH_MAX + 64)
/* A write: its head with the largest handle, and the data. */
#define WRITE_MAX (SFTP_WRITE_HEAD(SFTP_HANDLE_MAX) + SCP_WRITE_MAX)

struct scp_ctx {
	struct sftp_conn *sftp;
	const char *src_root;
	const char *dest;
	int rootfd;
	uint8_t *tx;			/* one write, WRITE_MAX bytes */
	uint8_t req[REQUEST_MAX];	/* one other request */
	char made[PATH_MAX];		/* the last directory made, relative ("" = dest itself) */
	struct send_stats *st;
	bool drop_cache;		/* drop each file's pages once read */
};

/* A file open on the host. */
struct remote_file {
	const char *path;
	uint8_t handle[SFTP_HANDLE_MAX];
	uint32_t handle_len;
};

/*
 * Sends request id, len bytes in c->req (0: it did not fit), and reads its
 * reply, one round trip. Returns 0 or -1 (error set).
 */
static int call(struct scp_ctx *c, uint32_t id, size_t len, struct sftp_reply *r,
		const char *what, const char *path)
{
	if (len == 0)
		return err_set("%s remote '%s': the request does not fit in %d bytes", what, path,
			       REQUEST_MAX);
	c->st->round_trips++;
	c->st->wire_bytes += len;
	if (sftp_conn_send(c->sftp, c->req, len) < 0 || sftp_conn_recv(c->sftp, r) < 0)
		return err_wrap("%s remote '%s'", what, path);
	if (r->id != id)
		return err_set("%s remote '%s': sftp: the reply is for request %u, not %u", what, path,
			       r->id, id);
	return 0;
}

/* A request whose answer is a status: ok or an error naming the status. */
static int call_status(struct scp_ctx *c, uint32_t id, size_t len, const char *what,
		       const char *path)
{
	struct sftp_reply r;

	if (call(c, id, len, &r, what, path) < 0)
		return -1;
	if (r.type != SFTP_STATUS || r.status != SFTP_OK)
		return sftp_conn_fail(&r, what, path);
	return 0;
}

static int remote_path(struct scp_ctx *c, char *buf, size_t len, const char *rel, size_t rel_len)
{
	char tmp[PATH_MAX];

	if (rel_len >= sizeof(tmp))
		return err_set("path too long: '%.*s'", (int)rel_len, rel);
	memcpy(tmp, rel, rel_len);
	tmp[rel_len] = '\0';
	return fs_join(buf, len, c->dest, tmp);
}

/*
 * mkdir; when it fails, a stat to see whether a directory is there already
 * (OpenSSH's sftp-server answers EEXIST with a plain "failure"), as
 * OpenSSH's upload does.
 */
static int remote_mkdir(struct scp_ctx *c, const char *path)
{
	struct sftp_reply r;
	uint32_t id = sftp_conn_id(c->sftp);
	size_t len = sftp_encode_mkdir(c->req, sizeof(c->req), id, path, 0755);

	if (call(c, id, len, &r, "cannot create directory", path) < 0)
		return -1;
	if (r.type == SFTP_STATUS && r.status == SFTP_OK)
		return 0;
	if (r.type != SFTP_STATUS || r.status != SFTP_FAILURE)
		return sftp_conn_fail(&r, "cannot create directory", path);
	id = sftp_conn_id(c->sftp);
	len = sftp_encode_stat(c->req, sizeof(c->req), id, path);
	if (call(c, id, len, &r, "cannot create directory", path) < 0)
		return -1;
	if (r.type != SFTP_ATTRS)
		return sftp_conn_fail(&r, "cannot create directory", path);
	if (!(r.attr_flags & SFTP_ATTR_PERMISSIONS) || !S_ISDIR(r.permissions))
		return err_set("cannot create directory remote '%s': something other than a "
			       "directory is there",
			       path);
	return 0;
}

/*
 * Makes the directories of rel's parent that the last one made does not
 * cover. Paths come sorted, and the paths under one directory are
 * contiguous in sorted order, so once left a directory is never needed
 * again: only the components beyond the common prefix are new.
 */
static int make_parents(struct scp_ctx *c, const char *rel)
{
	const char *slash = strrchr(rel, '/');
	size_t dlen = slash ? (size_t)(slash - rel) : 0, common = 0, i;
	char path[PATH_MAX];

	if (dlen >= sizeof(c->made))
		return err_set("path too long: '%s'", rel);
	for (i = 0; i < dlen && c->made[i] && c->made[i] == rel[i]; i++)
		if ((c->made[i + 1] == '/' || c->made[i + 1] == '\0') &&
		    (i + 1 == dlen || rel[i + 1] == '/'))
			common = i + 1;
	if (common == dlen && c->made[common] == '\0')
		return 0;
	for (i = common + (common > 0); i <= dlen; i++) {
		if (i < dlen && rel[i] != '/')
			continue;
		if (i == 0)
			continue;
		if (remote_path(c, path, sizeof(path), rel, i) < 0 || remote_mkdir(c, path) < 0)
			return -1;
	}
	memcpy(c->made, rel, dlen);
	c->made[dlen] = '\0';
	return 0;
}

static int size_error(struct scp_ctx *c, const struct manifest_entry *e, uint64_t got,
		      int at_least)
{
	return err_set("'%s/%s' is %s%llu bytes but the manifest says %llu: the source changed "
		       "after the manifest was made",
		       c->src_root, e->path, at_least ? "at least " : "", (unsigned long long)got,
		       (unsigned long long)e->size);
}

static int remote_open(struct scp_ctx *c, struct remote_file *f, uint32_t mode)
{
	struct sftp_reply r;
	uint32_t id = sftp_conn_id(c->sftp);
	size_t len = sftp_encode_open(c->req, sizeof(c->req), id, f->path,
				      SFTP_OPEN_WRITE | SFTP_OPEN_CREATE, mode);

	if (call(c, id, len, &r, "cannot create", f->path) < 0)
		return -1;
	if (r.type != SFTP_HANDLE)
		return sftp_conn_fail(&r, "cannot create", f->path);
	memcpy(f->handle, r.handle, r.handle_len);
	f->handle_len = r.handle_len;
	return 0;
}

/* Waits for the reply to one of the writes [lo, hi) in flight. */
static int write_acked(struct scp_ctx *c, const struct remote_file *f, uint32_t lo, uint32_t hi)
{
	struct sftp_reply r;

	if (sftp_conn_recv(c->sftp, &r) < 0)
		return err_wrap("cannot write to remote '%s'", f->path);
	if (r.type != SFTP_STATUS || r.status != SFTP_OK)
		return sftp_conn_fail(&r, "cannot write to", f->path);
	/* ids do not wrap within a file: 4 billion requests would be 1 PB */
	if (r.id < lo || r.id >= hi)
		return err_set("cannot write to remote '%s': sftp: a reply for request %u, none of "
			       "the writes %u to %u",
			       f->path, r.id, lo, hi - 1);
	return 0;
}

/*
 * Writes the open fd's content to f, up to SCP_REQUESTS writes in flight,
 * and waits for every reply. Returns the byte count or -1 (error set).
 */
static long long copy_content(struct scp_ctx *c, const struct manifest_entry *e, int fd,
			      const struct remote_file *f)
{
	size_t head = SFTP_WRITE_HEAD(f->handle_len);
	uint32_t first = c->sftp->next_id, in_flight = 0;
	uint64_t total = 0;

	for (;;) {
		ssize_t n;
		uint32_t id;

		if (in_flight == SCP_REQUESTS) {
			if (write_acked(c, f, first, c->sftp->next_id) < 0)
				return -1;
			in_flight--;
		}
		n = read(fd, c->tx + head, SCP_WRITE_MAX);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return err_errno("cannot read '%s/%s'", c->src_root, e->path);
		if (n == 0)
			break;
		if (total + (uint64_t)n > e->size)
			return size_error(c, e, total + (uint64_t)n, 1);
		id = sftp_conn_id(c->sftp);
		if (sftp_encode_write(c->tx, head, id, f->handle, f->handle_len, total,
				      (uint32_t)n) != head)
			return err_set("cannot write to remote '%s': the request does not fit",
				       f->path);
		c->st->wire_bytes += head + (uint64_t)n;
		if (sftp_conn_send(c->sftp, c->tx, head + (size_t)n) < 0)
			return err_wrap("cannot write to remote '%s'", f->path);
		in_flight++;
		total += (uint64_t)n;
	}
	/* the writes overlap one another: the file pays one round trip, for the last reply */
	if (in_flight > 0)
		c->st->round_trips++;
	for (; in_flight > 0; in_flight--)
		if (write_acked(c, f, first, c->sftp->next_id) < 0)
			return -1;
	return (long long)total;
}

/* The set-size request scp sends after the writes. Returns 0 or -1 (error set). */
static int set_size(struct scp_ctx *c, const struct remote_file *f, uint64_t size)
{
	uint32_t id = sftp_conn_id(c->sftp);
	size_t len = sftp_encode_fsetstat_size(c->req, sizeof(c->req), id, f->handle,
					       f->handle_len, size);

	return call_status(c, id, len, "cannot set the size of", f->path);
}

static int remote_close(struct scp_ctx *c, const struct remote_file *f)
{
	uint32_t id = sftp_conn_id(c->sftp);
	size_t len = sftp_encode_close(c->req, sizeof(c->req), id, f->handle, f->handle_len);

	return call_status(c, id, len, "cannot close", f->path);
}

static int send_file(struct scp_ctx *c, const struct manifest_entry *e)
{
	char remote[PATH_MAX];
	struct remote_file f = { .path = remote };
	long long got;
	int fd, rc = -1;

	if (remote_path(c, remote, sizeof(remote), e->path, strlen(e->path)) < 0)
		return -1;
	fd = openat(c->rootfd, e->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return err_errno("cannot open '%s/%s'", c->src_root, e->path);
	if (remote_open(c, &f, (uint32_t)(e->mode & 07777)) < 0)
		goto out;
	got = copy_content(c, e, fd, &f);
	/* after a failed write the session is out of step: the error stands, nothing more is sent */
	if (got < 0)
		goto out;
	if (set_size(c, &f, (uint64_t)got) < 0 || remote_close(c, &f) < 0)
		goto out;
	if ((uint64_t)got != e->size) {
		size_error(c, e, (uint64_t)got, 0);
		goto out;
	}
	c->st->files++;
	c->st->bytes_read += (uint64_t)got;
	rc = 0;
out:
	/* sources are read cold: drop this file's pages now that it is read */
	if (c->drop_cache)
		(void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	return rc;
}

int scp_send(ssh_session s, const char *src_root, const struct manifest *m,
	     const char *remote_dest, bool drop_cache, struct send_stats *st)
{
	struct scp_ctx c = {
		.src_root = src_root, .dest = remote_dest, .st = st, .drop_cache = drop_cache,
	};
	int rc = -1;

	memset(st, 0, sizeof(*st));
	c.rootfd = open(src_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c.rootfd < 0)
		return err_errno("cannot open source directory '%s'", src_root);
	c.tx = malloc(WRITE_MAX);
	c.sftp = calloc(1, sizeof(*c.sftp));
	if (!c.tx || !c.sftp) {
		err_set("out of memory for the scp buffers");
		goto out;
	}
	if (sftp_conn_open(c.sftp, s) < 0 || remote_mkdir(&c, remote_dest) < 0)
		goto out;
	for (size_t i = 0; i < m->count; i++) {
		const struct manifest_entry *ent = &m->entries[i];

		if (pathcheck_relative(ent->path, strlen(ent->path)) < 0) {
			err_wrap("manifest entry '%s'", ent->path);
			goto out;
		}
		if (make_parents(&c, ent->path) < 0 || send_file(&c, ent) < 0)
			goto out;
	}
	rc = 0;
out:
	if (c.sftp) {
		sftp_conn_close(c.sftp);
		free(c.sftp);
	}
	free(c.tx);
	close(c.rootfd);
	return rc;
}
