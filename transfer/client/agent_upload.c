/*
 * Getting the agent onto the host (agent_upload.h): ~/.cache/xfercmp/ made
 * or fixed 0700 and checked to be the user's own, a copy of the right
 * SHA-256 reused, else an upload over SFTP through a temporary name that a
 * watcher on the host removes if the upload is cut off. A copy found ready
 * by the command that looks at the host (agent_cache_ready) needs none of it.
 */
#define _GNU_SOURCE
#include "client/agent_upload.h"

#include "err.h"
#include "tree.h"
#include "version.h"

#include <fcntl.h>
#include <libgen.h>
#include <libssh/sftp.h>
#include <limits.h>
#include <stdbool.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define UPLOAD_TIMEOUT_MS 15000
#define UPLOAD_CHUNK (255 * 1024)	/* OpenSSH's sftp-server drops writes over 256 KiB */

/*
 * The static agent built beside this binary; failing that (a sanitizer
 * build), this very binary, which then needs our shared libraries on the host.
 */
static int local_agent_path(char *buf, size_t len)
{
	char self[PATH_MAX], dir[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n < 0)
		return err_errno("cannot find this program's path");
	self[n] = '\0';
	snprintf(dir, sizeof(dir), "%s", self);
	if (snprintf(buf, len, "%s/xfercmp-agent", dirname(dir)) >= (int)len)
		return err_set("path too long");
	if (access(buf, R_OK) == 0)
		return 0;
	if (snprintf(buf, len, "%s", self) >= (int)len)
		return err_set("path too long");
	return 0;
}

static int sftp_err(sftp_session sftp, const char *what, const char *path)
{
	return err_set("cannot %s '%s' on the host: %s (SFTP error %d)", what, path,
		       ssh_get_error(sftp->session), sftp_get_error(sftp));
}

/*
 * The agent's name on the host, in ~/.cache/xfercmp/: our version, the
 * protocol and the content's hash, so a rebuilt agent never passes for the
 * cached one. buf (UPLOAD_CHUNK bytes) is scratch for hashing.
 */
static int agent_name(const char *local, char *buf, char *name, size_t len)
{
	uint64_t hash, size;

	if (tree_hash_file(local, buf, UPLOAD_CHUNK, 0, &hash, &size) < 0)
		return -1;
	if (snprintf(name, len, "xfercmp-agent-%s-p%d-%016llx", XFERCMP_VERSION, WIRE_PROTO,
		     (unsigned long long)hash) >= (int)len)
		return err_set("the agent's name is too long");
	return 0;
}

/* The SHA-256 of the local file, in hex (OpenSSL's EVP digest). buf: UPLOAD_CHUNK bytes of scratch. */
static int local_sha256(const char *path, char *buf, char hex[65])
{
	static const char digits[] = "0123456789abcdef";
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok;
	ssize_t n = 0;

	ok = ctx && fd >= 0 && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) > 0;
	while (ok && (n = read(fd, buf, UPLOAD_CHUNK)) > 0)
		ok = EVP_DigestUpdate(ctx, buf, (size_t)n) > 0;
	ok = ok && n == 0 && EVP_DigestFinal_ex(ctx, md, &mdlen) > 0 && mdlen == 32;
	EVP_MD_CTX_free(ctx);
	if (fd >= 0)
		close(fd);
	if (!ok)
		return err_errno("cannot hash '%s'", path);
	for (unsigned i = 0; i < mdlen; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 15];
	}
	hex[64] = '\0';
	return 0;
}

/* The host's sha256sum of path, in out ("" when it has none or cannot read it). */
static int host_sha256(struct ssh_target *t, const char *path, char out[65])
{
	char quoted[1400], command[1500], line[1][512];

	if (ssh_shell_quote(path, quoted, sizeof(quoted)) < 0)
		return -1;
	snprintf(command, sizeof(command), "sha256sum < %s 2>/dev/null || echo none", quoted);
	if (ssh_exec_lines(t->session, command, line, 1, UPLOAD_TIMEOUT_MS) < 0)
		return err_wrap("cannot check the agent on the host");
	snprintf(out, 65, "%.64s", line[0]);
	return 0;
}

