#define _GNU_SOURCE
#include "client/ssh_target.h"

#include "client/agent_upload.h"
#include "stream/agent_startup.h"
#include "err.h"
#include "netaddr.h"
#include "version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#define DISCOVER_TIMEOUT_MS 15000
#define AGENT_START_TIMEOUT_MS 20000
/* the lines look_and_start()'s own script prints, before the agent cache's */
#define DISCOVER_LINES 8

/*
 * The agent's start, shell text after the program is chosen: it listens on
 * the address this SSH connection reached (the third word of
 * SSH_CONNECTION), so its port is open where we already are allowed to
 * connect, and nowhere else; and in the family the client already reaches
 * the host by: an IPv6 address goes in brackets (netaddr.h). Without
 * SSH_CONNECTION (not sshd), every IPv4 address. program: shell text.
 */
static int serve_text(const struct ssh_target *t, const char *program, char *buf, size_t len)
{
	char quoted_root[700];

	if (ssh_shell_quote(t->remote_parent, quoted_root, sizeof(quoted_root)) < 0)
		return -1;
	if (snprintf(buf, len,
		     "c=${SSH_CONNECTION:-x x 0.0.0.0 x}; set -- $c; "
		     "case $3 in *:*) l=\"[$3]\";; *) l=$3;; esac; "
		     "exec %s serve --listen \"$l:0\" --once --token-file - --root %s",
		     program, quoted_root) >= (int)len)
		return err_set("the agent's start command does not fit");
	return 0;
}

/*
 * An uploaded agent starts only if it is still the one checked, and what
 * runs is what was checked: the file (path: shell text) is opened once
 * (fd 3), hashed through that descriptor and executed through it
 * (/proc/self/fd/3), so a file swapped or rewritten under its name in
 * between is never run.
 */
