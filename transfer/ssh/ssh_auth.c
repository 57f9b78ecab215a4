/*
 * Public key authentication as ssh(1) does it, IdentitiesOnly included, and
 * an error that says what was tried and what the server offers
 * (ssh_conn_parts.h).
 */
#include "ssh/ssh_conn_parts.h"

#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

int ssh_auth_publickey(ssh_session s, const struct conn_names *nm)
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
