/* Removing what xfercmp left on a host: see host_clean.h. */
#define _GNU_SOURCE
#include "client/host_clean.h"

#include "client/ssh_target.h"
#include "ssh/ssh_exec.h"
#include "stream/agent_startup.h"
#include "stream/wire_auth.h"
#include "err.h"
#include "fsutil.h"
#include "units.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where the agent's scratch roots go on a host unless --remote-dir (ssh_target.c). */
#define DEFAULT_PARENT "/var/tmp"

/*
 * The script's first part: the processes' open files and programs that
 * point at something of ours, once ("TARGET/<tab>/proc/PID/..."), and
 * in_use PATH, which prints the pid of one that holds PATH or what is
 * beneath it. Another user's processes cannot be read; what they hold is
 * not ours either. Without GNU find's -printf (busybox) nothing can be told:
 * pf is empty, and no root is removed (an agent's file is: a running
 * program keeps its inode). Then the cached agents, and the list of removers
 * at work when it is empty (agent/agent_remover_list.h).
 */
static const char script_head[] =
	"c=\"$HOME/.cache/xfercmp\"; "
	"pf=$(find /dev/null -maxdepth 0 -printf x 2>/dev/null); "
	"used=$(find /proc/[0-9]*/fd /proc/[0-9]*/exe -maxdepth 1 -type l "
	"\\( -lname '*/" AGENT_ROOT_PREFIX "*' -o -lname '*/.cache/xfercmp/*' \\) "
	"-printf '%l/\\t%p\\n' 2>/dev/null); "
	"in_use() { printf '%s\\n' \"$used\" | "
	"awk -F '\\t' -v t=\"$1/\" 'index($1, t) == 1 { split($2, a, \"/\"); print a[3]; exit }'; }; "
	"for f in \"$c\"/xfercmp-agent-*; do "
	"if [ -L \"$f\" ] || { [ -e \"$f\" ] && { [ ! -f \"$f\" ] || [ ! -O \"$f\" ]; }; }; then "
	"printf 'L\\tagent\\tnot a file of yours\\t%s\\n' \"$f\"; continue; fi; "
	"[ -f \"$f\" ] || continue; "
	"u=$(in_use \"$f\"); "
	"if [ -n \"$u\" ]; then printf 'U\\tagent\\t%s\\t%s\\n' \"$u\" \"$f\"; continue; fi; "
	"s=$(wc -c <\"$f\"); "
	"if rm -f -- \"$f\"; then printf 'R\\tagent\\t%s\\t%s\\n' \"$s\" \"$f\"; "
	"else printf 'F\\tagent\\tcannot remove it\\t%s\\n' \"$f\"; fi; "
	"done; "
	"rmdir -- \"$c/removers\" \"$c\" 2>/dev/null; ";

/*
 * Then, a parent at a time ($p set before), its roots. The marker must
 * hold a session id: $n (WIRE_SESSION_ID_HEX) hex digits and nothing else.
 */
static const char script_roots[] =
	"for r in \"$p\"/" AGENT_ROOT_PREFIX "*; do m=\"$r\"/" AGENT_ROOT_MARKER "; "
	"[ -e \"$r\" ] || [ -L \"$r\" ] || continue; "
	"if [ -L \"$r\" ] || [ ! -d \"$r\" ]; then "
	"printf 'L\\troot\\tnot a directory\\t%s\\n' \"$r\"; continue; fi; "
	"if [ ! -O \"$r\" ]; then "
	"printf 'L\\troot\\towned by another user\\t%s\\n' \"$r\"; continue; fi; "
	"id=; [ -f \"$m\" ] && [ ! -L \"$m\" ] && [ -O \"$m\" ] && "
	"id=$(dd if=\"$m\" bs=80 count=1 2>/dev/null); "
	"case \"$id\" in *[!0-9a-f]*) id=;; esac; "
	"if [ \"${#id}\" -ne \"$n\" ]; then "
	"printf 'L\\troot\\tno xfercmp marker in it\\t%s\\n' \"$r\"; continue; fi; "
	"if [ \"$pf\" != x ]; then printf 'F\\troot\\tno GNU find on the host to tell whether a run "
	"is using it\\t%s\\n' \"$r\"; continue; fi; "
	"u=$(in_use \"$r\"); "
	"if [ -n \"$u\" ]; then printf 'U\\troot\\t%s\\t%s\\n' \"$u\" \"$r\"; continue; fi; "
	"s=$(du -sk -- \"$r\" 2>/dev/null | cut -f1); "
	"if " SSH_TARGET_REMOVE_ROOT_SH "; then "
	"printf 'R\\troot\\t%s\\t%s\\n' \"$((${s:-0} * 1024))\" \"$r\"; "
	"else printf 'F\\troot\\tcannot remove all of it\\t%s\\n' \"$r\"; fi; "
	"done; ";

