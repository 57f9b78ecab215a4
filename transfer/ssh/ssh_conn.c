/*
 * Connecting like ssh(1): config first, then the target's overrides, then
 * connect, host key check, public key authentication. The order matters in
 * libssh 0.10: ssh_options_parse_config() overwrites options already set
 * (Port, User), and ssh_connect() does not check the host key at all.
 */
#define _GNU_SOURCE
#include "ssh/ssh_config_gaps.h"
#include "ssh/ssh_conn.h"
#include "ssh/ssh_log.h"
#include "ssh/ssh_resolve.h"

#include "err.h"
#include "netutil.h"

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* libssh 0.10's connect timeout when none is set (ssh_connect waits this long for the banner). */
#define LIBSSH_DEFAULT_TIMEOUT_S 10

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

static int copy_part(char *dst, size_t cap, const char *src, size_t len, const char *what,
		     const char *target)
{
	if (len == 0)
		return err_set("bad ssh target '%s': empty %s", target, what);
	if (len >= cap)
		return err_set("bad ssh target '%s': %s longer than %zu bytes", target, what, cap - 1);
	memcpy(dst, src, len);
	dst[len] = '\0';
	return 0;
}

static int parse_port(const char *p, const char *target, unsigned *port)
{
	unsigned long v = 0;

	if (*p == '\0')
		return err_set("bad ssh target '%s': empty port", target);
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return err_set("bad ssh target '%s': port is not a number", target);
		v = v * 10 + (unsigned long)(*p - '0');
		if (v > 65535)
			break;
	}
	if (v < 1 || v > 65535)
		return err_set("bad ssh target '%s': port must be 1 to 65535", target);
	*port = (unsigned)v;
	return 0;
}

int ssh_conn_parse_target(const char *target, struct ssh_conn_target *t)
{
	const char *at, *hp, *end, *colon;

	memset(t, 0, sizeof(*t));
	if (!target || !*target)
		return err_set("empty ssh target");
	hp = target;
	/* The last '@', as scp does: a host name never contains one. */
	at = strrchr(target, '@');
	if (at) {
		if (copy_part(t->user, sizeof(t->user), target, (size_t)(at - target), "user name",
			      target) < 0)
			return -1;
		hp = at + 1;
	}
	if (*hp == '[') {
		end = strchr(hp, ']');
		if (!end)
			return err_set("bad ssh target '%s': '[' without ']'", target);
		if (copy_part(t->host, sizeof(t->host), hp + 1, (size_t)(end - hp - 1), "host",
			      target) < 0)
			return -1;
		if (end[1] == '\0')
			return 0;
		if (end[1] != ':')
			return err_set("bad ssh target '%s': unexpected text after ']'", target);
		return parse_port(end + 2, target, &t->port);
	}
	colon = strchr(hp, ':');
	/* Two colons or more: a bare IPv6 address, which cannot carry a port. */
	if (colon && strchr(colon + 1, ':'))
		colon = NULL;
	if (copy_part(t->host, sizeof(t->host), hp, colon ? (size_t)(colon - hp) : strlen(hp),
		      "host", target) < 0)
		return -1;
	return colon ? parse_port(colon + 1, target, &t->port) : 0;
}

const char *ssh_conn_error_text(ssh_session s, char *buf, size_t len, const char *if_empty)
{
	size_t n;

	snprintf(buf, len, "%s", s ? ssh_get_error(s) : "");
	n = strlen(buf);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '.'))
		buf[--n] = '\0';
	if (n == 0)
		snprintf(buf, len, "%s", if_empty);
	return buf;
}

static const char *ssh_error_text(ssh_session s, char *buf, size_t len)
{
	return ssh_conn_error_text(s, buf, len, "unknown libssh error");
}

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
 * ProxyJump as OpenSSH runs it: its own ssh with the same config, -W to the
 * target through the last jump, the earlier ones as -J. Into buf.
 */
