#ifndef XFERCMP_AGENT_ROOT_H
#define XFERCMP_AGENT_ROOT_H

/*
 * The agent's scratch root: a directory it made itself and that only it can
 * touch. Made with mkdtemp (mode 0700, never an existing directory) inside a
 * parent (--root / the client's --remote-dir; default /var/tmp), checked with
 * lstat (a directory, ours, 0700), and opened once: every later operation of
 * the agent's own (the destinations' mkdir, open, removal, the marker, the
 * final removal walk) is relative to that directory fd, resolved beneath it
 * with no symbolic link followed (openat2 RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS where the kernel has it, O_NOFOLLOW on one component
 * otherwise). A parent that others may write into without the sticky bit is
 * refused: they could rename the root away under a path the receivers use.
 *
 * The marker, created O_EXCL | O_NOFOLLOW, holds the session id
 * (wire_session_id): the client's fallback cleanup removes a root only when
 * its marker holds that run's id. The root's descriptor holds an flock for
 * the agent's life (agent_leftover.h says why).
 */

#include <stddef.h>

struct agent_root {
	char path[4096];	/* PARENT/xfercmp.XXXXXX, for messages and the client */
	char parent[4096];
	char name[32];		/* its name in the parent */
	int fd;			/* the root, open; -1 when there is none */
	int parent_fd;
	/* parents the agent created (outermost first), removed at the end when empty */
	struct agent_root_made {
		int dirfd;		/* the directory it was made in, open */
		char name[256];
	} made[8];
	unsigned nmade;
};

/*
 * Makes the root in parent (made, 0755, when missing), writes the marker
 * holding id. Returns 0 or -1 (error set; nothing left behind).
 */
int agent_root_make(struct agent_root *r, const char *parent, const char *id);

/* Makes the directory name (one component) in the root, mode 0700. 0 or -1 (error set). */
int agent_root_mkdir(struct agent_root *r, const char *name);

/*
 * Opens the directory name beneath the root with no link followed; returns
 * the fd (O_RDONLY | O_DIRECTORY | O_CLOEXEC) or -1 (error set).
 */
int agent_root_open_dir(const struct agent_root *r, const char *name);

/*
 * Makes a fresh directory PREFIX.XXXXXX (6 random characters, mode 0700) in
 * the root, mkdtemp-style but beneath the root's descriptor, and opens it
 * as agent_root_open_dir does. name (len bytes) gets its name in the root,
 * for agent_root_remove. Returns the fd or -1 (error set; nothing made).
 */
int agent_root_make_temp(const struct agent_root *r, const char *prefix, char *name, size_t len);

/* Removes name and everything below it, never through a link. 0 or -1 (error set). */
int agent_root_remove(const struct agent_root *r, const char *name);

/*
 * Removes the whole root, marker last (a root that could not be wholly
 * removed keeps it, for the client's fallback), then the parents it made
 * that are empty. Safe to call twice. Returns 0 or -1 (error set).
 */
int agent_root_remove_all(struct agent_root *r);

/*
 * agent_root_remove_all, tried again every AGENT_ROOT_RETRY_TICK_MS for up to
 * AGENT_ROOT_RETRY_MS while a directory refills (ENOTEMPTY): when the client
 * goes away in the middle of tar-ssh, the host's tar (a process of its own,
 * not ours) may still be creating files for a moment until it reads the end
 * of its input, and a single pass would race it. Any other failure will not
 * pass by itself. 0 or -1 (error set).
 */
#define AGENT_ROOT_RETRY_MS 10000
#define AGENT_ROOT_RETRY_TICK_MS 200
int agent_root_remove_all_retrying(struct agent_root *r);

/* The same, counting what it removes into progress (NULL: none), for a status line. */
struct fs_remove_progress;
int agent_root_remove_all_counted(struct agent_root *r, struct fs_remove_progress *progress);

/* Closes the fds without removing anything (--keep). */
void agent_root_close(struct agent_root *r);

#endif
