/*
 * Connecting like ssh(1): config first, then the target's overrides, then
 * connect, host key check, public key authentication. The order matters in
 * libssh 0.10: ssh_options_parse_config() overwrites options already set
 * (Port, User), and ssh_connect() does not check the host key at all.
 */
#define _GNU_SOURCE
#include "ssh/ssh_config_gaps.h"
#include "ssh/ssh_conn_parts.h"
#include "ssh/ssh_log.h"
#include "ssh/ssh_resolve.h"

#include "err.h"
#include "netutil.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* libssh 0.10's connect timeout when none is set (ssh_connect waits this long for the banner). */
#define LIBSSH_DEFAULT_TIMEOUT_S 10

/* Fills the names once the config has been applied and the overrides set. */
static void names_fill(ssh_session s, const struct ssh_conn_target *t, struct conn_names *nm)
{
	char *v = NULL;

	snprintf(nm->alias, sizeof(nm->alias), "%s", t->host);
	snprintf(nm->host, sizeof(nm->host), "%s", t->host);
	if (ssh_options_get(s, SSH_OPTIONS_HOST, &v) == SSH_OK) {
		snprintf(nm->host, sizeof(nm->host), "%s", v);
		ssh_string_free_char(v);
	}
	nm->user[0] = '\0';
	if (ssh_options_get(s, SSH_OPTIONS_USER, &v) == SSH_OK) {
		snprintf(nm->user, sizeof(nm->user), "%s", v);
		ssh_string_free_char(v);
	}
	if (ssh_options_get_port(s, &nm->port) != SSH_OK)
		nm->port = 22;
	nm->proxy[0] = '\0';
	if (ssh_options_get(s, SSH_OPTIONS_PROXYCOMMAND, &v) == SSH_OK) {
		snprintf(nm->proxy, sizeof(nm->proxy), "%s", v);
		ssh_string_free_char(v);
	}
	if (strcmp(nm->alias, nm->host))
		snprintf(nm->where, sizeof(nm->where), "'%s' (%s port %u)", nm->alias, nm->host,
			 nm->port);
	else
		snprintf(nm->where, sizeof(nm->where), "'%s' port %u", nm->host, nm->port);
	if (nm->host_key_alias[0])
		snprintf(nm->known, sizeof(nm->known), "%s", nm->host_key_alias);
	else if (nm->port == 22)
		snprintf(nm->known, sizeof(nm->known), "%s", nm->host);
	else
		snprintf(nm->known, sizeof(nm->known), "[%s]:%u", nm->host, nm->port);
}

/*
 * The options OpenSSH resolved (ssh -G), handed to libssh, whose own config
 * parser then stays off: hostname, port, user, identity files, known_hosts
 * files, the proxy, the algorithm lists a config sets (ssh_config_gaps.h:
 * also a warning for each option libssh cannot apply); HostKeyAlias and
 * IdentitiesOnly are applied by check_host_key and authenticate, which
 * libssh cannot do.
 */
static int configure_resolved(ssh_session s, const struct ssh_conn_opts *o, struct ssh_resolved *r,
			      struct conn_names *nm)
{
	char e[512], proxy[3000];
	bool no = false;
	int port = (int)r->port;

	if (ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &no) < 0 ||
	    ssh_options_set(s, SSH_OPTIONS_HOST, r->hostname) < 0 ||
	    ssh_options_set(s, SSH_OPTIONS_USER, r->user) < 0 ||
	    ssh_options_set(s, SSH_OPTIONS_PORT, &port) < 0)
		return err_set("cannot apply the ssh options of '%s': %s", o->target,
			       ssh_error_text(s, e, sizeof(e)));
	for (unsigned i = 0; i < r->nidentity; i++)
		if (access(r->identity[i], R_OK) == 0 &&
		    ssh_options_set(s, SSH_OPTIONS_ADD_IDENTITY, r->identity[i]) < 0)
			return err_set("cannot use the identity file '%s': %s", r->identity[i],
				       ssh_error_text(s, e, sizeof(e)));
	if ((r->known_hosts[0] && ssh_options_set(s, SSH_OPTIONS_KNOWNHOSTS, r->known_hosts) < 0) ||
	    (r->global_known_hosts[0] &&
	     ssh_options_set(s, SSH_OPTIONS_GLOBAL_KNOWNHOSTS, r->global_known_hosts) < 0))
		return err_set("cannot use the known_hosts files of '%s': %s", o->target,
			       ssh_error_text(s, e, sizeof(e)));
	proxy[0] = '\0';
	if (r->proxy_jump[0] && ssh_proxy_jump_command(o->config_file, r->proxy_jump, proxy, sizeof(proxy)) < 0)
		return -1;
	if (!proxy[0] && r->proxy_command[0])
		snprintf(proxy, sizeof(proxy), "%s", r->proxy_command);
	if (proxy[0] && ssh_options_set(s, SSH_OPTIONS_PROXYCOMMAND, proxy) < 0)
		return err_set("cannot use the proxy command '%s': %s", proxy, ssh_error_text(s, e, sizeof(e)));
	if (!o->connect_timeout_s && r->connect_timeout_s > 0) {
		long secs = r->connect_timeout_s;

		if (ssh_options_set(s, SSH_OPTIONS_TIMEOUT, &secs) < 0)
			return err_set("cannot set the ssh timeout: %s", ssh_error_text(s, e, sizeof(e)));
	}
	nm->timeout_s = r->connect_timeout_s > 0 ? r->connect_timeout_s : LIBSSH_DEFAULT_TIMEOUT_S;
	/* Ciphers and the other lists a config sets; a warning for what libssh cannot do */
	ssh_config_gaps_keep_configured(r);
	ssh_config_gaps_apply(s, r, o->ciphers != NULL);
	snprintf(nm->host_key_alias, sizeof(nm->host_key_alias), "%s", r->host_key_alias);
	nm->resolved = r;
	return 0;
}