static int proxy_jump_command(const char *config_file, const char *jump, char *buf, size_t len)
{
	const char *last = strrchr(jump, ',');
	char cfg[2200] = "";
	int n;

	if (config_file) {
		size_t k = 0;

		/* single quotes for /bin/sh, a quote inside as '\'' */
		cfg[k++] = '-', cfg[k++] = 'F', cfg[k++] = ' ', cfg[k++] = '\'';
		for (const char *c = config_file; *c && k + 6 < sizeof(cfg); c++) {
			if (*c == '\'') {
				memcpy(cfg + k, "'\\''", 4);
				k += 4;
			} else {
				cfg[k++] = *c;
			}
		}
		cfg[k++] = '\'';
		cfg[k++] = ' ';
		cfg[k] = '\0';
	}
	if (strpbrk(jump, "'\"\\$`;&|<> \t\n"))
		return err_set("ProxyJump '%s': unexpected characters in the jump host", jump);
	if (last)
		n = snprintf(buf, len, "ssh %s-J %.*s -W '[%%h]:%%p' %s", cfg, (int)(last - jump), jump,
			     last + 1);
	else
		n = snprintf(buf, len, "ssh %s-W '[%%h]:%%p' %s", cfg, jump);
	if (n < 0 || (size_t)n >= len)
		return err_set("ProxyJump '%s': the command is too long", jump);
	return 0;
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
	if (r->proxy_jump[0] && proxy_jump_command(o->config_file, r->proxy_jump, proxy, sizeof(proxy)) < 0)
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

/* Line number of the first entry for name in file; 0 if none (or unreadable). */
static unsigned long known_hosts_line(const char *file, const char *name)
{
	FILE *f = fopen(file, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	unsigned long lineno = 0, found = 0;

	if (!f)
		return 0;
	while (!found && (n = getline(&line, &cap, f)) >= 0) {
		struct ssh_knownhosts_entry *entry = NULL;

		lineno++;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (ssh_known_hosts_parse_line(name, line, &entry) == SSH_OK)
			found = lineno;
		ssh_knownhosts_entry_free(entry);
	}
	free(line);
	fclose(f);
	return found;
}

/*
 * HostKeyAlias (libssh has no such option): the server's key looked up under
 * the alias in file and the global file, as ssh_session_is_known_server does
 * under the host name.
 */
static enum ssh_known_hosts_e known_by_alias(ssh_session s, const char *file, const char *alias)
{
	const char *files[2] = { file, GLOBAL_KNOWN_HOSTS };
	enum ssh_known_hosts_e k = SSH_KNOWN_HOSTS_NOT_FOUND;
	ssh_key server = NULL;

	if (ssh_get_server_publickey(s, &server) != SSH_OK)
		return SSH_KNOWN_HOSTS_ERROR;
	for (int i = 0; i < 2 && k != SSH_KNOWN_HOSTS_OK; i++) {
		FILE *f = fopen(files[i], "r");
		char *line = NULL;
		size_t cap = 0;
		ssize_t n;

		while (f && k != SSH_KNOWN_HOSTS_OK && (n = getline(&line, &cap, f)) >= 0) {
			struct ssh_knownhosts_entry *entry = NULL;

			while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
				line[--n] = '\0';
			if (ssh_known_hosts_parse_line(alias, line, &entry) == SSH_OK && entry->publickey) {
				if (ssh_key_cmp(server, entry->publickey, SSH_KEY_CMP_PUBLIC) == 0)
					k = SSH_KNOWN_HOSTS_OK;
				else if (ssh_key_type(server) == ssh_key_type(entry->publickey))
					k = SSH_KNOWN_HOSTS_CHANGED;
				else if (k == SSH_KNOWN_HOSTS_NOT_FOUND)
					k = SSH_KNOWN_HOSTS_OTHER;
			}
			ssh_knownhosts_entry_free(entry);
		}
		free(line);
		if (f)
			fclose(f);
	}
	ssh_key_free(server);
	return k;
}

/* --accept-new-hostkey under a HostKeyAlias: "ALIAS TYPE BASE64" appended to file. */
static int add_known_by_alias(ssh_session s, const char *file, const char *alias)
{
	ssh_key server = NULL;
	char *b64 = NULL;
	FILE *f;
	int rc = -1;

	if (ssh_get_server_publickey(s, &server) == SSH_OK &&
	    ssh_pki_export_pubkey_base64(server, &b64) == SSH_OK && (f = fopen(file, "a"))) {
		rc = fprintf(f, "%s %s %s\n", alias, ssh_key_type_to_char(ssh_key_type(server)), b64) < 0;
		rc = fclose(f) != 0 || rc ? -1 : 0;
	}
	ssh_string_free_char(b64);
	ssh_key_free(server);
	return rc;
}

static int check_host_key(ssh_session s, const struct ssh_conn_opts *o, const struct conn_names *nm)
{
	char file[1024], at[1100], e[512];
	char *v = NULL;
	unsigned long line;
	enum ssh_known_hosts_e k;

	snprintf(file, sizeof(file), "~/.ssh/known_hosts");
	if (ssh_options_get(s, SSH_OPTIONS_KNOWNHOSTS, &v) == SSH_OK) {
		snprintf(file, sizeof(file), "%s", v);
		ssh_string_free_char(v);
	}
	k = nm->host_key_alias[0] ? known_by_alias(s, file, nm->known) : ssh_session_is_known_server(s);
	switch (k) {
	case SSH_KNOWN_HOSTS_OK:
		return 0;
	case SSH_KNOWN_HOSTS_CHANGED:
	case SSH_KNOWN_HOSTS_OTHER:
		snprintf(at, sizeof(at), "%s", file);
		if ((line = known_hosts_line(file, nm->known)) > 0) {
			snprintf(at, sizeof(at), "%s line %lu", file, line);
		} else if ((line = known_hosts_line(GLOBAL_KNOWN_HOSTS, nm->known)) > 0) {
			snprintf(file, sizeof(file), "%s", GLOBAL_KNOWN_HOSTS);
			snprintf(at, sizeof(at), "%s line %lu", file, line);
		}
		return err_set("host key for %s %s the one recorded in %s: someone may be intercepting "
			       "the connection, or the host was reinstalled; remove the old key with "
			       "ssh-keygen -R %s -f %s if the change is expected",
			       nm->where,
			       k == SSH_KNOWN_HOSTS_CHANGED ? "has changed: it does not match"
							    : "is of another type than",
			       at, nm->known, file);
	case SSH_KNOWN_HOSTS_NOT_FOUND:
	case SSH_KNOWN_HOSTS_UNKNOWN:
		if (!o->accept_new_hostkey)
			return err_set("host key for %s is not known (no entry for '%s' in %s); connect "
				       "once with ssh to check it, or pass --accept-new-hostkey",
				       nm->where, nm->known, file);
		if (nm->host_key_alias[0] ? add_known_by_alias(s, file, nm->known) < 0
					  : ssh_session_update_known_hosts(s) != SSH_OK)
			return err_set("cannot add the host key for %s to %s: %s", nm->where, file,
				       ssh_error_text(s, e, sizeof(e)));
		return 0;
	case SSH_KNOWN_HOSTS_ERROR:
	default:
		return err_set("cannot check the host key for %s against %s: %s", nm->where, file,
			       ssh_error_text(s, e, sizeof(e)));
	}
}

/* Appends formatted text to buf (len bytes, *used so far), cutting at the end. */
static void __attribute__((format(printf, 4, 5)))
append(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*used + 1 >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *used, len - *used, fmt, ap);
	va_end(ap);
	if (n > 0)
		*used = (size_t)n < len - *used ? *used + (size_t)n : len - 1;
}

/*
 * What ssh_userauth_publickey_auto tried, for the error message: the agent
 * (if SSH_AUTH_SOCK is set), the first identity file in the options (the
 * config's IdentityFile, else the first default), and the default keys in
 * ~/.ssh that exist. libssh has no call that lists its identities.
 */
static void tried_text(ssh_session s, char *buf, size_t len)
{
	static const char *const defaults[] = { "id_ed25519", "id_ecdsa", "id_rsa" };
	const char *sock = getenv("SSH_AUTH_SOCK"), *home = getenv("HOME");
	char first[1024] = "", path[1100];
	char *v = NULL;
	size_t used = 0;

	buf[0] = '\0';
	if (sock && *sock)
		append(buf, len, &used, "the ssh agent at %s", sock);
	else
		append(buf, len, &used, "no ssh agent (SSH_AUTH_SOCK is not set)");
	if (ssh_options_get(s, SSH_OPTIONS_IDENTITY, &v) == SSH_OK) {
		snprintf(first, sizeof(first), "%s", v);
		ssh_string_free_char(v);
		append(buf, len, &used, ", identity file %s%s", first,
		       access(first, R_OK) == 0 ? "" : " (missing)");
	}
	for (size_t i = 0; home && i < sizeof(defaults) / sizeof(defaults[0]); i++) {
		snprintf(path, sizeof(path), "%s/.ssh/%s", home, defaults[i]);
		if (strcmp(path, first) && access(path, R_OK) == 0)
			append(buf, len, &used, ", %s", path);
	}
}

/* The method bits as names: "publickey, password"; "none" if no bit is set. */
static void methods_text(int methods, char *buf, size_t len)
{
	static const struct {
		int bit;
		const char *name;
	} names[] = {
		{ SSH_AUTH_METHOD_PUBLICKEY, "publickey" },
		{ SSH_AUTH_METHOD_PASSWORD, "password" },
		{ SSH_AUTH_METHOD_INTERACTIVE, "keyboard-interactive" },
		{ SSH_AUTH_METHOD_HOSTBASED, "hostbased" },
		{ SSH_AUTH_METHOD_GSSAPI_MIC, "gssapi-with-mic" },
	};
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (methods & names[i].bit)
			append(buf, len, &used, "%s%s", used ? ", " : "", names[i].name);
	if (!used)
		snprintf(buf, len, "none");
}

/*
 * IdentitiesOnly (libssh ignores it): only the configured identity files,
 * never the agent's keys, as ssh does. Returns an SSH_AUTH_* code.
 */
static int identities_only_auth(ssh_session s, const struct ssh_resolved *r)
{
	int rc = SSH_AUTH_DENIED;

	for (unsigned i = 0; i < r->nidentity && rc != SSH_AUTH_SUCCESS; i++) {
		ssh_key key = NULL;

		if (access(r->identity[i], R_OK) != 0 ||
		    ssh_pki_import_privkey_file(r->identity[i], NULL, NULL, NULL, &key) != SSH_OK)
			continue;
		rc = ssh_userauth_publickey(s, NULL, key);
		ssh_key_free(key);
		if (rc == SSH_AUTH_ERROR || rc == SSH_AUTH_PARTIAL)
			break;
	}
	return rc;
}

static int authenticate(ssh_session s, const struct conn_names *nm)
{
	char offered[128], tried[2048], e[512];
	int rc, methods;

	/* "none" first: it tells which methods the server offers (and a few servers accept it). */
	rc = ssh_userauth_none(s, NULL);
	if (rc == SSH_AUTH_SUCCESS)
		return 0;
	if (rc == SSH_AUTH_ERROR)
		return err_set("authentication as %s@%s failed: %s", nm->user, nm->host,
			       ssh_error_text(s, e, sizeof(e)));
	methods = ssh_userauth_list(s, NULL);
	methods_text(methods, offered, sizeof(offered));
	if (!(methods & SSH_AUTH_METHOD_PUBLICKEY))
		return err_set("authentication failed for %s@%s: the server offers %s, and only public "
			       "keys are tried",
			       nm->user, nm->host, offered);
	rc = nm->resolved && nm->resolved->identities_only ? identities_only_auth(s, nm->resolved)
							   : ssh_userauth_publickey_auto(s, NULL, NULL);
	if (rc == SSH_AUTH_SUCCESS)
		return 0;
	if (rc == SSH_AUTH_ERROR)
		return err_set("authentication as %s@%s failed: %s", nm->user, nm->host,
			       ssh_error_text(s, e, sizeof(e)));
	tried_text(s, tried, sizeof(tried));
	if (rc == SSH_AUTH_PARTIAL) {
		methods_text(ssh_userauth_list(s, NULL), offered, sizeof(offered));
		return err_set("authentication failed for %s@%s: a key was accepted but the server "
			       "also wants %s",
			       nm->user, nm->host, offered);
	}
	return err_set("authentication failed for %s@%s: the server accepted none of the keys "
		       "tried (%s); it offers: %s",
		       nm->user, nm->host, tried, offered);
}

/*
 * libssh forks a ProxyCommand (ProxyJump's ssh -W too) from the thread that
 * connects, and the child inherits that thread's mask, in which the
 * interrupt watcher blocks SIGINT, SIGTERM and SIGHUP: the proxy then
 * ignored every stop and outlived xfercmp. Every child of this process gets
 * an empty mask and SIGPIPE's default back instead.
 */
static pthread_once_t proxy_fork_once = PTHREAD_ONCE_INIT;

static void child_signal_defaults(void)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
}

