#ifndef XFERCMP_STRATEGY_SCP_COVER_H
#define XFERCMP_STRATEGY_SCP_COVER_H

/*
 * What the system's scp is given (real_scp.c), so that it ends well on a
 * real tree. OpenSSH's scp -r refuses some nodes (SFTP mode: a symbolic link
 * to a directory or to nothing is an error, exit 1) and follows others into
 * places that are not the tree (scp -O: a link to a directory is copied as
 * that directory, a link to / as the whole system). A person who knows that
 * gives scp the tree minus those nodes: the directories on the way to them
 * are made on the host, and scp copies every other child of each such
 * directory into it, with -r, one command a directory. This is that plan;
 * which nodes to leave out is the caller's (scp_cover_cut_fn).
 *
 * Pure: it reads only the manifest and asks the caller about each node.
 * Nodes are walked and sources listed in tree order (scp_tree_order_cmp).
 */

#include "manifest.h"

#include <stddef.h>
#include <stdint.h>

/* kinds passed to scp_cover_cut_fn */
#define SCP_NODE_FILE 'f'
#define SCP_NODE_HARDLINK 'h'
#define SCP_NODE_SYMLINK 'l'
#define SCP_NODE_DIR 'd'
#define SCP_NODE_SPECIAL 's'

/* Returns 1 when scp must not be given the node at path (relative) of kind, else 0. */
typedef int (*scp_cover_cut_fn)(void *ctx, const char *path, char kind);

/* One scp command's worth: sources[first .. first+n) go into DEST/dir. */
struct scp_batch {
	const char *dir;	/* relative, "" for the destination itself */
	size_t first, n;
};

/* A directory made on the host before scp runs (and given its mode after). */
struct scp_made_dir {
	const char *path;	/* relative, never "" */
	uint32_t mode;		/* the manifest's; 0755 for a directory it does not list */
};

struct scp_cover {
	const char **sources;	/* relative paths, each given to scp -r; point into the manifest */
	size_t nsources;
	struct scp_batch *batches;	/* parents before children; the root's first (it may be empty) */
	size_t nbatches;
	struct scp_made_dir *made;	/* parents before children */
	size_t nmade;
	size_t cut;		/* nodes left out (not counting those below a directory left out) */
	size_t cut_symlinks;	/* of those, symbolic links */
	char **owned;		/* the paths of parents the manifest does not list */
	size_t nowned;
	char **implied;		/* directories the paths imply but the manifest does not list */
	size_t nimplied;
};

/*
 * Plans c for m (sorted). Each node is asked about at most once, parents
 * before children; below a directory that is cut nothing is asked. Without
 * cuts the plan is one batch, the root's, of the top-level nodes, and no
 * directory to make. Returns 0 or -1 (error set: out of memory). Release c
 * with scp_cover_release, also after a failure.
 */
int scp_cover_plan(const struct manifest *m, scp_cover_cut_fn cut, void *ctx, struct scp_cover *c);

void scp_cover_release(struct scp_cover *c);

#endif
