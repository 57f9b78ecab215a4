#ifndef XFERCMP_SSH_CONN_PARTS_H
#define XFERCMP_SSH_CONN_PARTS_H

/*
 * The steps of ssh_conn_open (ssh_conn.c), one file a job: the host key
 * check (ssh_hostkey.c), public key authentication (ssh_auth.c) and the
 * proxy's command and children (ssh_proxy.c). Internal to transfer/ssh.
 */

#include "ssh/ssh_conn.h"
#include "ssh/ssh_resolve.h"

#include <stddef.h>
#include <sys/types.h>

/* libssh's default global known-hosts file, consulted by ssh_session_is_known_server. */
#define GLOBAL_KNOWN_HOSTS "/etc/ssh/ssh_known_hosts"

/* What identifies the host in messages and in known_hosts. */
struct conn_names {
	char alias[256];	/* as the user named it */
	char host[256];		/* after the config's HostName */
	unsigned port;
	char user[256];
	char where[600];	/* "'testbed' (198.18.0.2 port 22)" */
	char known[300];	/* the known_hosts name: "198.18.0.2" or "[198.18.0.2]:2222" */
	/* from OpenSSH's reading of the config (ssh_resolve.h), which libssh's ignores */
	char host_key_alias[256];	/* known_hosts name instead of known; "" for none */
	const struct ssh_resolved *resolved;	/* NULL: libssh read the config itself */
	char proxy[1024];	/* the ProxyCommand libssh runs (ProxyJump's too); "" for none */
	int timeout_s;		/* the connect timeout in force; 0: the config's, to libssh */
};

/* libssh's error for s, trimmed (ssh_conn_error_text), "unknown libssh error" when none. */
static inline const char *ssh_error_text(ssh_session s, char *buf, size_t len)
{
	return ssh_conn_error_text(s, buf, len, "unknown libssh error");
}

/*
 * What to do with a host key that is not the known one, as OpenSSH's
 * StrictHostKeyChecking says. A changed key, or one of another type than
 * the known one, is refused under every policy but NO.
 */
enum ssh_hostkey_policy {
	SSH_HOSTKEY_ASK,	/* OpenSSH's default; nobody to ask here: an unknown host is refused */
	SSH_HOSTKEY_YES,	/* an unknown host is refused */
	SSH_HOSTKEY_ACCEPT_NEW,	/* an unknown host's key is added to known_hosts */
	SSH_HOSTKEY_NO,		/* added too, and a changed key goes on, each with a warning */
};

/*
 * The policy in force: --accept-new-hostkey (accept_new) wins, as ssh's -o
 * does over the config; else the config's value as ssh -G prints it ("ask",
 * "true", "false", "accept-new"); "" or NULL (not known: libssh read the
 * config) is ASK.
 */
enum ssh_hostkey_policy ssh_hostkey_policy(int accept_new, const char *config_value);

/*
 * Checks the connected session's host key against the known_hosts files
 * (under nm->host_key_alias when set), applying policy (above). A key
 * added to the user's known_hosts file is said in a warning, as ssh says
 * "Permanently added". Returns 0, or -1 (error set: one line naming the
 * host, the file and what to do).
 */
int ssh_hostkey_check(ssh_session s, enum ssh_hostkey_policy policy, const struct conn_names *nm);

/*
 * Authenticates the connected session by public key: the agent, the
 * configured identities and the default keys, or under IdentitiesOnly the
 * configured identities alone. Returns 0, or -1 (error set: what was tried
 * and which methods the server offers).
 */
int ssh_auth_publickey(ssh_session s, const struct conn_names *nm);

/*
 * ProxyJump as OpenSSH runs it, into buf: "ssh [-F config] [-J first,...]
 * -W '[%h]:%p' last". Returns 0, or -1 (error set) for a jump host with
 * shell characters or a command longer than len.
 */
int ssh_proxy_jump_command(const char *config_file, const char *jump, char *buf, size_t len);

/* Once per process: every forked child (libssh's proxy) starts with no signal blocked. */
void ssh_proxy_fork_setup(void);

#define SSH_PROXY_MAX_CHILDREN 64

/* The calling thread's unreaped children (at most max) into pids; their number. */
size_t ssh_proxy_children(pid_t *pids, size_t max);

/*
 * Ends the calling thread's children not in before (those a failed connect
 * left): SIGTERM, up to 1 s, then SIGKILL.
 */
void ssh_proxy_end_new_children(const pid_t *before, size_t nbefore);

#endif