static void proxy_fork_setup(void)
{
	pthread_atfork(NULL, NULL, child_signal_defaults);
}

#define MAX_CHILDREN 64

/*
 * The children the calling thread forked and not yet reaped, from
 * /proc/self/task/TID/children (Linux, CONFIG_PROC_CHILDREN); 0 when it
 * cannot be read. While the thread is in ssh_connect, a new one is libssh's
 * ProxyCommand.
 */
static size_t thread_children(pid_t *pids, size_t max)
{
	char path[64], buf[1024];
	size_t n = 0, len;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/children", (long)syscall(SYS_gettid));
	if (!(f = fopen(path, "r")))
		return 0;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = '\0';
	for (char *p = buf, *end; n < max; p = end) {
		long pid = strtol(p, &end, 10);

		if (end == p)
			break;
		pids[n++] = (pid_t)pid;
	}
	return n;
}

/* Has pid (a child not reaped) exited? Its /proc stat reads state Z then. */
static int exited(pid_t pid)
{
	char path[64], buf[256], *state;
	size_t len;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if (!(f = fopen(path, "r")))
		return 1;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = '\0';
	/* "PID (COMM) STATE ...": COMM may hold anything, the last ')' ends it */
	state = strrchr(buf, ')');
	return !state || state[1] == '\0' || state[2] == 'Z' || state[2] == 'X';
}