int host_clean_script(const char *const *parents, unsigned nparents, char *buf, size_t len)
{
	const char *all[HOST_CLEAN_MAX_PARENTS + 1];
	unsigned nall = 0;
	size_t used;

	/* each parent once */
	for (unsigned i = 0; i < nparents && nall < HOST_CLEAN_MAX_PARENTS + 1; i++) {
		int seen = 0;

		for (unsigned k = 0; k < nall && !seen; k++)
			seen = !strcmp(all[k], parents[i]);
		if (!seen)
			all[nall++] = parents[i];
	}
	if (snprintf(buf, len, "n=%d; %s", WIRE_SESSION_ID_HEX, script_head) >= (int)len)
		return err_set("the clean script does not fit in %zu bytes", len);
	used = strlen(buf);
	for (unsigned i = 0; i < nall; i++) {
		char quoted[2 * 1024 + 16];
		int n;

		if (ssh_shell_quote(all[i], quoted, sizeof(quoted)) < 0)
			return err_wrap("scratch parent '%.200s'", all[i]);
		n = snprintf(buf + used, len - used, "p=%s; %s", quoted, script_roots);
		if (n < 0 || (size_t)n >= len - used)
			return err_set("the clean script does not fit in %zu bytes", len);
		used += (size_t)n;
	}
	if (snprintf(buf + used, len - used, "echo E") >= (int)(len - used))
		return err_set("the clean script does not fit in %zu bytes", len);
	return 0;
}

int host_clean_parse(const char *line, struct host_clean_item *it)
{
	const char *f[4];
	char *end;
	unsigned long long v;

	memset(it, 0, sizeof(*it));
	if (!strcmp(line, "E"))
		return 0;
	/* STATE<tab>KIND<tab>NUMBER-OR-WHY<tab>PATH: the path last, as it may hold a tab */
	f[0] = line;
	for (int i = 1; i < 4; i++) {
		f[i] = strchr(f[i - 1], '\t');
		if (!f[i])
			return err_set("unexpected line from the clean script: '%.200s'", line);
		f[i]++;
	}
	if (!strncmp(f[1], "agent\t", 6))
		it->kind = HOST_CLEAN_AGENT;
	else if (!strncmp(f[1], "root\t", 5))
		it->kind = HOST_CLEAN_ROOT;
	else
		return err_set("unexpected line from the clean script: '%.200s'", line);
	snprintf(it->path, sizeof(it->path), "%s", f[3]);
	switch (line[0] == '\0' || line[1] != '\t' ? '?' : line[0]) {
	case 'R':
	case 'U':
		errno = 0;
		v = strtoull(f[2], &end, 10);
		if (errno || end == f[2] || *end != '\t')
			return err_set("unexpected line from the clean script: '%.200s'", line);
		it->state = line[0] == 'R' ? HOST_CLEAN_REMOVED : HOST_CLEAN_IN_USE;
		if (line[0] == 'R')
			it->bytes = v;
		else
			it->pid = (long)v;
		return 1;
	case 'F':
	case 'L':
		it->state = line[0] == 'F' ? HOST_CLEAN_FAILED : HOST_CLEAN_NOT_OURS;
		snprintf(it->why, sizeof(it->why), "%.*s", (int)(f[3] - f[2] - 1), f[2]);
		return 1;
	default:
		return err_set("unexpected line from the clean script: '%.200s'", line);
	}
}

