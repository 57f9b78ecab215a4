/*
 * Connecting like ssh(1): config first, then the target's overrides, then
 * connect, host key check, public key authentication. The order matters in
 * libssh 0.10: ssh_options_parse_config() overwrites options already set
 * (Port, User), and ssh_connect() does not check the host key at all.
 */
#define _GNU_SOURCE
#include "ssh/ssh_conn.h"
#include "ssh/ssh_log.h"

#include "err.h"
#include "netutil.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	if (strcmp(nm->alias, nm->host))
		snprintf(nm->where, sizeof(nm->where), "'%s' (%s port %u)", nm->alias, nm->host,
			 nm->port);
	else
		snprintf(nm->where, sizeof(nm->where), "'%s' port %u", nm->host, nm->port);
	if (nm->port == 22)
		snprintf(nm->known, sizeof(nm->known), "%s", nm->host);
	else
		snprintf(nm->known, sizeof(nm->known), "[%s]:%u", nm->host, nm->port);
}

static int configure(ssh_session s, const struct ssh_conn_opts *o, const struct ssh_conn_target *t)
{
	char e[512];
	int one = 1;

	/* The alias first, so that the config's "Host" blocks match it. */
	if (ssh_options_set(s, SSH_OPTIONS_HOST, t->host) < 0)
		return err_set("cannot set ssh host '%s': %s", t->host, ssh_error_text(s, e, sizeof(e)));
	/* before the config too: what its parsing logs goes through our callback */
	if (ssh_log_apply(s) < 0)
		return -1;
	if (ssh_options_parse_config(s, o->config_file) < 0)
		return err_set("cannot apply ssh config '%s': %s",
			       o->config_file ? o->config_file : "~/.ssh/config",
			       ssh_error_text(s, e, sizeof(e)));
	/* after the config: its LogLevel must not print libssh's log (ssh_log.h) */
	if (ssh_log_apply(s) < 0)
		return -1;
	if (t->user[0] && ssh_options_set(s, SSH_OPTIONS_USER, t->user) < 0)
		return err_set("cannot set ssh user '%s': %s", t->user, ssh_error_text(s, e, sizeof(e)));
	if (t->port) {
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
	k = ssh_session_is_known_server(s);
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
		if (ssh_session_update_known_hosts(s) != SSH_OK)
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
	rc = ssh_userauth_publickey_auto(s, NULL, NULL);
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

int ssh_conn_open(const struct ssh_conn_opts *o, ssh_session *out)
{
	struct ssh_conn_target t;
	struct conn_names nm;
	ssh_session s;
	long zero = 0;
	char e[512];

	*out = NULL;
	if (ssh_conn_parse_target(o->target, &t) < 0)
		return -1;
	/* libssh ignores a config file it cannot open; ssh -F refuses it. */
	if (o->config_file && access(o->config_file, R_OK) != 0)
		return err_errno("cannot read ssh config '%s'", o->config_file);
	s = ssh_new();
	if (!s)
		return err_set("cannot allocate an ssh session");
	if (configure(s, o, &t) < 0)
		goto fail;
	names_fill(s, &t, &nm);
	if (ssh_connect(s) != SSH_OK) {
		connect_error(s, &nm);
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
	if (net_set_peer_timeout(ssh_get_fd(s)) < 0)
		goto fail;
	*out = s;
	return 0;
fail:
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
