/*
 * The host key check of a new session against the known_hosts files, with
 * HostKeyAlias (which libssh cannot apply) done here (ssh_conn_parts.h).
 */
#define _GNU_SOURCE
#include "ssh/ssh_conn_parts.h"
#include "ssh/ssh_log.h"

#include "err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* A new host under a HostKeyAlias: "ALIAS TYPE BASE64" appended to file. */
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

enum ssh_hostkey_policy ssh_hostkey_policy(int accept_new, const char *config_value)
{
	if (accept_new)
		return SSH_HOSTKEY_ACCEPT_NEW;
	if (!config_value)
		return SSH_HOSTKEY_ASK;
	if (!strcmp(config_value, "accept-new"))
		return SSH_HOSTKEY_ACCEPT_NEW;
	if (!strcmp(config_value, "true") || !strcmp(config_value, "yes"))
		return SSH_HOSTKEY_YES;
	if (!strcmp(config_value, "false") || !strcmp(config_value, "no") ||
	    !strcmp(config_value, "off"))
		return SSH_HOSTKEY_NO;
	return SSH_HOSTKEY_ASK;
}

/* The server's key type, e.g. "ssh-ed25519"; "unknown" when libssh has none. */
static const char *server_key_type(ssh_session s, char *buf, size_t len)
{
	ssh_key server = NULL;

	snprintf(buf, len, "unknown");
	if (ssh_get_server_publickey(s, &server) == SSH_OK)
		snprintf(buf, len, "%s", ssh_key_type_to_char(ssh_key_type(server)));
	ssh_key_free(server);
	return buf;
}

/* A host not in known_hosts, under policy: refused, or its key added to file. */
static int unknown_host(ssh_session s, enum ssh_hostkey_policy policy, const struct conn_names *nm,
			const char *file)
{
	char e[512], type[64];

	if (policy == SSH_HOSTKEY_YES)
		return err_set("host key for %s is not known (no entry for '%s' in %s) and the ssh "
			       "config's StrictHostKeyChecking yes refuses unknown hosts; connect once "
			       "with ssh to check it, or pass --accept-new-hostkey",
			       nm->where, nm->known, file);
	if (policy == SSH_HOSTKEY_ASK)
		return err_set("host key for %s is not known (no entry for '%s' in %s) and xfercmp "
			       "cannot ask (StrictHostKeyChecking ask); connect once with ssh to check "
			       "it, set StrictHostKeyChecking accept-new, or pass --accept-new-hostkey",
			       nm->where, nm->known, file);
	if (nm->host_key_alias[0] ? add_known_by_alias(s, file, nm->known) < 0
				  : ssh_session_update_known_hosts(s) != SSH_OK)
		return err_set("cannot add the host key for %s to %s: %s", nm->where, file,
			       ssh_error_text(s, e, sizeof(e)));
	/* once: every session of a run to a host with no known_hosts would add it */
	ssh_log_warn_once("added the %s host key of %s to %s as '%s'%s",
			  server_key_type(s, type, sizeof(type)), nm->where, file, nm->known,
			  policy == SSH_HOSTKEY_NO ? " (StrictHostKeyChecking no: not checked)" : "");
	return 0;
}

int ssh_hostkey_check(ssh_session s, enum ssh_hostkey_policy policy, const struct conn_names *nm)
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
		/* as ssh goes on: only public keys are offered, and a key signs this session alone */
		if (policy == SSH_HOSTKEY_NO) {
			ssh_log_warn_once("host key for %s %s the one recorded in %s; the ssh config's "
					  "StrictHostKeyChecking no goes on: someone may be intercepting "
					  "the connection",
					  nm->where, k == SSH_KNOWN_HOSTS_CHANGED ? "does not match"
										  : "is of another type than",
					  at);
			return 0;
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
		return unknown_host(s, policy, nm, file);
	case SSH_KNOWN_HOSTS_ERROR:
	default:
		return err_set("cannot check the host key for %s against %s: %s", nm->where, file,
			       ssh_error_text(s, e, sizeof(e)));
	}
}