/*
 * Sets s up for t: from OpenSSH's reading of the config when ssh is
 * installed (*r filled, nm->resolved set), else from libssh's own parser
 * with the target's user and port over it, or with no config at all when
 * no_config. Returns 0; 1 when libssh's parser refused the config (a
 * warning said so; s is half set up: start over with a new session and
 * no_config); -1 (error set).
 */
static int configure(ssh_session s, const struct ssh_conn_opts *o, const struct ssh_conn_target *t,
		     struct ssh_resolved *r, struct conn_names *nm, int no_config)
{
	char e[512];
	int one = 1, how;
	bool no = false;

	/* The alias first, so that the config's "Host" blocks match it. */
	if (ssh_options_set(s, SSH_OPTIONS_HOST, t->host) < 0)
		return err_set("cannot set ssh host '%s': %s", t->host, ssh_error_text(s, e, sizeof(e)));
	/* before the config too: what its parsing logs goes through our callback */
	if (ssh_log_apply(s) < 0)
		return -1;
	/* XFERCMP_SSH_LIBSSH_CONFIG=1: libssh's parser even with ssh installed (a test's comparison) */
	how = no_config ? 2 : getenv("XFERCMP_SSH_LIBSSH_CONFIG") ? 1 :
	      ssh_resolve(o->config_file, t->host, t->user, t->port, r);
	if (how < 0)
		return -1;
	if (how == 0 && configure_resolved(s, o, r, nm) < 0)
		return -1;
	/*
	 * libssh 0.10 refuses a whole file over one line it does not know (Match
	 * address, localnetwork, tagged, ...): without OpenSSH's ssh to read it,
	 * every host would fail. The host is tried without the file instead.
	 */
	if (how == 1 && ssh_options_parse_config(s, o->config_file) < 0) {
		const char *why = ssh_error_text(s, e, sizeof(e));

		if (!strncmp(why, "ERROR - ", 8))
			why += 8;
		ssh_log_warn_once("ssh config '%s' not used, libssh cannot read it: %s",
				  o->config_file ? o->config_file : "~/.ssh/config", why);
		return 1;
	}
	/* (else ssh_connect would parse the default files itself) */
	if (how == 2 && ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &no) < 0)
		return err_set("cannot turn libssh's config off: %s", ssh_error_text(s, e, sizeof(e)));
	/* after the config: its LogLevel must not print libssh's log (ssh_log.h) */
	if (ssh_log_apply(s) < 0)
		return -1;
	if (how && t->user[0] && ssh_options_set(s, SSH_OPTIONS_USER, t->user) < 0)
		return err_set("cannot set ssh user '%s': %s", t->user, ssh_error_text(s, e, sizeof(e)));
	if (how && t->port) {
		int port = (int)t->port;

		if (ssh_options_set(s, SSH_OPTIONS_PORT, &port) < 0)
			return err_set("cannot set ssh port %u: %s", t->port,
				       ssh_error_text(s, e, sizeof(e)));
	}
	if (ssh_options_set(s, SSH_OPTIONS_NODELAY, &one) < 0)
		return err_set("cannot turn on TCP_NODELAY: %s", ssh_error_text(s, e, sizeof(e)));
	if (o->connect_timeout_s > 0) {
		long secs = o->connect_timeout_s;

		if (ssh_options_set(s, SSH_OPTIONS_TIMEOUT, &secs) < 0)
			return err_set("cannot set the ssh timeout: %s", ssh_error_text(s, e, sizeof(e)));
		nm->timeout_s = o->connect_timeout_s;
	} else if (how == 2) {
		nm->timeout_s = LIBSSH_DEFAULT_TIMEOUT_S;
	}
	if (o->ciphers && (ssh_options_set(s, SSH_OPTIONS_CIPHERS_C_S, o->ciphers) < 0 ||
			   ssh_options_set(s, SSH_OPTIONS_CIPHERS_S_C, o->ciphers) < 0))
		return err_set("unsupported cipher list '%s': %s", o->ciphers,
			       ssh_error_text(s, e, sizeof(e)));
	return 0;
}

