#ifndef XFERCMP_COMPARE_CLEANUP_H
#define XFERCMP_COMPARE_CLEANUP_H

/*
 * The comparison's cleanup, before its report (compare_cleanup.c): every
 * copy on the host (the agent's "remove") and this machine's temporary
 * trees (a generated source, emptied; the sample's tree, removed) go at
 * once, each with many removals in flight, while a terminal shows
 * "removing 120,000 files on the host: 40%".
 */

#include "compare.h"

#include <stdbool.h>

/*
 * Removes the host's copies and, here, empties empty_dir and removes
 * remove_dir (each NULL or "" for none). show: the status line on stderr
 * (a terminal); verbose: one line when done. Fills t's cleanup figures.
 * Returns 0, or -1 (error set) when something here could not be removed;
 * the host's leftovers are the session close's to say (agent_client.c).
 */
int compare_cleanup(struct compare_session *s, const char *empty_dir, const char *remove_dir,
		    bool show, bool verbose, struct report_timing *t);

#endif