/*
 * Whether the host's copy at path is ours: same size, then same SHA-256 as
 * the host computes it (a copy of the right size but other content, cut
 * short and padded, or altered, is not).
 */
static int host_has_copy(struct ssh_target *t, sftp_session sftp, const char *path, uint64_t size)
{
	sftp_attributes attrs = sftp_stat(sftp, path);
	char theirs[65];
	int same;

	if (!attrs)
		return 0;
	same = attrs->size == size;
	sftp_attributes_free(attrs);
	return same && host_sha256(t, path, theirs) == 0 && !strcmp(theirs, t->agent_sha256);
}

/* How many agents ~/.cache/xfercmp keeps: this one and the newest others. */
#define AGENT_CACHE_KEEP 3
/*
 * A leftover upload (.tmpPID) older than this is from a run that died or
 * lost its link mid-upload (its client could not remove it): even at
 * 1 Mbit/s the 6 MiB agent takes under a minute, so no upload still under
 * way is that old.
 */
#define AGENT_TMP_STALE_S 600

/*
 * Removes older cached agents (all but the AGENT_CACHE_KEEP newest, never
 * keep) and stale temporary uploads from dir. Best effort: what cannot go
 * stays.
 */
static void prune_agent_cache(sftp_session sftp, const char *dir, const char *keep)
{
	struct cached { char name[256]; uint32_t mtime; } list[64];
	size_t n = 0;
	sftp_dir d = sftp_opendir(sftp, dir);
	sftp_attributes a;
	char path[900];
	uint32_t now = (uint32_t)time(NULL);

	if (!d)
		return;
	while ((a = sftp_readdir(sftp, d)) != NULL) {
		if (a->name && !strncmp(a->name, "xfercmp-agent-", 14) &&
		    a->type == SSH_FILEXFER_TYPE_REGULAR) {
			if (strstr(a->name, ".tmp")) {
				if (a->mtime + AGENT_TMP_STALE_S < now &&
				    snprintf(path, sizeof(path), "%s/%s", dir, a->name) < (int)sizeof(path))
					sftp_unlink(sftp, path);
			} else if (n < sizeof(list) / sizeof(list[0]) && strlen(a->name) < sizeof(list[0].name)) {
				snprintf(list[n].name, sizeof(list[n].name), "%s", a->name);
				list[n++].mtime = a->mtime;
			}
		}
		sftp_attributes_free(a);
	}
	sftp_closedir(d);
	/* keep the newest: each pass removes the oldest while too many remain */
	while (n > AGENT_CACHE_KEEP) {
		size_t oldest = n;

		for (size_t i = 0; i < n; i++)
			if (strcmp(list[i].name, keep) && (oldest == n || list[i].mtime < list[oldest].mtime))
				oldest = i;
		if (oldest == n)
			break;
		if (snprintf(path, sizeof(path), "%s/%s", dir, list[oldest].name) < (int)sizeof(path))
			sftp_unlink(sftp, path);
		list[oldest] = list[--n];
	}
}

/* Copies local to path on the host, UPLOAD_CHUNK bytes at a time through buf. */
static int sftp_put_file(sftp_session sftp, const char *local, const char *path, char *buf)
{
	sftp_file f = sftp_open(sftp, path, O_WRONLY | O_CREAT | O_TRUNC, 0700);
	int fd = -1, rc = -1;

	if (!f)
		return sftp_err(sftp, "create", path);
	fd = open(local, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err_errno("cannot read '%s'", local);
		goto out;
	}
	for (;;) {
		ssize_t n = read(fd, buf, UPLOAD_CHUNK);

		if (n < 0) {
			err_errno("cannot read '%s'", local);
			goto out;
		}
		if (n == 0)
			break;
		if (sftp_write(f, buf, (size_t)n) != n) {
			sftp_err(sftp, "write", path);
			goto out;
		}
	}
	rc = sftp_close(f) == SSH_OK ? 0 : sftp_err(sftp, "write", path);
	f = NULL;
out:
	if (f)
		sftp_close(f);
	if (fd >= 0)
		close(fd);
	return rc;
}