void host_clean_item_text(const struct host_clean_item *it, char *buf, size_t len)
{
	const char *what = it->kind == HOST_CLEAN_AGENT ? "an uploaded agent" : "a scratch root";
	char size[32];

	switch (it->state) {
	case HOST_CLEAN_REMOVED:
		snprintf(buf, len, "removed %s (%s, %s)", it->path, what,
			 units_format_bytes(it->bytes, size, sizeof(size)));
		break;
	case HOST_CLEAN_IN_USE:
		snprintf(buf, len, "not removed %s (%s): in use by process %ld; clean again once it "
			 "has ended", it->path, what, it->pid);
		break;
	case HOST_CLEAN_FAILED:
		snprintf(buf, len, "not removed %s (%s): %s; remove it with: chmod -R u+rwx '%s' && "
			 "rm -rf '%s'", it->path, what, it->why, it->path, it->path);
		break;
	case HOST_CLEAN_NOT_OURS:
	default:
		snprintf(buf, len, "left %s (%s)", it->path, it->why);
		break;
	}
}

static void count(struct host_clean_counts *c, const struct host_clean_item *it)
{
	if (it->state == HOST_CLEAN_REMOVED) {
		c->removed++;
		c->bytes += it->bytes;
	} else if (it->state == HOST_CLEAN_NOT_OURS) {
		c->not_ours++;
	} else {
		c->left_ours++;
	}
}

/* Each output line of the script, read by next_line, handed on until "E". */
static int read_items(int (*next_line)(void *src, char *buf, size_t len), void *src,
		      void (*on_item)(void *ctx, const struct host_clean_item *it), void *ctx,
		      struct host_clean_counts *counts)
{
	char line[1400];
	struct host_clean_item it;
	int rc;

	for (;;) {
		if (next_line(src, line, sizeof(line)) < 0)
			return err_wrap("the clean script did not end");
		if ((rc = host_clean_parse(line, &it)) <= 0)
			return rc;
		count(counts, &it);
		on_item(ctx, &it);
	}
}

static int exec_line(void *src, char *buf, size_t len)
{
	/* no limit: a large root takes its time; a lost host breaks the session (netutil.h) */
	return ssh_exec_read_line(src, buf, len, -1);
}

static int file_line(void *src, char *buf, size_t len)
{
	if (!fgets(buf, (int)len, src))
		return err_set("the output ended");
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* HOST "local": the script run here by /bin/sh. */
static int clean_here(const char *script,
		      void (*on_item)(void *ctx, const struct host_clean_item *it), void *ctx,
		      struct host_clean_counts *counts)
{
	FILE *p = popen(script, "r");
	int rc, status;

	if (!p)
		return err_errno("cannot run the clean script");
	rc = read_items(file_line, p, on_item, ctx, counts);
	status = pclose(p);
	if (rc == 0 && status != 0)
		return err_set("the clean script failed (status %d)", status);
	return rc;
}

int host_clean_run(const struct host_clean_opts *o,
		   void (*on_item)(void *ctx, const struct host_clean_item *it), void *ctx,
		   struct host_clean_counts *counts)
{
	/* one parent's part is about 1.6 KiB */
	char *script = malloc(16384);
	int local = !strcmp(o->conn.target, "local");
	const char *parents[HOST_CLEAN_MAX_PARENTS + 1];
	unsigned np;
	ssh_session s = NULL;
	struct ssh_exec x = { 0 };
	int rc = -1;

	memset(counts, 0, sizeof(*counts));
	if (!script)
		return err_set("out of memory");
	/* the default first: a local agent's (agent_launch_local: the scratch base), else the host's */
	parents[0] = local ? fs_scratch_base() : DEFAULT_PARENT;
	for (np = 0; np < o->nparents && np < HOST_CLEAN_MAX_PARENTS; np++)
		parents[np + 1] = o->parents[np];
	if (host_clean_script(parents, np + 1, script, 16384) < 0)
		goto out;
	if (local) {
		rc = clean_here(script, on_item, ctx, counts);
		goto out;
	}
	if (ssh_conn_open(&o->conn, &s) < 0 || ssh_exec_start(s, script, &x) < 0)
		goto out;
	rc = read_items(exec_line, &x, on_item, ctx, counts);
	if (rc == 0 && ssh_exec_finish(&x, NULL) < 0)
		rc = err_wrap("cleaning '%s'", o->conn.target);
out:
	ssh_exec_release(&x);
	ssh_conn_close(s);
	free(script);
	return rc;
}