/*
 * After a failed connect, ends the proxy children the connect started (those
 * in after, not in before): libssh sends its proxy SIGTERM and then waits for
 * it without a bound, so one that ignores SIGTERM (or inherited it ignored)
 * held the run there forever. SIGTERM, up to 1 s for it to exit, then
 * SIGKILL; libssh's own wait then reaps it at once.
 */
static void end_new_children(const pid_t *before, size_t nbefore)
{
	pid_t after[MAX_CHILDREN];
	size_t nafter = thread_children(after, MAX_CHILDREN);

	for (size_t i = 0; i < nafter; i++) {
		int known = 0;

		for (size_t k = 0; k < nbefore && !known; k++)
			known = after[i] == before[k];
		if (known)
			continue;
		kill(after[i], SIGTERM);
		for (int ms = 0; ms < 1000 && !exited(after[i]); ms += 20)
			nanosleep(&(struct timespec){ 0, 20 * 1000000L }, NULL);
		if (!exited(after[i]))
			kill(after[i], SIGKILL);
	}
}

int ssh_conn_open(const struct ssh_conn_opts *o, ssh_session *out)
{
	struct ssh_conn_target t;
	struct conn_names nm = { 0 };
	struct ssh_resolved *r;
	ssh_session s;
	long zero = 0;
	char e[512];
	pid_t children[MAX_CHILDREN];
	size_t nchildren;
	int rc;

	*out = NULL;
	pthread_once(&proxy_fork_once, proxy_fork_setup);
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
	nchildren = nm.proxy[0] ? thread_children(children, MAX_CHILDREN) : 0;
	if (ssh_connect(s) != SSH_OK) {
		connect_error(s, &nm);
		if (nm.proxy[0])
			end_new_children(children, nchildren);
		goto fail;
	}
	/* The user is known for sure only now: libssh fills in the local one while connecting. */
	names_fill(s, &t, &nm);
	if (check_host_key(s, o, &nm) < 0 || authenticate(s, &nm) < 0)
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
