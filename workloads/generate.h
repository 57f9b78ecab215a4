#ifndef XFERCMP_GENERATE_H
#define XFERCMP_GENERATE_H

#include "manifest.h"
#include "workload.h"

#include <stdbool.h>
#include <stdint.h>

struct generate_stats {
	uint64_t files, bytes, dirs;
	uint64_t symlinks, hardlinks;	/* tree features; 0 without */
	double seconds;
};

/*
 * Writes the workload into dir (created if missing; refused unless empty)
 * with `threads` threads overlapping the creates, and fills m (sorted) with
 * the manifest. With spec->features on, the tree and m hold them too
 * (directories, links, modes, mtimes; m equals manifest_from_tree of the
 * tree); without, m lists only the files, without mtimes. On failure, removes what it wrote (dir itself too if it
 * created it). progress: draw a progress line on stderr.
 * Returns 0 or -1 (error set).
 */
int workload_generate(const struct workload_spec *spec, const char *dir, unsigned threads,
		      bool progress, struct manifest *m, struct generate_stats *st);

/*
 * Asks a running (or the next) workload_generate to stop (on true): its
 * threads stop at their next file, and it fails with "interrupted" after
 * removing what it wrote, as after any failure. One atomic store:
 * async-signal-safe, so a signal handler may call it. false withdraws the
 * request (for a later generation in the same process).
 */
void workload_generate_cancel(bool on);

#endif
