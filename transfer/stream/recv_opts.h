#ifndef XFERCMP_RECV_OPTS_H
#define XFERCMP_RECV_OPTS_H

/*
 * What a receiver of a data connection is given beside the socket: the key
 * its segments are checked with (seal_stream.h) and the bounds of the
 * receive it is part of (every stream of one receive shares them).
 *
 * The bounds come from the manifest the client sent (recv_bounds_set):
 * whatever a stream claims, a receive takes no more than the bytes that
 * manifest accounts for plus a slack for framing, no more tar bytes out of
 * a compressed stream than that, and no more directory, mtime and hard-link
 * records (nor their names' bytes) than the manifest lists, so what it
 * holds for the end of the receive (frames_tree.h) is counted in the
 * session's memory cap; a stream whose sender goes silent for
 * RECV_IDLE_S is cut. Without bounds (NULL: the unit tests, a local
 * receive) nothing is capped.
 */

#include "manifest.h"
#include "stream/seal.h"

#include <stdatomic.h>
#include <stdint.h>

/* A sender that sends nothing for this long has gone away: its stream fails. */
#define RECV_IDLE_S 120

enum recv_kind {
	RECV_FRAMES,	/* the record stream of frames.h */
	RECV_TAR,	/* a tar stream, plain or zstd */
};

struct recv_bounds {
	uint64_t max_payload;		/* checked bytes all streams may carry */
	uint64_t max_tar;		/* tar bytes a (compressed) stream may give */
	uint64_t max_dirs, max_mtimes, max_links, max_names;	/* frames: noted for the end */
	int idle_ms;			/* each read's wait; -1: none */
	atomic_uint_fast64_t payload, dirs, mtimes, links, names;	/* taken so far */
};

struct recv_opts {
	unsigned char key[SEAL_KEY_BYTES];	/* the connection's client-to-agent key */
	struct recv_bounds *bounds;		/* NULL: nothing capped */
};

/*
 * The bounds of a receive of kind carrying the tree of m (whose text is
 * manifest_bytes long) on `streams` connections. Not thread-safe (before the
 * streams start).
 */
void recv_bounds_set(struct recv_bounds *b, const struct manifest *m, uint64_t manifest_bytes,
		     enum recv_kind kind, unsigned streams);

/*
 * The memory the records noted for the end of a receive of m may take (its
 * names and list entries), for the session's cap (agent.h).
 */
uint64_t recv_bounds_tree_memory(const struct manifest *m, uint64_t manifest_bytes);

/*
 * Takes n more of what *taken counts against max (a bounds field and its
 * counter): 0, or -1 with the error set ("... more WHAT than the manifest
 * allows (MAX)") when that passes max. b NULL: always 0.
 */
int recv_bounds_take(const struct recv_bounds *b, atomic_uint_fast64_t *taken, uint64_t max,
		     uint64_t n, const char *what);

#endif