/* Makes tmp executable and moves it to remote, over an older copy; removes tmp on failure. */
static int sftp_install(sftp_session sftp, const char *tmp, const char *remote)
{
	sftp_chmod(sftp, tmp, 0700);
	if (sftp_rename(sftp, tmp, remote) == SSH_OK)
		return 0;
	sftp_unlink(sftp, remote);
	if (sftp_rename(sftp, tmp, remote) == SSH_OK)
		return 0;
	sftp_err(sftp, "install", remote);
	sftp_unlink(sftp, tmp);
	return -1;
}

/*
 * After a failed copy to tmp: removes it, so nothing half-written stays
 * behind, and turns the error (SFTP says only "Failure" for a full disk)
 * into one line saying what happened: no room in dir, or the SFTP error;
 * and, when tmp could not be removed either (the connection is gone), that
 * it is left and where. Returns -1.
 */
static int upload_failed(sftp_session sftp, const char *dir, const char *tmp, const char *remote,
			 uint64_t size)
{
	char why[ERR_MAX];
	sftp_statvfs_t v;
	int removed = sftp_unlink(sftp, tmp) == SSH_OK;

	snprintf(why, sizeof(why), "%s", err_msg());
	v = removed ? sftp_statvfs(sftp, dir) : NULL;
	if (v && v->f_bavail * v->f_frsize < size)
		err_set("cannot upload the agent to '%s' on the host: no room in '%s' (%llu KiB free, the agent needs %llu KiB): free some space there, or install xfercmp on the host",
			remote, dir, (unsigned long long)(v->f_bavail * v->f_frsize >> 10),
			(unsigned long long)((size + 1023) >> 10));
	else if (removed)
		err_set("cannot upload the agent to '%s' on the host: %s", remote, why);
	else
		err_set("cannot upload the agent to '%s' on the host: %s; its partial copy '%s' goes when the host's sshd sees this connection end (else a run 10 minutes from now removes it)",
			remote, why, tmp);
	if (v)
		sftp_statvfs_free(v);
	return -1;
}

/*
 * A watcher on the host for the upload's temporary copy: a shell that waits
 * for its stdin to end, then removes tmp. Its stdin ends when the client
 * ends it (tmp_watcher_end, after the copy was moved into place or removed:
 * nothing left to remove) or when the SSH connection ends without that (the
 * client killed in the middle of the upload, or a cut link once sshd learns
 * of it): sftp-server keeps what it had written, this removes it. Started
 * before tmp is created, so it is in place first. Returns 0 with x running,
 * or -1 (error set); x is released by tmp_watcher_end either way.
 */
static int tmp_watcher_start(ssh_session s, const char *tmp, struct ssh_exec *x)
{
	char quoted[1400], command[1500], line[16];

	if (ssh_shell_quote(tmp, quoted, sizeof(quoted)) < 0)
		return -1;
	snprintf(command, sizeof(command), "echo watching; cat >/dev/null; rm -f %s", quoted);
	if (ssh_exec_start(s, command, x) < 0 ||
	    ssh_exec_read_line(x, line, sizeof(line), UPLOAD_TIMEOUT_MS) < 0)
		return err_wrap("cannot watch the agent's upload on the host");
	return 0;
}

/* Ends the watcher (best effort, the error of the upload kept) and releases x. */
static void tmp_watcher_end(struct ssh_exec *x)
{
	struct err_saved saved;

	err_save(&saved);
	if (x->ch)
		ssh_exec_finish(x, NULL);
	ssh_exec_release(x);
	err_restore(&saved);
}