/* Turns libssh's connect error into what happened: refused, timed out, unreachable. */
static int connect_error(ssh_session s, const struct conn_names *nm)
{
	char e[512];
	const char *why = NULL;

	ssh_error_text(s, e, sizeof(e));
	if (strcasestr(e, "refused"))
		why = "connection refused (the host is up but nothing listens on that port)";
	else if (strcasestr(e, "timeout") || strcasestr(e, "timed out"))
		why = "timed out (the host does not answer: down, or a firewall drops the packets)";
	else if (strcasestr(e, "unreachable") || strcasestr(e, "no route"))
		why = "host unreachable (no route to it)";
	else if (strcasestr(e, "resolve"))
		why = "cannot resolve the host name";
	/* through a proxy the socket is a pipe to it: what failed is the proxy or beyond it */
	if (nm->proxy[0] && (strcasestr(e, "timeout") || strcasestr(e, "timed out"))) {
		char within[32] = "";

		if (nm->timeout_s > 0)
			snprintf(within, sizeof(within), " within %d s", nm->timeout_s);
		return err_set("cannot connect to %s through the proxy command '%.200s': no answer%s "
			       "(the proxy, or the host behind it, does not answer; try ssh -v with the "
			       "same config) [%s]",
			       nm->where, nm->proxy, within, e);
	}
	if (nm->proxy[0])
		return err_set("cannot connect to %s through the proxy command '%.200s': it failed or "
			       "ended before the host answered (try ssh -v with the same config) [%s]",
			       nm->where, nm->proxy, e);
	if (why)
		return err_set("cannot connect to %s: %s [%s]", nm->where, why, e);
	return err_set("cannot connect to %s: %s", nm->where, e);
}

int ssh_conn_open(const struct ssh_conn_opts *o, ssh_session *out)
{
	struct ssh_conn_target t;
	struct conn_names nm = { 0 };
	struct ssh_resolved *r;
	ssh_session s;
	long zero = 0;
	char e[512];
	pid_t children[SSH_PROXY_MAX_CHILDREN];
	size_t nchildren;
	enum ssh_hostkey_policy policy;
	int rc;

	*out = NULL;
	ssh_proxy_fork_setup();
	if (ssh_conn_parse_target(o->target, &t) < 0)
		return -1;
	/* libssh ignores a config file it cannot open; ssh -F refuses it. */
	if (o->config_file && access(o->config_file, R_OK) != 0)
		return err_errno("cannot read ssh config '%s'", o->config_file);
	s = ssh_new();
	r = calloc(1, sizeof(*r));
	if (!s || !r) {
		ssh_free(s);
		free(r);
		return err_set("cannot allocate an ssh session");
	}
	rc = configure(s, o, &t, r, &nm, 0);
	if (rc == 1) {
		/* libssh could not read the config (a warning said so): the host without it */
		ssh_free(s);
		memset(&nm, 0, sizeof(nm));
		if (!(s = ssh_new())) {
			free(r);
			return err_set("cannot allocate an ssh session");
		}
		rc = configure(s, o, &t, r, &nm, 1);
	}
	if (rc < 0)
		goto fail;
	names_fill(s, &t, &nm);
	nchildren = nm.proxy[0] ? ssh_proxy_children(children, SSH_PROXY_MAX_CHILDREN) : 0;
	if (ssh_connect(s) != SSH_OK) {
		connect_error(s, &nm);
		if (nm.proxy[0])
			ssh_proxy_end_new_children(children, nchildren);
		goto fail;
	}
	/* The user is known for sure only now: libssh fills in the local one while connecting. */
	names_fill(s, &t, &nm);
	/* the config's StrictHostKeyChecking, unless --accept-new-hostkey */
	policy = ssh_hostkey_policy(o->accept_new_hostkey,
				    nm.resolved ? nm.resolved->strict_host_key_checking : NULL);
	if (ssh_hostkey_check(s, policy, &nm) < 0 || ssh_auth_publickey(s, &nm) < 0)
		goto fail;
	/* See ssh_conn.h: no timeout on blocking calls from here on. */
	if (ssh_options_set(s, SSH_OPTIONS_TIMEOUT, &zero) < 0 ||
	    ssh_options_set(s, SSH_OPTIONS_TIMEOUT_USEC, &zero) < 0) {
		err_set("cannot clear the ssh timeout: %s", ssh_error_text(s, e, sizeof(e)));
		goto fail;
	}
	/* ... but a lost host ends them (netutil.h), as it does on the agent's connections */
	if (!nm.resolved || (!nm.resolved->proxy_jump[0] && !nm.resolved->proxy_command[0])) {
		if (net_set_peer_timeout(ssh_get_fd(s)) < 0)
			goto fail;
	}
	free(r);
	*out = s;
	return 0;
fail:
	free(r);
	ssh_conn_close(s);
	return -1;
}

const char *ssh_conn_cipher(ssh_session s)
{
	const char *c = s ? ssh_get_cipher_out(s) : NULL;

	return c ? c : "";
}

void ssh_conn_close(ssh_session s)
{
	if (!s)
		return;
	if (ssh_is_connected(s))
		ssh_disconnect(s);
	ssh_free(s);
}
