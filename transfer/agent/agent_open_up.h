#ifndef XFERCMP_AGENT_OPEN_UP_H
#define XFERCMP_AGENT_OPEN_UP_H

/*
 * Verifying a destination as a user other than root: a directory that came
 * with mode 0000 (or without the owner's read or search) cannot be walked,
 * so "verify" failed with "cannot read ...: Permission denied" on a copy
 * that was right. Before the walk, each such directory the agent owns is
 * given u+rwx for the time of the check, its mode noted; after it, each
 * gets its mode back, deepest first. verify_tree_noted reports the noted
 * modes, not the opened ones. Root (which may walk anything) opens nothing.
 */

#include "verify.h"

#include <stddef.h>

struct opened_dirs {
	struct verify_mode_note *v;
	size_t n, alloc;
};

/*
 * Opens up the directories beneath dirfd (never through a link) as above.
 * Returns 0 or -1 (error set; what was opened is still noted in o: restore it).
 */
int agent_open_up(int dirfd, struct opened_dirs *o);

/* Gives each noted directory its mode back, deepest first, and frees o. Returns 0 or -1 (error set). */
int agent_open_up_restore(int dirfd, struct opened_dirs *o);

#endif
