#define _GNU_SOURCE
#include "client/ssh_target.h"

#include "stream/agent_startup.h"
#include "err.h"
#include "netaddr.h"
#include "tree.h"
#include "version.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <libssh/sftp.h>
#include <openssl/evp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define DISCOVER_TIMEOUT_MS 15000
#define AGENT_START_TIMEOUT_MS 20000
#define UPLOAD_CHUNK (255 * 1024)	/* OpenSSH's sftp-server drops writes over 256 KiB */

/* One exec: runs command and reads `lines` lines of its output. */
static int run_lines(ssh_session s, const char *command, char lines[][512], int nlines)
{
	struct ssh_exec x;
	int rc = 0;

	if (ssh_exec_start(s, command, &x) < 0) {
		ssh_exec_release(&x);
		return -1;
	}
	for (int i = 0; i < nlines && rc == 0; i++)
		if (ssh_exec_read_line(&x, lines[i], sizeof(lines[i]), DISCOVER_TIMEOUT_MS) < 0)
			rc = -1;
	if (rc == 0 && ssh_exec_finish(&x, NULL) < 0)
		rc = -1;
	ssh_exec_release(&x);
	return rc;
}

/* What the host has: its architecture, a matching xfercmp, tar, zstd, $HOME. */
static int discover(struct ssh_target *t, char *home, size_t len, int *proto)
{
	static const char script[] =
		"uname -m; "
		"if command -v xfercmp >/dev/null 2>&1; then xfercmp serve --protocol 2>/dev/null || echo 0; else echo 0; fi; "
		"command -v tar >/dev/null 2>&1 && echo tar || echo no-tar; "
		"command -v zstd >/dev/null 2>&1 && echo zstd || echo no-zstd; "
		"echo \"$HOME\"";
	char lines[5][512];

	if (run_lines(t->session, script, lines, 5) < 0)
		return err_wrap("cannot look at the host");
	snprintf(t->remote_arch, sizeof(t->remote_arch), "%.63s", lines[0]);
	*proto = atoi(lines[1]);
	t->has_tar = !strcmp(lines[2], "tar");
	t->has_zstd = !strcmp(lines[3], "zstd");
	snprintf(home, len, "%s", lines[4]);
	return 0;
}

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
 * Where the agent goes on the host: ~/.cache/xfercmp/, under a name with our
 * version, the protocol and the content's hash, so a rebuilt agent never
 * passes for the cached one. buf (UPLOAD_CHUNK bytes) is scratch for hashing.
 */
static int remote_agent_path(const char *local, const char *home, char *buf, char *remote,
			     size_t len)
{
	uint64_t hash, size;

	if (tree_hash_file(local, buf, UPLOAD_CHUNK, 0, &hash, &size) < 0)
		return -1;
	if (snprintf(remote, len, "%s/.cache/xfercmp/xfercmp-agent-%s-p%d-%016llx", home,
		     XFERCMP_VERSION, WIRE_PROTO, (unsigned long long)hash) >= (int)len)
		return err_set("remote path too long under '%s'", home);
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
	if (run_lines(t->session, command, line, 1) < 0)
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
	    ssh_exec_read_line(x, line, sizeof(line), DISCOVER_TIMEOUT_MS) < 0)
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

