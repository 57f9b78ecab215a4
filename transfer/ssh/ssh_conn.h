#ifndef XFERCMP_SSH_CONN_H
#define XFERCMP_SSH_CONN_H

/*
 * Opening an SSH session the way ssh(1) would for the same command line:
 * the target may be a Host alias of the ssh config, the config's options
 * apply, the host key is checked against the known_hosts files, and public
 * key authentication tries the agent, the configured identities and the
 * default keys. Every failure is an error a person can act on: it names the
 * host, says what went wrong (refused, timed out, unreachable, host key not
 * known or changed, authentication failed) and what to do about it.
 *
 * A session and its channels must never be used from two threads at once;
 * parallel transfers open one session each.
 */

#include <libssh/libssh.h>

struct ssh_conn_opts {
	const char *target;		/* [user@]host[:port] or a config Host alias */
	const char *config_file;	/* like ssh -F; NULL = ~/.ssh/config and /etc/ssh/ssh_config */
	int accept_new_hostkey;		/* 1: a host not in known_hosts is added to it, like
					 * ssh -o StrictHostKeyChecking=accept-new, whatever the
					 * config says; a changed key is refused either way */
	const char *ciphers;		/* comma-separated, both directions; NULL = libssh's default */
	int connect_timeout_s;		/* > 0 overrides the config's ConnectTimeout; 0 = the
					 * config's, else libssh's default (10 s) */
};

/* A target split into its parts: user and port are empty / 0 when not given. */
struct ssh_conn_target {
	char user[256];
	char host[256];		/* a host name, an address (IPv6 without brackets) or an alias */
	unsigned port;
};

/*
 * Splits "[user@]host[:port]" (IPv6 as "[addr]:port"; a bare IPv6 address
 * has no port). Returns 0, or -1 (error set naming the target) when the
 * target is empty, a part is empty or too long, or the port is not 1-65535.
 */
int ssh_conn_parse_target(const char *target, struct ssh_conn_target *t);

/*
 * The config is read as OpenSSH reads it when its ssh is installed (ssh -G,
 * ssh_resolve.h), else by libssh's parser; XFERCMP_SSH_LIBSSH_CONFIG=1 in
 * the environment forces the latter (for tests). A file libssh's parser
 * refuses is left out, with a warning on stderr, rather than failing the
 * host; so is what the config asks and libssh cannot do (ssh_config_gaps.h).
 * A ProxyCommand that has not answered within the connect timeout fails the
 * connection, and the proxy is ended (SIGKILL if SIGTERM did not) and reaped.
 *
 * Connects, checks the host key and authenticates; *out is the session,
 * owned by the caller (ssh_conn_close). The config is applied first and the
 * user and port given in the target override it, as with ssh(1). The host
 * key policy is the config's StrictHostKeyChecking, as OpenSSH reads it:
 * yes and ask (the default: there is nobody to ask) refuse an unknown host,
 * accept-new adds its key to known_hosts, no adds it too and goes on past a
 * changed key with a warning; o->accept_new_hostkey is accept-new whatever
 * the config says. Without OpenSSH's ssh (libssh's parser) the config's
 * value is not known: ask. Under every policy but no, a changed key, or one
 * of another type than the known one, is an error.
 *
 * The connect timeout covers connecting and authenticating only. libssh 0.10
 * applies the session timeout to every blocking call afterwards, and a
 * channel read that times out returns 0 as if at end of file; so the
 * returned session has no timeout: blocking calls wait until the peer
 * answers or the connection breaks. Functions that need a deadline take one.
 * The socket carries the peer timeout of netutil.h, so a cut link or a lost
 * host breaks the connection (and every call waiting on it) within about
 * NET_PEER_TIMEOUT_S instead of never.
 *
 * TCP_NODELAY is on: per-file protocols wait on every small request.
 * Returns 0, or -1 (error set; *out NULL).
 */
int ssh_conn_open(const struct ssh_conn_opts *o, ssh_session *out);

/* The negotiated cipher client to server, e.g. "aes128-gcm@openssh.com"; "" if none. */
const char *ssh_conn_cipher(ssh_session s);

/*
 * ssh_get_error's text for s in buf, without the trailing newline, space or
 * full stop some messages carry; if_empty when there is none (or s is NULL).
 */
const char *ssh_conn_error_text(ssh_session s, char *buf, size_t len, const char *if_empty);

/* Disconnects and frees the session; NULL is allowed. */
void ssh_conn_close(ssh_session s);

#endif
