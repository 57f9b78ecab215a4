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

#include <stdlib.h>

/*
 * rsync -aH -s -e 'ssh OPTIONS' SRC/ HOST:DEST/. -s (--protect-args, rsync 3.0
 * on) sends DEST past the host's shell, so a --remote-dir with a space or a
 * '$' stays one path: rsync did that by default only from 3.2.4.
 */
static int rsync_run(struct xfer_run *run)
{
	struct pipeline_stage st[1] = { 0 };
	struct reference_host h;
	char *e;

	if (reference_host_parse(run->target, &h) < 0 || !(e = reference_rsync_rsh(run->target, &h)))
		return -1;
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
	.traits = STRATEGY_TRAITS_RSYNC,
	.real_command = "rsync -a DIR/ HOST:DST/",
	.run = rsync_run,
	.stop = pipeline_stop_running,
};