/* The mode bits a cache directory may not have: private (~/.cache/xfercmp), none for group and others; else (~/.cache) no writing by them. */
static unsigned refused_modes(int private)
{
	return private ? 077u : 022u;
}

/*
 * Makes dir (one level, 0700) if missing and checks what is there: a real
 * directory (not a link), owned by the host user we log in as (uid), that no
 * one else may write into; one made 0755 by an older xfercmp, or by the
 * umask, is made 0700. private: group and others may not even read it
 * (~/.cache/xfercmp, where the agent that will hold the session's key
 * lives); else they may read and search it, as ~/.cache often allows.
 * Returns 0 or -1 (error set, naming the directory and what to do).
 */
static int own_dir(sftp_session sftp, const char *dir, long uid, int private)
{
	sftp_attributes a;
	int rc = 0;

	sftp_mkdir(sftp, dir, 0700);
	a = sftp_lstat(sftp, dir);
	if (!a)
		return sftp_err(sftp, "look at", dir);
	if (a->type != SSH_FILEXFER_TYPE_DIRECTORY)
		rc = err_set("'%s' on the host is not a directory (a symbolic link, or a file): the agent is kept there; remove it and run again",
			     dir);
	else if (uid >= 0 && (long)a->uid != uid)
		rc = err_set("'%s' on the host belongs to uid %lu, not to you (uid %ld): whoever owns it could change the agent kept there; remove it and run again",
			     dir, (unsigned long)a->uid, uid);
	else if ((a->permissions & refused_modes(private)) &&
		 sftp_chmod(sftp, dir, (mode_t)((a->permissions & 07777) & ~refused_modes(private))) < 0)
		rc = err_set("'%s' on the host may be %s by other users and cannot be made %s: %s",
			     dir, private ? "read or written" : "written", private ? "0700" : "theirs no more",
			     ssh_get_error(sftp->session));
	sftp_attributes_free(a);
	return rc;
}

int agent_local_init(struct agent_local *l)
{
	struct stat st;
	char *buf;
	int rc;

	memset(l, 0, sizeof(*l));
	if (local_agent_path(l->path, sizeof(l->path)) < 0)
		return -1;
	if (stat(l->path, &st) < 0)
		return err_errno("cannot read '%s'", l->path);
	l->size = (uint64_t)st.st_size;
	buf = malloc(UPLOAD_CHUNK);
	if (!buf)
		return err_set("out of memory hashing the agent");
	rc = agent_name(l->path, buf, l->name, sizeof(l->name)) < 0 ||
	     local_sha256(l->path, buf, l->sha256) < 0 ? -1 : 0;
	free(buf);
	return rc;
}

int agent_cache_script(const struct agent_local *l, char *buf, size_t len)
{
	/* the name is ours: version digits and dots, the protocol, hex; nothing to quote */
	if (snprintf(buf, len,
		     "c=\"$HOME/.cache\"; "
		     "for p in \"$c\" \"$c/xfercmp\"; do stat -c '%%F|%%u|%%a' -- \"$p\" 2>/dev/null || echo missing; done; "
		     "sha256sum < \"$c/xfercmp/%s\" 2>/dev/null || echo none; "
		     "n=0; k=0; for x in \"$c\"/xfercmp/xfercmp-agent-*; do [ -e \"$x\" ] || [ -L \"$x\" ] || continue; "
		     "case $x in *.tmp*) k=$((k+1));; *) n=$((n+1));; esac; done; echo \"$n $k\"",
		     l->name) >= (int)len)
		return err_set("the agent cache's check does not fit");
	return 0;
}

