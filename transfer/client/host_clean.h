#ifndef XFERCMP_HOST_CLEAN_H
#define XFERCMP_HOST_CLEAN_H

/*
 * `xfercmp clean HOST`: removes what xfercmp left on a host. That is the
 * agents uploaded to ~/.cache/xfercmp (xfercmp-agent-*, about 6 MB each,
 * and half-done uploads), and the scratch roots of runs that did not end
 * well (PARENT/xfercmp.XXXXXX, agent_root.h). A root is ours only when it is
 * a directory (not a link) owned by the user, holding the agent's marker (a
 * regular file of the user's, not a link) with a session id in it;
 * anything else of that name is left and said to be left. Neither an agent
 * a process is running nor a root a process holds open (the agent of a run
 * still under way keeps its root open) is removed; on a host whose find
 * cannot tell (no GNU find: busybox), no root is.
 *
 * The work is one POSIX shell script run on the host over an exec channel
 * (or here, for HOST "local"), one output line an item.
 */

#include "ssh/ssh_conn.h"

#include <stddef.h>
#include <stdint.h>

#define HOST_CLEAN_MAX_PARENTS 8

enum host_clean_kind {
	HOST_CLEAN_AGENT,	/* an uploaded agent in ~/.cache/xfercmp */
	HOST_CLEAN_ROOT,	/* a scratch root */
};

enum host_clean_state {
	HOST_CLEAN_REMOVED,
	HOST_CLEAN_FAILED,	/* ours, but not (wholly) removed: why says what failed */
	HOST_CLEAN_IN_USE,	/* ours, held by process pid: left */
	HOST_CLEAN_NOT_OURS,	/* of our name but not ours (why): left */
};

struct host_clean_item {
	enum host_clean_kind kind;
	enum host_clean_state state;
	uint64_t bytes;		/* REMOVED: its size (a root's in whole KiB, du -k) */
	long pid;		/* IN_USE: a process holding it */
	char why[128];		/* FAILED, NOT_OURS: the reason */
	char path[1024];
};

struct host_clean_opts {
	struct ssh_conn_opts conn;	/* conn.target "local": this machine, no SSH */
	/* where scratch roots are looked for besides the default (--remote-dir) */
	const char *parents[HOST_CLEAN_MAX_PARENTS];
	unsigned nparents;
};

/* What a clean did, over its items. */
struct host_clean_counts {
	unsigned removed, left_ours, not_ours;	/* left_ours: FAILED or IN_USE */
	uint64_t bytes;				/* of what was removed */
};

/*
 * The script that cleans: ~/.cache/xfercmp, then the xfercmp.* of each of
 * the nparents parents (at most HOST_CLEAN_MAX_PARENTS + 1; each once). Output: one line an item (host_clean_parse),
 * then "E". Returns 0, or -1 (error set) when buf is too small or a parent
 * cannot be quoted.
 */
int host_clean_script(const char *const *parents, unsigned nparents, char *buf, size_t len);

/*
 * One line of the script's output into *it. Returns 1 for an item, 0 for
 * the end line, -1 (error set) for a line the script does not write.
 */
int host_clean_parse(const char *line, struct host_clean_item *it);

/*
 * The line a person reads for it, such as "removed /var/tmp/xfercmp.Ab3dE9
 * (a scratch root, 12.0 MiB)" or "left /var/tmp/xfercmp.x (owned by
 * another user)".
 */
void host_clean_item_text(const struct host_clean_item *it, char *buf, size_t len);

/*
 * Connects to o->conn.target (or runs here for "local"), runs the script
 * over /var/tmp (for "local", the scratch base: fs_scratch_base) and
 * o->parents, and calls on_item for each item as the host
 * reports it. *counts sums them. Returns 0 when the script ran to its end
 * (whatever it could not remove: see counts), -1 (error set) when it could
 * not connect or the script did not end.
 */
int host_clean_run(const struct host_clean_opts *o,
		   void (*on_item)(void *ctx, const struct host_clean_item *it), void *ctx,
		   struct host_clean_counts *counts);

#endif
