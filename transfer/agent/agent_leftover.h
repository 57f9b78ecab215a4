#ifndef XFERCMP_AGENT_LEFTOVER_H
#define XFERCMP_AGENT_LEFTOVER_H

/*
 * The copies removed after the client left, and a later run that finds
 * them (agent_leftover.c).
 *
 * Why: removing a comparison's copies takes as long as a strategy (120,000
 * small files a copy, five copies: 47-103 s on the testbed's disk), and the
 * person waits for the prompt. With "bye" {"background": true} the agent
 * renames its root PREFIX.XXXXXX + AGENT_ROOT_REMOVING and hands it to a
 * remover: a process of its own (a new session, stdin/stdout/stderr on
 * /dev/null, no other descriptor but the root's and its parents'), so the
 * agent exits, the SSH channel closes and the client returns at once.
 *
 * Certain to finish: every agent holds an flock on its root's descriptor
 * for as long as it lives, the remover inherits it and drops it only when
 * the root is gone (or it died). A root named so whose lock is free was
 * abandoned by its remover (killed, the host rebooted): the next agent in
 * the same parent removes it ("leftovers"), before the client measures
 * anything; one whose lock is held is being removed, and that agent waits
 * for it. Either way no removal of an earlier run runs under a
 * measurement in that parent: creates right after a mass removal crawl on
 * ext4 without a journal (agent_cleanup.c), and this keeps a later run from
 * measuring in the middle of one. `xfercmp clean` also removes such a
 * root, once no process holds it.
 */

#include "agent/agent_root.h"
#include "fs_remove.h"

#include <stdatomic.h>
#include <stdbool.h>

/* How long the next agent waits for a remover still at work before it says so and fails. */
#define AGENT_LEFTOVER_WAIT_S 1800

/* Whether name (in a parent) is a root handed to a remover: PREFIX + 6 characters + suffix. */
bool agent_leftover_name(const char *name);

/*
 * Renames r to its name + AGENT_ROOT_REMOVING and starts the remover on it.
 * On 0 the agent must not touch r again but to close it at exit; on -1
 * (error set) nothing moved and r is the agent's to remove as before.
 */
int agent_root_remove_detached(struct agent_root *r);

/* How far the leftovers got, read by another thread (remove_status). */
struct agent_leftover_progress {
	struct fs_remove_progress removal;	/* of the roots this agent removes itself */
	_Atomic unsigned roots;		/* leftover roots found so far */
	_Atomic int waiting;		/* waiting on another process's remover now */
};

/*
 * Waits while another process holds fd's flock (a root's, or a remover's
 * entry in agent_remover_list), until it is free or fd is gone (removed), at
 * most AGENT_LEFTOVER_WAIT_S; progress->waiting says so meanwhile. Returns 0
 * (fd locked, or gone) or -1 (error set, naming what: the path waited for).
 */
int agent_leftover_wait(int fd, const char *what, struct agent_leftover_progress *progress);

/*
 * One leftover root, name in parent_fd (parent: its path): waits for its
 * remover while one holds the lock, then removes what is left (nothing,
 * when the remover finished). A directory that is not a root of ours
 * (not the user's, not 0700, no marker, a link) is left. 0 or -1 (error set).
 */
int agent_leftover_finish_root(int parent_fd, const char *parent, const char *name,
			       struct agent_leftover_progress *progress);

/*
 * Finishes the leftovers in the directory parent_fd (parent: its path, for
 * messages), other than own (this agent's root name): waits for those whose
 * remover is at work, removes those whose remover is gone. Only a directory
 * of the user's, mode 0700, holding a marker is taken. Returns 0 or -1
 * (error set: one that could not be removed, or a remover still at work
 * after AGENT_LEFTOVER_WAIT_S).
 */
int agent_leftovers_finish(int parent_fd, const char *parent, const char *own,
			   struct agent_leftover_progress *progress);

#endif
