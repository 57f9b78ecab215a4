#ifndef XFERCMP_COMPARE_CLEANUP_H
#define XFERCMP_COMPARE_CLEANUP_H

/*
 * The comparison's cleanup, before its report (compare_cleanup.c): every
 * copy on the host (the agent's "remove") and this machine's temporary
 * trees (a generated source, emptied; the sample's tree, removed) go at
 * once, each with many removals in flight, while a terminal shows
 * "removing 120,000 files on the host: 40%". Or the host's copies go to a
 * remover of the agent's after xfercmp exits (--cleanup background), and
 * the next run finishes or waits for them in its setup.
 */

#include "compare.h"

#include <stdbool.h>

/*
 * Removes the host's copies and, here, empties empty_dir and removes
 * remove_dir (each NULL or "" for none). background: the host's copies go
 * to the agent's remover instead (agent/agent_leftover.h), the session
 * ending at once; an agent that cannot removes them before it answers.
 * show: the status line on stderr (a terminal); verbose: one line when
 * done. Fills t's cleanup figures. Returns 0, or -1 (error set) when
 * something here could not be removed; the host's leftovers are the
 * session close's to say (agent_client.c).
 */
int compare_cleanup(struct compare_session *s, const char *empty_dir, const char *remove_dir,
		    bool show, bool verbose, bool background, struct report_timing *t);

/*
 * --cleanup: background or wait; by default background when stderr is a
 * terminal (a person waits for the prompt), wait otherwise (a script that
 * runs again or looks at the host finds it clean when xfercmp exits).
 */
bool compare_cleanup_background(const struct compare_opts *o);

/*
 * In the setup, before anything is measured: what earlier runs left to
 * the agent's remover in this scratch parent is finished, or waited for
 * while its remover works (agent/agent_leftover.h). show: a status line;
 * verbose: one line when there was any. Fills t's leftover figures.
 * Returns 0 (also when the agent has no such request), -1 (error set).
 */
int compare_finish_leftovers(struct compare_session *s, bool show, bool verbose, struct report_timing *t);

#endif
