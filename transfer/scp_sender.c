/*
 * The `scp` strategy's sender. It models `scp -r` as OpenSSH 9 runs it: over
 * SFTP, not the legacy SCP protocol. Since OpenSSH 9.0, scp speaks SFTP by
 * default and the old rcp-style protocol (`scp -t` on the far side) is
 * only used with `scp -O`; a person who types `scp -r` today gets SFTP, so
 * that is what this measures. The legacy mode is modeled elsewhere.
 *
 * Per file, as OpenSSH 9.2's scp sends it (Debian 12's `scp -r` against
 * `sftp-server -l DEBUG3` logs open flags WRITE,CREATE, write, fsetstat,
 * close for every file): open (create, no truncate), writes, a set-size to
 * the length written, close, each request waiting for its reply, because
 * libssh 0.10 has no asynchronous write. That is what makes scp slow on
 * small files: four round trips each. libssh 0.10 has no fsetstat, so the
 * set-size goes by path (one round trip either way). OpenSSH's own scp keeps
 * many writes of one file in flight, so on large files this model is slower
 * than the real tool: 1.17x its time on 4 GiB in docs/BENCHMARKS.md. On small
 * files both send the same requests.
 */
#define _GNU_SOURCE
#include "scp_sender.h"

#include "err.h"
#include "fsutil.h"
#include "pathcheck.h"

#include <libssh/sftp.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct scp_ctx {
	ssh_session ssh;
	sftp_session sftp;
	const char *src_root;
	const char *dest;
	int rootfd;
	char *buf;			/* SCP_WRITE_MAX bytes */
	char made[PATH_MAX];		/* the last directory made, relative ("" = dest itself) */
	struct send_stats *st;
	bool drop_cache;		/* drop each file's pages once read */
};

/*
 * SFTP request sizes (draft-ietf-secsh-filexfer-02): uint32 length, byte
 * type, uint32 id, then the fields. libssh sends open and mkdir with one
 * attribute, the permissions (uint32 flags + uint32 mode).
 */
#define SFTP_HEADER (4 + 1 + 4)
#define SFTP_ATTR_PERMS (4 + 4)
#define SFTP_ATTR_SIZE (4 + 8)

static const char *sftp_status_text(int code)
{
	switch (code) {
	case SSH_FX_EOF:
		return "end of file";
	case SSH_FX_NO_SUCH_FILE:
		return "no such file or directory";
	case SSH_FX_PERMISSION_DENIED:
		return "permission denied";
	case SSH_FX_FAILURE:
		return "failure";
	case SSH_FX_BAD_MESSAGE:
		return "bad message";
	case SSH_FX_NO_CONNECTION:
		return "no connection";
	case SSH_FX_CONNECTION_LOST:
		return "connection lost";
	case SSH_FX_OP_UNSUPPORTED:
		return "operation unsupported";
	case SSH_FX_INVALID_HANDLE:
		return "invalid handle";
	case SSH_FX_NO_SUCH_PATH:
		return "no such path";
	case SSH_FX_FILE_ALREADY_EXISTS:
		return "file already exists";
	case SSH_FX_WRITE_PROTECT:
		return "write protected";
	case SSH_FX_NO_MEDIA:
		return "no media";
	default:
		return NULL;
	}
}

/*
 * The error for a failed request on remote path: the SFTP status, or, when
 * there is none (SSH_FX_OK: the failure was below SFTP), libssh's message.
 */
