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
 * Returns 0, or -1 (error set) when something could not be removed.
 */
int compare_cleanup(struct compare_session *s, const char *empty_dir, const char *remove_dir,
		    bool show, bool verbose, struct report_timing *t);

/*
 * The status line: "removing 120,000 files on the host: 40%" and, when
 * local_found, ", 20,000 here: 70%"; before the host's walk has listed
 * everything, "removing the copies on the host (35,000 files so far)".
 * Pure, for the tests.
 */
void compare_cleanup_format(char *buf, size_t len, uint64_t host_found, uint64_t host_removed,
			    bool host_walked, uint64_t local_found, uint64_t local_removed);

#endif