static int check_text(const char *path, const char *sha256, char *buf, size_t len)
{
	if (snprintf(buf, len,
		     "exec 3< %s && h=$(sha256sum <&3) && [ \"${h%%%% *}\" = %s ] || "
		     "{ echo 'the agent on the host changed since it was checked: not started' >&2; exit 97; }; ",
		     path, sha256) >= (int)len)
		return err_set("the agent's check does not fit");
	return 0;
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

/* The started agent's first exchange: its token in, the address it listens on out. */
static int agent_handshake(struct ssh_target *t)
{
	char line[512];

	if (ssh_exec_write(&t->agent, t->token, WIRE_TOKEN_HEX) < 0 || ssh_exec_write(&t->agent, "\n", 1) < 0)
		return err_wrap("cannot hand the agent its token");
	if (ssh_exec_read_line(&t->agent, line, sizeof(line), AGENT_START_TIMEOUT_MS) < 0)
		return err_wrap("agent did not start on the host");
	if (agent_listening_parse(line, t->agent_host, sizeof(t->agent_host), t->agent_port,
				  sizeof(t->agent_port)) < 0)
		return err_wrap("agent did not start on the host");
	if (!strcmp(t->agent_host, "0.0.0.0") || !strcmp(t->agent_host, "::"))
		ssh_peer_address(t->session, t->agent_host, sizeof(t->agent_host));
	return 0;
}

/*
 * What the host has: its architecture, a matching xfercmp, tar, zstd, rsync
 * and scp (the reference tools' ends), $HOME, our uid there; and how the
 * agent's cache is (agent_upload.h). Then the command waits for a word from
 * us: "installed" runs the host's own xfercmp as the agent, "cached" the
 * cached copy (checked as check_text says), anything else ends it. So a
 * run whose agent is there already starts it with no command of its own:
 * each command sshd starts pays a login (0.5-1.3 s on the testbed, whose
 * login shell runs pyenv: docs/BENCHMARKS.md). The command is t->agent's
 * channel; *started says whether the agent runs on it.
 */
static int look_and_start(struct ssh_target *t, const struct agent_local *agent, const char *machine,
			  char *home, size_t len, bool *started)
{
	static const char script[] =
		"uname -m; "
		"if command -v xfercmp >/dev/null 2>&1; then xfercmp serve --protocol 2>/dev/null || echo 0; else echo 0; fi; "
		"command -v tar >/dev/null 2>&1 && echo tar || echo no-tar; "
		"command -v zstd >/dev/null 2>&1 && echo zstd || echo no-zstd; "
		"command -v rsync >/dev/null 2>&1 && echo rsync || echo no-rsync; "
		"command -v scp >/dev/null 2>&1 && echo scp || echo no-scp; "
		"echo \"$HOME\"; id -u 2>/dev/null || echo -1; ";
	char command[4096], cached_path[300], check[1000], serve[1200];
	char lines[DISCOVER_LINES + AGENT_CACHE_LINES][512], *end;
	const char *go = "no";
	size_t used;
	int proto;

	*started = false;
	memcpy(command, script, sizeof(script));
	used = sizeof(script) - 1;
	/* the cache script sets c to "$HOME/.cache"; the name is ours, nothing to quote (agent_upload.c) */
	snprintf(cached_path, sizeof(cached_path), "\"$c/xfercmp/%s\"", agent->name);
	if (agent_cache_script(agent, command + used, sizeof(command) - used) < 0 ||
	    check_text(cached_path, agent->sha256, check, sizeof(check)) < 0 ||
	    serve_text(t, "\"$a\"", serve, sizeof(serve)) < 0)
		return -1;
	used = strlen(command);
	if (snprintf(command + used, sizeof(command) - used,
		     "; read -r go || exit 0; case $go in cached) %sa=/proc/self/fd/3;; installed) a=xfercmp;; "
		     "*) exit 0;; esac; %s",
		     check, serve) >= (int)(sizeof(command) - used))
		return err_set("the command that looks at the host does not fit");
	if (ssh_exec_start(t->session, command, &t->agent) < 0)
		return err_wrap("cannot look at the host");
	for (int i = 0; i < DISCOVER_LINES + AGENT_CACHE_LINES; i++)
		if (ssh_exec_read_line(&t->agent, lines[i], sizeof(lines[i]), DISCOVER_TIMEOUT_MS) < 0)
			return err_wrap("cannot look at the host");
	snprintf(t->remote_arch, sizeof(t->remote_arch), "%.63s", lines[0]);
	proto = atoi(lines[1]);
	t->has_tar = !strcmp(lines[2], "tar");
	t->has_zstd = !strcmp(lines[3], "zstd");
	t->has_rsync = !strcmp(lines[4], "rsync");
	t->has_scp = !strcmp(lines[5], "scp");
	snprintf(home, len, "%s", lines[6]);
	t->remote_uid = strtol(lines[7], &end, 10);
	if (end == lines[7] || *end || t->remote_uid < 0)
		t->remote_uid = -1;
	if (t->has_tar && proto == WIRE_PROTO) {
		go = "installed";
		snprintf(t->agent_command, sizeof(t->agent_command), "xfercmp");
	} else if (t->has_tar && !strcmp(t->remote_arch, machine) &&
		   agent_cache_ready(agent, lines + DISCOVER_LINES, t->remote_uid)) {
		char remote[600];

		go = "cached";
		if (agent_use_cached(t, agent, home, remote, sizeof(remote)) < 0)
			return -1;
		snprintf(t->agent_command, sizeof(t->agent_command), "%s", remote);
	}
	if (ssh_exec_write(&t->agent, go, strlen(go)) < 0 || ssh_exec_write(&t->agent, "\n", 1) < 0)
		return err_wrap("cannot look at the host");
	if (!strcmp(go, "no")) {
		int rc = ssh_exec_finish(&t->agent, NULL);

		ssh_exec_release(&t->agent);
		memset(&t->agent, 0, sizeof(t->agent));
		return rc < 0 ? err_wrap("cannot look at the host") : 0;
	}
	t->agent_running = 1;
	*started = true;
	return agent_handshake(t);
}

/* The agent's start in a command of its own, after an upload. */
static int start_agent(struct ssh_target *t)
{
	char quoted_agent[700], command[3072], check[1000] = "", serve[1200];

	if (ssh_shell_quote(t->agent_command, quoted_agent, sizeof(quoted_agent)) < 0)
		return -1;
	if (t->agent_sha256[0]) {
		if (check_text(quoted_agent, t->agent_sha256, check, sizeof(check)) < 0)
			return -1;
		snprintf(quoted_agent, sizeof(quoted_agent), "/proc/self/fd/3");
	}
	if (serve_text(t, quoted_agent, serve, sizeof(serve)) < 0)
		return -1;
	snprintf(command, sizeof(command), "%s%s", check, serve);
	if (ssh_exec_start(t->session, command, &t->agent) < 0)
		return err_wrap("cannot start the agent on the host");
	t->agent_running = 1;
	return agent_handshake(t);
}

int ssh_target_open(struct ssh_target *t, const struct ssh_target_opts *o)
{
	char home[512], remote_agent[600];
	struct agent_local agent;
	struct utsname u;
	bool started = false;

	memset(t, 0, sizeof(*t));
	t->remote_uid = -1;
	if (agent_local_init(&agent) < 0)
		return -1;
	if (wire_token_generate(t->token) < 0)
		return -1;
	{
		unsigned char key[WIRE_KEY_BYTES];

		if (wire_key_from_token(t->token, key) < 0 || wire_session_id(key, t->session_id) < 0)
			return -1;
		explicit_bzero(key, sizeof(key));
	}
	/* the agent makes its root in it: xfercmp.XXXXXX, 0700 (agent_root.h) */
	snprintf(t->remote_parent, sizeof(t->remote_parent), "%s", o->remote_dir ? o->remote_dir : "/var/tmp");
	uname(&u);
	if (ssh_conn_open(&o->conn, &t->session) < 0)
		return -1;
	if (look_and_start(t, &agent, u.machine, home, sizeof(home), &started) < 0)
		goto fail;
	if (started)
		return 0;
	if (!t->has_tar) {
		err_set("host '%s' has no tar: install the tar package there", o->conn.target);
		goto fail;
	}
	if (strcmp(t->remote_arch, u.machine)) {
		err_set("host '%s' is %s and this machine is %s: install xfercmp %s on the host (the agent is uploaded only to hosts of the same architecture)",
			o->conn.target, t->remote_arch, u.machine, XFERCMP_VERSION);
		goto fail;
	}
	if (agent_upload(t, &agent, home, remote_agent, sizeof(remote_agent)) < 0)
		goto fail;
	snprintf(t->agent_command, sizeof(t->agent_command), "%s", remote_agent);
	if (start_agent(t) < 0)
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