/* Uploads the agent to ~/.cache/xfercmp/ unless an identical-size copy is there. */
static int upload_agent(struct ssh_target *t, const char *home, char *remote, size_t len)
{
	char local[PATH_MAX], dir[600], tmp[700];
	struct ssh_exec watcher = { 0 };
	sftp_session sftp = NULL;
	struct stat st;
	char *buf = NULL;
	int rc = -1;

	if (local_agent_path(local, sizeof(local)) < 0)
		return -1;
	if (stat(local, &st) < 0)
		return err_errno("cannot read '%s'", local);
	buf = malloc(UPLOAD_CHUNK);
	if (!buf)
		return err_set("out of memory uploading the agent");
	if (remote_agent_path(local, home, buf, remote, len) < 0 ||
	    local_sha256(local, buf, t->agent_sha256) < 0)
		goto out;
	sftp = sftp_new(t->session);
	if (!sftp || sftp_init(sftp) != SSH_OK) {
		err_set("cannot start SFTP on the host to upload the agent: %s", ssh_get_error(t->session));
		goto out;
	}
	snprintf(dir, sizeof(dir), "%s/.cache/xfercmp", home);
	if (host_has_copy(t, sftp, remote, (uint64_t)st.st_size)) {
		/* what an earlier run left there goes all the same */
		prune_agent_cache(sftp, dir, strrchr(remote, '/') + 1);
		rc = 0;
		goto out;
	}
	snprintf(dir, sizeof(dir), "%s/.cache", home);
	sftp_mkdir(sftp, dir, 0700);
	snprintf(dir, sizeof(dir), "%s/.cache/xfercmp", home);
	sftp_mkdir(sftp, dir, 0700);
	snprintf(tmp, sizeof(tmp), "%s.tmp%d", remote, (int)getpid());
	if (tmp_watcher_start(t->session, tmp, &watcher) < 0)
		goto out;
	if (sftp_put_file(sftp, local, tmp, buf) < 0) {
		upload_failed(sftp, dir, tmp, remote, (uint64_t)st.st_size);
		goto out;
	}
	if (sftp_install(sftp, tmp, remote) < 0)
		goto out;
	if (!host_has_copy(t, sftp, remote, (uint64_t)st.st_size)) {
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

/*
 * An agent listening on every address is reached where the SSH connection
 * went: its peer's numeric address (a name could resolve to another
 * family), else the host as configured.
 */
static void ssh_peer_address(ssh_session s, char *host, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t salen = sizeof(ss);
	char *name = NULL;
	socket_t fd = ssh_get_fd(s);

	if (fd != SSH_INVALID_SOCKET && getpeername(fd, (struct sockaddr *)&ss, &salen) == 0 &&
	    net_sockaddr_addr((struct sockaddr *)&ss, host, len) == 0)
		return;
	if (ssh_options_get(s, SSH_OPTIONS_HOST, &name) == SSH_OK && name) {
		snprintf(host, len, "%s", name);
		ssh_string_free_char(name);
	}
}

static int start_agent(struct ssh_target *t, const struct ssh_target_opts *o)
{
	char quoted_agent[700], quoted_root[700], command[3072], line[512], check[1000] = "";
	int rc;

	if (ssh_shell_quote(t->agent_command, quoted_agent, sizeof(quoted_agent)) < 0 ||
	    ssh_shell_quote(t->remote_parent, quoted_root, sizeof(quoted_root)) < 0)
		return -1;
	/*
	 * Listen on the address this SSH connection reached (the third word of
	 * SSH_CONNECTION), so the agent's port is open where we already are
	 * allowed to connect, and nowhere else; and in the family the client
	 * already reaches the host by: an IPv6 address goes in brackets
	 * (netaddr.h). Without SSH_CONNECTION (not sshd), every IPv4 address.
	 */
	/* an uploaded agent starts only if it is still the one checked */
	if (t->agent_sha256[0])
		snprintf(check, sizeof(check),
			 "h=$(sha256sum < %s) && [ \"${h%%%% *}\" = %s ] || "
			 "{ echo 'the agent on the host changed since it was checked: not started' >&2; exit 97; }; ",
			 quoted_agent, t->agent_sha256);
	snprintf(command, sizeof(command),
		 "%sc=${SSH_CONNECTION:-x x 0.0.0.0 x}; set -- $c; "
		 "case $3 in *:*) l=\"[$3]\";; *) l=$3;; esac; "
		 "exec %s serve --listen \"$l:0\" --once --token-file - --root %s",
		 check, quoted_agent, quoted_root);
	(void)o;
	if (ssh_exec_start(t->session, command, &t->agent) < 0)
		return err_wrap("cannot start the agent on the host");
	t->agent_running = 1;
	if (ssh_exec_write(&t->agent, t->token, WIRE_TOKEN_HEX) < 0 || ssh_exec_write(&t->agent, "\n", 1) < 0)
		return err_wrap("cannot hand the agent its token");
	rc = ssh_exec_read_line(&t->agent, line, sizeof(line), AGENT_START_TIMEOUT_MS);
	if (rc < 0)
		return err_wrap("agent did not start on the host");
	if (agent_listening_parse(line, t->agent_host, sizeof(t->agent_host), t->agent_port,
				  sizeof(t->agent_port)) < 0)
		return err_wrap("agent did not start on the host");
	if (!strcmp(t->agent_host, "0.0.0.0") || !strcmp(t->agent_host, "::"))
		ssh_peer_address(t->session, t->agent_host, sizeof(t->agent_host));
	return 0;
}

int ssh_target_open(struct ssh_target *t, const struct ssh_target_opts *o)
{
	char home[512], remote_agent[600];
	struct utsname u;
	int proto = 0;

	memset(t, 0, sizeof(*t));
	if (ssh_conn_open(&o->conn, &t->session) < 0)
		return -1;
	if (discover(t, home, sizeof(home), &proto) < 0)
		goto fail;
	if (!t->has_tar) {
		err_set("host '%s' has no tar: install the tar package there", o->conn.target);
		goto fail;
	}
	if (wire_token_generate(t->token) < 0)
		goto fail;
	{
		unsigned char key[WIRE_KEY_BYTES];

		if (wire_key_from_token(t->token, key) < 0 || wire_session_id(key, t->session_id) < 0)
			goto fail;
		explicit_bzero(key, sizeof(key));
	}
	/* the agent makes its root in it: xfercmp.XXXXXX, 0700 (agent_root.h) */
	snprintf(t->remote_parent, sizeof(t->remote_parent), "%s", o->remote_dir ? o->remote_dir : "/var/tmp");
	uname(&u);
	if (proto == WIRE_PROTO) {
		snprintf(t->agent_command, sizeof(t->agent_command), "xfercmp");
	} else {
		if (strcmp(t->remote_arch, u.machine)) {
			err_set("host '%s' is %s and this machine is %s: install xfercmp %s on the host (the agent is uploaded only to hosts of the same architecture)",
				o->conn.target, t->remote_arch, u.machine, XFERCMP_VERSION);
			goto fail;
		}
		if (upload_agent(t, home, remote_agent, sizeof(remote_agent)) < 0)
			goto fail;
		snprintf(t->agent_command, sizeof(t->agent_command), "%s", remote_agent);
	}
	if (start_agent(t, o) < 0)
		goto fail;
	return 0;
fail: {
	/* closing runs the agent's channel to its end, which sets errors of its own */
	struct err_saved saved;

	err_save(&saved);
	ssh_target_close(t);
	return err_restore(&saved);
}
}

int ssh_target_cleanup_command(const char *parent, const char *session_id, char *buf, size_t len)
{
	char quoted[2 * SSH_TARGET_ROOT_MAX + 16];
	int n;

	if (ssh_shell_quote(parent, quoted, sizeof(quoted)) < 0)
		return -1;
	for (const char *p = session_id; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return err_set("session id '%s' is not hex", session_id);
	/*
	 * Only a root of this run: a directory, not a link, ours (-O), whose
	 * marker is a regular file holding the session id.
	 */
	n = snprintf(buf, len,
		     "p=%s; id=%s; out=absent; "
		     "for r in \"$p\"/" AGENT_ROOT_PREFIX "*; do m=\"$r\"/" AGENT_ROOT_MARKER "; "
		     "if [ -d \"$r\" ] && [ ! -L \"$r\" ] && [ -O \"$r\" ] && [ -f \"$m\" ] && [ ! -L \"$m\" ] && "
		     "[ \"$(cat -- \"$m\")\" = \"$id\" ]; then "
		     "if " SSH_TARGET_REMOVE_ROOT_SH "; then out=removed; else out=failed; break; fi; "
		     "fi; done; echo $out",
		     quoted, session_id);
	if (n < 0 || (size_t)n >= len)
		return err_set("scratch parent path too long: '%s'", parent);
	return 0;
}

/* The agent's root for messages: its path once known, else the pattern in the parent. */
static void ssh_target_root_text(const struct ssh_target *t, char *buf, size_t len)
{
	if (t->agent_root[0])
		snprintf(buf, len, "%s", t->agent_root);
	else
		snprintf(buf, len, "%s/" AGENT_ROOT_PREFIX "XXXXXX", t->remote_parent);
}

/*
 * The agent removes its scratch root when it ends; one that was killed
 * (kill -9, the OOM killer) or failed to could not. Remove it over the SSH
 * session, but only if it still holds the agent's marker: never remove what
 * is not ours. Returns 0 when the root is gone, -1 (error set) otherwise.
 */
static int remove_dead_agents_root(struct ssh_target *t)
{
	char command[2048], line[512] = "";
	struct ssh_exec x;
	int rc;

	if (!t->remote_parent[0])
		return 0;
	if (ssh_target_cleanup_command(t->remote_parent, t->session_id, command, sizeof(command)) < 0)
		return -1;
	rc = ssh_exec_start(t->session, command, &x);
	if (rc == 0 && ssh_exec_read_line(&x, line, sizeof(line), DISCOVER_TIMEOUT_MS) >= 0)
		ssh_exec_finish(&x, NULL);
	ssh_exec_release(&x);
	if (!strcmp(line, "removed") || !strcmp(line, "absent"))
		return 0;
	{
		char root[sizeof(t->agent_root)];

		ssh_target_root_text(t, root, sizeof(root));
		return err_set("scratch root '%s' on the host was not removed%s%s%s: remove it with: chmod -R u+rwx '%s' && rm -rf '%s'",
			       root, rc < 0 ? "" : " (", rc < 0 ? "" : (line[0] ? line : "no answer"),
			       rc < 0 ? "" : ")", root, root);
	}
}

void ssh_target_set_agent_root(struct ssh_target *t, const char *root)
{
	snprintf(t->agent_root, sizeof(t->agent_root), "%s", root);
}

int ssh_target_close(struct ssh_target *t)
{
	int rc = 0;

	if (t->agent_running) {
		int status = -1;

		/* EOF on its stdin tells the agent to clean up and exit */
		ssh_exec_send_eof(&t->agent);
		ssh_exec_finish(&t->agent, &status);
		t->agent_running = 0;
		if (status != 0 && t->session && ssh_is_connected(t->session))
			rc = remove_dead_agents_root(t);
		else if (status != 0)
		{
			/*
			 * The run already failed with the lost connection. The
			 * agent removes its root itself once it notices (within
			 * NET_PEER_TIMEOUT_S), but from here that cannot be
			 * confirmed: say so, and how to remove it by hand.
			 */
			char root[sizeof(t->agent_root)];

			ssh_target_root_text(t, root, sizeof(root));
			rc = err_set("cannot confirm the cleanup: the connection is gone; the agent removes its scratch root '%s' itself once it notices, or remove it with: chmod -R u+rwx '%s' && rm -rf '%s'",
				     root, root, root);
		}
	}
	ssh_exec_release(&t->agent);
	if (t->session) {
		ssh_conn_close(t->session);
		t->session = NULL;
	}
	return rc;
}
