#ifndef XFERCMP_AGENT_REMOVER_LIST_H
#define XFERCMP_AGENT_REMOVER_LIST_H

/*
 * The removers at work for this user on this host, whatever the scratch
 * parent (agent_remover_list.c).
 *
 * Why: "leftovers" (agent_leftover.h) finds a remover's root by listing the
 * run's own scratch parent. A run with another --remote-dir on the same
 * disk would measure while an earlier run's remover deletes 100,000 files
 * elsewhere on it. So each remover also writes an entry, a file named by
 * its root's device and inode in ~/.cache/xfercmp/removers (0700), holding
 * the root's path, and holds an flock on it while it works; it unlinks the
 * entry once the root is gone. The next run, after its own parent, waits
 * for every entry whose lock is held, and finishes (as agent_leftover does)
 * the root of one whose remover died, then drops the entry. No HOME, or a
 * cache directory that cannot be made: no list, and only the parent is
 * looked at, as before.
 */

#include "agent/agent_leftover.h"
#include "agent/agent_root.h"

#include <stdbool.h>
#include <stddef.h>

/* The list's directory, open (made 0700 as needed when make); -1 (no error set) when there is none. */
int agent_remover_list_open(bool make);

/*
 * Adds r (renamed to be removed, r->path its new path) to the list dir_fd:
 * name gets the entry's name. Returns the entry's descriptor, locked (the
 * remover keeps it), or -1 (error set).
 */
int agent_remover_list_add(int dir_fd, const struct agent_root *r, char *name, size_t len);

/*
 * Every entry of the list (none: 0): waits for those whose remover is at
 * work, finishes the roots of those whose remover is gone, drops their
 * entries. Returns 0 or -1 (error set, as agent_leftovers_finish).
 */
int agent_remover_list_finish(struct agent_leftover_progress *progress);

#endif