/* A line of `stat -c '%F|%u|%a'`: a directory of uid (any when uid < 0) whose mode has none of the bits in refused. */
static bool dir_line_ours(const char *line, long uid, unsigned refused)
{
	char *end;
	unsigned long owner, mode;

	if (strncmp(line, "directory|", 10))
		return false;
	owner = strtoul(line + 10, &end, 10);
	if (end == line + 10 || *end != '|')
		return false;
	line = end + 1;
	mode = strtoul(line, &end, 8);
	if (end == line || *end)
		return false;
	return (uid < 0 || (long)owner == uid) && !(mode & refused);
}

bool agent_cache_ready(const struct agent_local *l, char lines[][512], long uid)
{
	unsigned agents, tmps;
	char extra;

	/* ~/.cache no one else may write, ~/.cache/xfercmp no one else may even read (own_dir) */
	if (!dir_line_ours(lines[0], uid, refused_modes(0)) || !dir_line_ours(lines[1], uid, refused_modes(1)))
		return false;
	if (strncmp(lines[2], l->sha256, 64) || (lines[2][64] != ' ' && lines[2][64] != '\0'))
		return false;
	/* nothing the prune would remove: no more agents than it keeps, no upload left over */
	return sscanf(lines[3], "%u %u%c", &agents, &tmps, &extra) == 2 && agents <= AGENT_CACHE_KEEP &&
	       tmps == 0;
}

int agent_use_cached(struct ssh_target *t, const struct agent_local *l, const char *home, char *remote,
		     size_t len)
{
	if (snprintf(remote, len, "%s/.cache/xfercmp/%s", home, l->name) >= (int)len)
		return err_set("remote path too long under '%s'", home);
	snprintf(t->agent_sha256, sizeof(t->agent_sha256), "%s", l->sha256);
	return 0;
}

int agent_upload(struct ssh_target *t, const struct agent_local *l, const char *home, char *remote,
		 size_t len)
{
	char dir[600], tmp[700];
	const char *local = l->path;
	struct ssh_exec watcher = { 0 };
	sftp_session sftp = NULL;
	char *buf = NULL;
	int rc = -1;

	if (agent_use_cached(t, l, home, remote, len) < 0)
		return -1;
	buf = malloc(UPLOAD_CHUNK);
	if (!buf)
		return err_set("out of memory uploading the agent");
	sftp = sftp_new(t->session);
	if (!sftp || sftp_init(sftp) != SSH_OK) {
		err_set("cannot start SFTP on the host to upload the agent: %s", ssh_get_error(t->session));
		goto out;
	}
	/* before the cached copy is trusted: the directory it is in must be ours alone */
	snprintf(dir, sizeof(dir), "%s/.cache", home);
	if (own_dir(sftp, dir, t->remote_uid, 0) < 0)
		goto out;
	snprintf(dir, sizeof(dir), "%s/.cache/xfercmp", home);
	if (own_dir(sftp, dir, t->remote_uid, 1) < 0)
		goto out;
	if (host_has_copy(t, sftp, remote, l->size)) {
		/* what an earlier run left there goes all the same */
		prune_agent_cache(sftp, dir, strrchr(remote, '/') + 1);
		rc = 0;
		goto out;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp%d", remote, (int)getpid());
	if (tmp_watcher_start(t->session, tmp, &watcher) < 0)
		goto out;
	if (sftp_put_file(sftp, local, tmp, buf) < 0) {
		upload_failed(sftp, dir, tmp, remote, l->size);
		goto out;
	}
	if (sftp_install(sftp, tmp, remote) < 0)
		goto out;
	if (!host_has_copy(t, sftp, remote, l->size)) {
		sftp_unlink(sftp, remote);
		err_set("the agent uploaded to '%s' on the host does not have this agent's SHA-256 (%s): not started",
			remote, t->agent_sha256);
		goto out;
	}
	t->uploaded = 1;
	prune_agent_cache(sftp, dir, strrchr(remote, '/') + 1);
	rc = 0;
out:
	tmp_watcher_end(&watcher);
	free(buf);
	if (sftp)
		sftp_free(sftp);
	return rc;
}

