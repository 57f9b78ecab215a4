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
 * Each kind of node as OpenSSH 9.2's upload_dir_internal and do_upload
 * treat it (sftp-client.c; the table in strategy/real_scp.c), walked in
 * tree order (a directory, then all that is below it):
 *  - a directory: mkdir with its mode & 01777 plus u+rwx (so that it can be
 *    filled), then, once all below it is sent, a setstat to its mode & 01777:
 *    empty and read-only directories arrive as they were;
 *  - a regular file: created with its mode & 0777, to which the host's
 *    umask applies (no -p: no setstat of the mode, no times);
 *  - a hard link: one more file with the same content (scp copies each name);
 *  - a symbolic link: followed; one to a regular file is sent as that file
 *    (its content and mode under the link's name), any other (to a
 *    directory, dangling) is what scp refuses, and is not sent;
 *  - a special file: skipped, as scp does.
 * So the model keeps what scp -r keeps: empty directories, directory modes,
 * file modes through the umask; not links, hard links or mtimes.
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
#include "sent_progress.h"
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
	/*
	 * The directories open on the host, outermost first: each made and
	 * waiting for its mode until all below it is sent. Each is a prefix of
	 * the next, so a length (of the relative path) says which.
	 */
	struct open_dir {
		size_t len;
		uint32_t mode;
		bool set_mode;		/* the manifest's mode, set at the end */
	} *open;
	size_t nopen, open_cap;
	char open_path[PATH_MAX];	/* the innermost one's relative path */
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
static int remote_mkdir(struct scp_ctx *c, const char *path, uint32_t mode)
{
	struct sftp_reply r;
	uint32_t id = sftp_conn_id(c->sftp);
	size_t len = sftp_encode_mkdir(c->req, sizeof(c->req), id, path, mode);

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

/* Gives an open directory its mode once all below it is sent: the setstat scp sends. */
static int close_dir(struct scp_ctx *c, const char *rel, const struct open_dir *d)
{
	char path[PATH_MAX];
	uint32_t id;
	size_t len;

	if (!d->set_mode)
		return 0;
	if (remote_path(c, path, sizeof(path), rel, d->len) < 0)
		return -1;
	id = sftp_conn_id(c->sftp);
	len = sftp_encode_setstat_mode(c->req, sizeof(c->req), id, path, d->mode);
	return call_status(c, id, len, "cannot set the mode of", path);
}

/* Makes the directory rel[0..len) and opens it. */
static int open_dir(struct scp_ctx *c, const char *rel, size_t len, uint32_t mode, bool set_mode)
{
	char path[PATH_MAX];

	if (c->nopen == c->open_cap) {
		size_t cap = c->open_cap ? 2 * c->open_cap : 16;
		struct open_dir *v = realloc(c->open, cap * sizeof(*v));

		if (!v)
			return err_set("out of memory for the directories of '%s'", rel);
		c->open = v;
		c->open_cap = cap;
	}
	/* made with u+rwx whatever its mode, so that it can be filled (OpenSSH does so) */
	if (remote_path(c, path, sizeof(path), rel, len) < 0 ||
	    remote_mkdir(c, path, (set_mode ? mode : 0755) | 0700) < 0)
		return -1;
	c->open[c->nopen++] = (struct open_dir){ .len = len, .mode = mode, .set_mode = set_mode };
	memcpy(c->open_path, rel, len);
	c->open_path[len] = '\0';
	return 0;
}

/*
 * Before the node at rel: closes the open directories that are not its
 * parents (their nodes are all sent: tree order), then makes those of its
 * parents not yet made (only for a manifest that does not list them).
 */
static int enter_parents(struct scp_ctx *c, const char *rel)
{
	const char *slash = strrchr(rel, '/');
	size_t dlen = slash ? (size_t)(slash - rel) : 0, i;

	while (c->nopen > 0) {
		const struct open_dir *d = &c->open[c->nopen - 1];

		if (d->len <= dlen && rel[d->len] == '/' && !strncmp(c->open_path, rel, d->len))
			break;
		if (close_dir(c, c->open_path, d) < 0)
			return -1;
		c->nopen--;
	}
	i = c->nopen ? c->open[c->nopen - 1].len + 1 : 0;
	for (; i <= dlen && dlen > 0; i++)
		if ((i == dlen || rel[i] == '/') && open_dir(c, rel, i, 0, false) < 0)
			return -1;
	return 0;
}

static int close_all(struct scp_ctx *c)
{
	for (; c->nopen > 0; c->nopen--)
		if (close_dir(c, c->open_path, &c->open[c->nopen - 1]) < 0)
			return -1;
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
		sent_progress_bytes((uint64_t)n);
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

/*
 * Sends e (its path, size and mode) as one file. follow: open through a
 * symbolic link (a link to a regular file, which scp sends as that file).
 */
static int send_file(struct scp_ctx *c, const struct manifest_entry *e, bool follow)
{
	char remote[PATH_MAX];
	struct remote_file f = { .path = remote };
	long long got;
	int fd, rc = -1;

	if (remote_path(c, remote, sizeof(remote), e->path, strlen(e->path)) < 0)
		return -1;
	fd = openat(c->rootfd, e->path, O_RDONLY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
	if (fd < 0)
		return err_errno("cannot open '%s/%s'", c->src_root, e->path);
	/* OpenSSH's do_upload sends the mode & 0777; the host's umask applies */
	if (remote_open(c, &f, (uint32_t)(e->mode & 0777)) < 0)
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
	sent_progress_file();
	c->st->bytes_read += (uint64_t)got;
	rc = 0;
out:
	/* sources are read cold: drop this file's pages now that it is read */
	if (c->drop_cache)
		(void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	return rc;
}

/* A node of the tree to send, in tree order. */
struct scp_node {
	const char *path;
	char kind;		/* 'f' file, 'h' hard link, 'l' symbolic link, 'd' directory */
	size_t index;		/* into the manifest's array of that kind */
};

int scp_tree_order_cmp(const char *a, const char *b)
{
	const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;

	for (; *x && *x == *y; x++, y++)
		;
	if (*x == *y)
		return 0;
	/* '/' ranks below every other byte (and above the end) */
	return (*x == '/' ? 1 : *x ? *x + 1 : 0) - (*y == '/' ? 1 : *y ? *y + 1 : 0);
}

static int node_cmp(const void *a, const void *b)
{
	return scp_tree_order_cmp(((const struct scp_node *)a)->path,
				  ((const struct scp_node *)b)->path);
}

/* Every node scp walks (special files are not), sorted in tree order; *out malloc'ed. */
static int tree_nodes(const struct manifest *m, struct scp_node **out, size_t *n)
{
	size_t total = m->count + m->nhardlinks + m->nsymlinks + m->ndirs, k = 0;
	struct scp_node *v = malloc((total ? total : 1) * sizeof(*v));

	if (!v)
		return err_set("out of memory for the scp plan");
	for (size_t i = 0; i < m->count; i++)
		v[k++] = (struct scp_node){ m->entries[i].path, 'f', i };
	for (size_t i = 0; i < m->nhardlinks; i++)
		v[k++] = (struct scp_node){ m->hardlinks[i].path, 'h', i };
	for (size_t i = 0; i < m->nsymlinks; i++)
		v[k++] = (struct scp_node){ m->symlinks[i].path, 'l', i };
	for (size_t i = 0; i < m->ndirs; i++)
		v[k++] = (struct scp_node){ m->dirs[i].path, 'd', i };
	qsort(v, k, sizeof(*v), node_cmp);
	*out = v;
	*n = k;
	return 0;
}

/* One node, as scp -r treats its kind (the opening comment). */
static int send_node(struct scp_ctx *c, const struct manifest *m, const struct scp_node *n)
{
	struct manifest_entry e;
	struct stat st;

	switch (n->kind) {
	case 'd':
		return open_dir(c, n->path, strlen(n->path), m->dirs[n->index].mode & 01777, true);
	case 'f':
		return send_file(c, &m->entries[n->index], false);
	case 'h': {
		const struct manifest_entry *p = manifest_find(m, m->hardlinks[n->index].primary);

		if (!p)
			return err_set("manifest: hard link '%s' to '%s', which it does not list",
				       n->path, m->hardlinks[n->index].primary);
		e = *p;
		e.path = m->hardlinks[n->index].path;
		return send_file(c, &e, false);
	}
	default:
		/* scp follows the link: a regular file is sent, anything else refused */
		if (fstatat(c->rootfd, n->path, &st, 0) < 0 || !S_ISREG(st.st_mode))
			return 0;
		e = (struct manifest_entry){ .path = m->symlinks[n->index].path,
					     .size = (uint64_t)st.st_size, .mode = st.st_mode };
		return send_file(c, &e, true);
	}
}

int scp_send(ssh_session s, const char *src_root, const struct manifest *m,
	     const char *remote_dest, bool drop_cache, struct send_stats *st)
{
	struct scp_ctx c = {
		.src_root = src_root, .dest = remote_dest, .st = st, .drop_cache = drop_cache,
	};
	struct scp_node *nodes = NULL;
	size_t nnodes = 0;
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
	if (tree_nodes(m, &nodes, &nnodes) < 0)
		goto out;
	if (sftp_conn_open(c.sftp, s) < 0 || remote_mkdir(&c, remote_dest, 0755) < 0)
		goto out;
	for (size_t i = 0; i < nnodes; i++) {
		const char *p = nodes[i].path;

		if (pathcheck_relative(p, strlen(p)) < 0) {
			err_wrap("manifest entry '%s'", p);
			goto out;
		}
		if (enter_parents(&c, p) < 0 || send_node(&c, m, &nodes[i]) < 0)
			goto out;
	}
	if (close_all(&c) < 0)
		goto out;
	rc = 0;
out:
	if (c.sftp) {
		sftp_conn_close(c.sftp);
		free(c.sftp);
	}
	free(nodes);
	free(c.open);
	free(c.tx);
	close(c.rootfd);
	return rc;
}
