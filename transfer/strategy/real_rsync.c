/*
 * real-rsync: the system's rsync -aH over ssh into the empty destination,
 * reaching the host as reference.h says; the host's side is its own rsync.
 *
 * What it keeps: -a is -rlptgoD, so symbolic links as links (-l, their
 * text as is), permissions exactly (-p: the receiver sets them, no umask,
 * also as a non-root user), mtimes of files and directories (-t; a 0555
 * directory is written with u+w and given its mode at the end), empty
 * directories (-r); owner and group as root; devices and fifos as root,
 * fifos also as a user (-D), which verification leaves out. Hard links need
 * -H, which -a does not include: without it every name of an inode arrives
 * as its own file. A person migrating a tree wants them kept (a backup tree
 * of hard-linked snapshots would grow by each copy, and what was one file
 * becomes several that drift apart), and -H costs the sender one table of
 * the inodes with more than one link, so this runs -aH and claims all five.
 */
#include "err.h"
#include "strategy/host_programs.h"
#include "strategy/reference.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * s quoted for rsync's own split of its -e command: single quotes, a quote
 * inside doubled (rsync takes no backslashes). malloc'ed, or NULL.
 */
static char *rsync_quote(const char *s)
{
	char *q = malloc(2 * strlen(s) + 3), *p = q;

	if (!q) {
		err_set("out of memory");
		return NULL;
	}
	*p++ = '\'';
	for (; *s; s++) {
		if (*s == '\'')
			*p++ = '\'';
		*p++ = *s;
	}
	*p++ = '\'';
	*p = '\0';
	return q;
}

/*
 * rsync -aH -s -e 'ssh OPTIONS' SRC/ HOST:DEST/. -s (--protect-args, rsync 3.0
 * on) sends DEST past the host's shell, so a --remote-dir with a space or a
 * '$' stays one path: rsync did that by default only from 3.2.4.
 */
static int rsync_run(struct xfer_run *run)
{
	struct pipeline_stage st[1] = { 0 };
	struct pipeline_argv ssh = { 0 };
	struct reference_host h;
	char *e = NULL;
	size_t len = 0;
	FILE *f;
	int rc = 0;

	if (reference_host_parse(run->target, &h) < 0)
		return -1;
	pipeline_arg(&ssh, "ssh");
	reference_ssh_options(&ssh, run->target, &h);
	if (ssh.failed || !(f = open_memstream(&e, &len))) {
		pipeline_argv_free(&ssh);
		return err_set("out of memory for the rsync command line");
	}
	for (size_t i = 0; i < ssh.n && rc == 0; i++) {
		char *q = rsync_quote(ssh.v[i]);

		if (!q)
			rc = -1;
		else
			fprintf(f, "%s%s", i ? " " : "", q);
		free(q);
	}
	fclose(f);
	pipeline_argv_free(&ssh);
	if (rc < 0) {
		free(e);
		return -1;
	}
	pipeline_arg(&st[0].argv, "rsync");
	pipeline_arg(&st[0].argv, "-aH");
	pipeline_arg(&st[0].argv, "-s");
	pipeline_arg(&st[0].argv, "-e");
	pipeline_arg(&st[0].argv, "%s", e);
	pipeline_arg(&st[0].argv, "--");
	pipeline_arg(&st[0].argv, "%s/", run->src_root);
	pipeline_arg(&st[0].argv, "%s:%s/", h.scp_host, run->dest);
	free(e);
	return reference_finish(run, st, 1, -1);
}

static int rsync_available(const struct xfer_target *t, char *why, size_t len)
{
	static const char *const local[] = { "rsync", "ssh", NULL };

	return strategy_needs_ssh(t, why, len) || host_programs_need_local(local, why, len) ||
	       host_programs_need(t, "rsync", why, len);
}

const struct strategy strategy_real_rsync = {
	.name = "real-rsync",
	.summary = "the system's rsync -aH over ssh into an empty HOST:DEST/",
	.flags = STRATEGY_REFERENCE | STRATEGY_SSH,
	.preserves = PRESERVE_ALL,
	.available = rsync_available,
	.setup_round_trips = STRATEGY_SETUP_ROUND_TRIPS,
	.real_command = "rsync -a DIR/ HOST:DST/",
	.run = rsync_run,
	.stop = pipeline_stop_running,
};

