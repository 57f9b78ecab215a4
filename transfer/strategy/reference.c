/*
 * The reference strategies: the system's own scp, rsync, tar, ssh and zstd,
 * run as a user would run them and measured like xfercmp's own strategies,
 * to check how faithful those models are (real_scp.c, real_rsync.c,
 * real_tar.c). Also the user's own command (cmd:NAME=COMMAND,
 * reference_cmd.h). This file holds what they share (reference.h).
 *
 * Each runs as a pipeline of child processes (pipeline.h). Values that a
 * shell parses (the host's side of ssh, scp -O's target) are quoted with
 * ssh_shell_quote. The host's sides are the host's own programs, run by
 * its sshd; real-tar-nc's mirror is the agent's libarchive extraction
 * (tar_extract.c).
 *
 * Not counted: wire bytes (the programs do not say; real-tar-nc's are the
 * agent's count) and round trips.
 */
#include "strategy/reference.h"

#include "err.h"
#include "ssh/ssh_exec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *reference_shell_quote(const char *s)
{
	size_t cap = 4 * strlen(s) + 3;
	char *q = malloc(cap);

	if (!q) {
		err_set("out of memory");
		return NULL;
	}
	if (ssh_shell_quote(s, q, cap) < 0) {
		free(q);
		return NULL;
	}
	return q;
}

int reference_host_parse(const struct xfer_target *t, struct reference_host *h)
{
	if (ssh_conn_parse_target(t->label, &h->parts) < 0)
		return -1;
	snprintf(h->scp_host, sizeof(h->scp_host), strchr(h->parts.host, ':') ? "[%s]" : "%s",
		 h->parts.host);
	return 0;
}

void reference_ssh_options(struct pipeline_argv *a, const struct xfer_target *t,
			   const struct reference_host *h)
{
	if (t->ssh_config) {
		pipeline_arg(a, "-F");
		pipeline_arg(a, "%s", t->ssh_config);
	}
	pipeline_arg(a, "-o");
	pipeline_arg(a, "BatchMode=yes");
	if (t->accept_new_hostkey) {
		pipeline_arg(a, "-o");
		pipeline_arg(a, "StrictHostKeyChecking=accept-new");
	}
	if (h->parts.user[0]) {
		pipeline_arg(a, "-o");
		pipeline_arg(a, "User=%s", h->parts.user);
	}
	if (h->parts.port) {
		pipeline_arg(a, "-o");
		pipeline_arg(a, "Port=%u", h->parts.port);
	}
}

/* s quoted for rsync's own split of its -e command into f. */
static void rsync_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

char *reference_rsync_rsh(const struct xfer_target *t, const struct reference_host *h)
{
	struct pipeline_argv ssh = { 0 };
	char *e = NULL;
	size_t len = 0;
	FILE *f;

	pipeline_arg(&ssh, "ssh");
	reference_ssh_options(&ssh, t, h);
	if (ssh.failed || !(f = open_memstream(&e, &len))) {
		pipeline_argv_free(&ssh);
		err_set("out of memory for the rsync command line");
		return NULL;
	}
	for (size_t i = 0; i < ssh.n; i++) {
		if (i)
			fputc(' ', f);
		rsync_quote(f, ssh.v[i]);
	}
	pipeline_argv_free(&ssh);
	if (fclose(f) != 0) {
		free(e);
		err_set("out of memory for the rsync command line");
		return NULL;
	}
	return e;
}

void reference_ssh_stage(struct pipeline_argv *a, const struct xfer_target *t,
			 const struct reference_host *h, const char *remote)
{
	pipeline_arg(a, "ssh");
	reference_ssh_options(a, t, h);
	pipeline_arg(a, "--");
	pipeline_arg(a, "%s", h->parts.host);
	pipeline_arg(a, "%s", remote);
}

int reference_finish(struct xfer_run *run, struct pipeline_stage *st, unsigned n, int out_fd)
{
	int rc = pipeline_run(st, n, out_fd);

	pipeline_stages_free(st, n);
	if (rc == 0) {
		run->sent.files = run->manifest->count;
		run->sent.bytes_read = run->manifest->total_bytes;
	}
	return rc;
}

int reference_newline_name(const struct manifest *m, char *buf, size_t len)
{
	const char *bad = NULL;
	size_t k = 0;

	for (size_t i = 0; m && !bad && i < m->count; i++)
		if (strchr(m->entries[i].path, '\n'))
			bad = m->entries[i].path;
	for (size_t i = 0; m && !bad && i < m->nhardlinks; i++)
		if (strchr(m->hardlinks[i].path, '\n'))
			bad = m->hardlinks[i].path;
	for (size_t i = 0; m && !bad && i < m->ndirs; i++)
		if (strchr(m->dirs[i].path, '\n'))
			bad = m->dirs[i].path;
	if (!bad || !len)
		return 0;
	for (const char *c = bad; *c && k + 3 < len; c++) {
		if (*c == '\n') {
			buf[k++] = '\\';
			buf[k++] = 'n';
		} else {
			buf[k++] = *c;
		}
	}
	buf[k] = '\0';
	return 1;
}
