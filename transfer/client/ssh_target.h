#ifndef XFERCMP_SSH_TARGET_H
#define XFERCMP_SSH_TARGET_H

/*
 * A destination reached over SSH with nothing installed there by hand: the
 * SSH session the SSH strategies use, and the agent this module starts on
 * the host through an exec channel (uploading xfercmp-agent over SFTP when
 * the host lacks a matching xfercmp). The agent lives as long as that
 * channel: when we exit, are killed, or lose the connection, sshd closes
 * the agent's stdin and the agent removes its scratch directory and exits.
 */

#include "ssh/ssh_conn.h"
#include "ssh/ssh_exec.h"
#include "stream/agent_startup.h"
#include "stream/wire.h"
#include "stream/wire_auth.h"

struct ssh_target_opts {
	struct ssh_conn_opts conn;
	const char *remote_dir;	/* where the agent makes its scratch root; NULL = /var/tmp */
};

/* The longest scratch parent on the host (--remote-dir), in bytes. */
#define SSH_TARGET_ROOT_MAX 511

struct ssh_target {
	ssh_session session;
	struct ssh_exec agent;	/* the agent's exec channel */
	int agent_running;
	char agent_host[256];	/* where its TCP port is reached */
	char agent_port[16];
	char token[WIRE_TOKEN_HEX + 1];
	char remote_parent[SSH_TARGET_ROOT_MAX + 1];	/* the agent makes its root in it */
	char session_id[WIRE_SESSION_ID_HEX + 1];	/* in the marker of that root */
	char agent_root[SSH_TARGET_ROOT_MAX + 32];	/* that root, once the agent named it; "" before */
	char remote_arch[64];
	char agent_command[600];/* the agent binary that runs on the host */
	char agent_sha256[65];	/* an uploaded agent's SHA-256, checked before it starts; "" for the host's own */
	int uploaded;		/* 1 when xfercmp-agent was uploaded this time */
	int has_zstd;		/* the host has the zstd program */
	int has_tar;
	int has_rsync, has_scp;	/* the reference tools' programs on the host */
	long remote_uid;	/* the user we log in as on the host (id -u); -1 unknown */
};

/* Records the root the agent made (its "info"), for the messages about it. */
void ssh_target_set_agent_root(struct ssh_target *t, const char *root);

/* Connects, looks at the host, starts the agent. Returns 0 or -1 (error set). */
int ssh_target_open(struct ssh_target *t, const struct ssh_target_opts *o);

/*
 * Stops the agent (closing its channel) and disconnects. Safe on a zeroed t.
 * An agent that did not end well (killed, or its cleanup failed) has its
 * scratch root removed over the session, marker last, if the marker holds
 * this run's session id. Returns 0, or -1 (error set, naming the root's
 * parent and how to remove it) when the root may be left on the host.
 */
int ssh_target_close(struct ssh_target *t);

/*
 * The shell command that removes this run's scratch root on the host when
 * the agent could not: each PARENT/xfercmp.* that is a directory (not a
 * link) owned by the user running it and holding a marker (a regular file,
 * not a link) whose text is session_id; directories made read-only are
 * opened up first (never through a link), the marker goes last. It prints
 * "removed", "failed" or "absent" (no such root: not ours, or already gone).
 * Returns 0 or -1 (error set) if buf is too small.
 */
int ssh_target_cleanup_command(const char *parent, const char *session_id, char *buf, size_t len);

/*
 * Shell text that removes the scratch root "$r" whose marker is "$m", both
 * checked ours by the caller; its exit status is 0 when the root is gone,
 * for `if ...; then`. find never follows a link (its default, -P), and
 * -type d matches no link; each directory is opened up before find reads
 * it (-exec ... \; runs at once, before find descends): rm -rf alone cannot
 * empty a 0555 directory as a non-root user. The marker goes after the rest
 * went, so a failed removal can be tried again.
 */
#define SSH_TARGET_REMOVE_ROOT_SH                                                              \
	"find \"$r\" -type d ! -perm -u=rwx -exec chmod u+rwx -- {} \\; ; "                      \
	"find \"$r\" -mindepth 1 -maxdepth 1 ! -name " AGENT_ROOT_MARKER " -exec rm -rf -- {} + " \
	"&& rm -f -- \"$m\" && rmdir -- \"$r\""

#endif