static int sftp_fail(struct scp_ctx *c, const char *what, const char *path)
{
	int code = sftp_get_error(c->sftp);
	const char *text = sftp_status_text(code);
	char e[512];
	size_t n;

	snprintf(e, sizeof(e), "%s", ssh_get_error(c->ssh));
	n = strlen(e);
	while (n > 0 && (e[n - 1] == '\n' || e[n - 1] == ' '))
		e[--n] = '\0';
	/* A dead session or sftp-server leaves the last status in place: it would mislead. */
	if (!ssh_is_connected(c->ssh) || ssh_channel_is_closed(c->sftp->channel))
		return err_set("%s remote '%s': the sftp session ended (sftp-server exited or the "
			       "connection broke): %s",
			       what, path, n ? e : "no reason given");
	if (text)
		return err_set("%s remote '%s': sftp: %s (status %d)", what, path, text, code);
	if (code == SSH_FX_OK)
		return err_set("%s remote '%s': %s", what, path, n ? e : "the sftp session failed");
	return err_set("%s remote '%s': sftp status %d", what, path, code);
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

static int remote_mkdir(struct scp_ctx *c, const char *path)
{
	c->st->round_trips++;
	c->st->wire_bytes += SFTP_HEADER + 4 + strlen(path) + SFTP_ATTR_PERMS;
	if (sftp_mkdir(c->sftp, path, 0755) == 0)
		return 0;
	/*
	 * OpenSSH's sftp-server answers EEXIST with a plain "failure"; libssh
	 * then asks lstat (one more round trip) and reports "already exists".
	 */
	if (sftp_get_error(c->sftp) == SSH_FX_FILE_ALREADY_EXISTS) {
		c->st->round_trips++;
		c->st->wire_bytes += SFTP_HEADER + 4 + strlen(path);
		return 0;
	}
	return sftp_fail(c, "cannot create directory", path);
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

/* Writes the open fd's content to f; returns the byte count or -1 (error set). */
static long long copy_content(struct scp_ctx *c, const struct manifest_entry *e, int fd,
			      sftp_file f, const char *remote)
{
	size_t hlen = ssh_string_len(f->handle);
	uint64_t total = 0;

	for (;;) {
		ssize_t n = read(fd, c->buf, SCP_WRITE_MAX);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return err_errno("cannot read '%s/%s'", c->src_root, e->path);
		if (n == 0)
			break;
		total += (uint64_t)n;
		if (total > e->size)
			return size_error(c, e, total, 1);
		c->st->round_trips++;
		c->st->wire_bytes += SFTP_HEADER + 4 + hlen + 8 + 4 + (uint64_t)n;
		if (sftp_write(f, c->buf, (size_t)n) != n)
			return sftp_fail(c, "cannot write to", remote);
	}
	return (long long)total;
}

/* The set-size request scp sends after the writes. Returns 0 or -1 (error set). */
static int set_size(struct scp_ctx *c, const char *remote, uint64_t size)
{
	struct sftp_attributes_struct attr = {
		.flags = SSH_FILEXFER_ATTR_SIZE,
		.size = size,
	};

	c->st->round_trips++;
	c->st->wire_bytes += SFTP_HEADER + 4 + strlen(remote) + SFTP_ATTR_SIZE;
	if (sftp_setstat(c->sftp, remote, &attr) < 0)
		return sftp_fail(c, "cannot set the size of", remote);
	return 0;
}

static int send_file(struct scp_ctx *c, const struct manifest_entry *e)
{
	char remote[PATH_MAX];
	sftp_file f;
	long long got;
	int fd, rc = -1;

	if (remote_path(c, remote, sizeof(remote), e->path, strlen(e->path)) < 0)
		return -1;
	fd = openat(c->rootfd, e->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return err_errno("cannot open '%s/%s'", c->src_root, e->path);
	c->st->round_trips++;
	c->st->wire_bytes += SFTP_HEADER + 4 + strlen(remote) + 4 + SFTP_ATTR_PERMS;
	f = sftp_open(c->sftp, remote, O_WRONLY | O_CREAT, (mode_t)(e->mode & 07777));
	if (!f) {
		sftp_fail(c, "cannot create", remote);
		goto out;
	}
	got = copy_content(c, e, fd, f, remote);
	if (got >= 0 && set_size(c, remote, (uint64_t)got) < 0)
		got = -1;
	c->st->round_trips++;
	c->st->wire_bytes += SFTP_HEADER + 4 + ssh_string_len(f->handle);
	if (sftp_close(f) != SSH_NO_ERROR) {
		/* a failed close loses data the server had buffered: the file is not there */
		if (got >= 0)
			sftp_fail(c, "cannot close", remote);
		goto out;
	}
	if (got < 0)
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
		.ssh = s, .src_root = src_root, .dest = remote_dest, .st = st, .drop_cache = drop_cache,
	};
	char e[512];
	int rc = -1;

	memset(st, 0, sizeof(*st));
	c.rootfd = open(src_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c.rootfd < 0)
		return err_errno("cannot open source directory '%s'", src_root);
	c.buf = malloc(SCP_WRITE_MAX);
	if (!c.buf) {
		err_set("out of memory for the scp buffer");
		goto out;
	}
	c.sftp = sftp_new(s);
	if (!c.sftp) {
		snprintf(e, sizeof(e), "%s", ssh_get_error(s));
		err_set("cannot open an sftp channel: %s", e);
		goto out;
	}
	if (sftp_init(c.sftp) != SSH_OK) {
		snprintf(e, sizeof(e), "%s", ssh_get_error(s));
		err_set("cannot start sftp on the host (does its sshd_config have a 'Subsystem sftp' "
			"line?): %s",
			e);
		goto out;
	}
	if (remote_mkdir(&c, remote_dest) < 0)
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
	if (c.sftp)
		sftp_free(c.sftp);
	free(c.buf);
	close(c.rootfd);
	return rc;
}
