/* The bounds of one receive, from the manifest. See recv_opts.h. */
#include "stream/recv_opts.h"

#include "err.h"
#include "stream/frames.h"

#include <string.h>

#define MIB (1ull << 20)
/*
 * Framing a record stream adds beyond the manifest's text (which holds every
 * path and link text once): a record header, and for the pieces of a file
 * cut into ranges its path again; send_plan.h cuts pieces of at least
 * 32 MiB, so a file of S bytes has at most S / 32 MiB + 1 of them, one
 * each stream may split off more. A tar stream: a 512-byte header, a pax
 * or GNU long-name header and its data (at most 1 KiB and twice the path),
 * and padding to 512, per node; the end marker and a last block (GNU tar
 * pads to 10 KiB records; libarchive's blocks are 1 MiB).
 */
#define RANGE_MIN (32 * MIB)
#define TAR_PER_NODE 2048

void recv_bounds_set(struct recv_bounds *b, const struct manifest *m, uint64_t manifest_bytes,
		     enum recv_kind kind, unsigned streams)
{
	uint64_t nodes = manifest_nodes(m);
	uint64_t pieces = nodes + m->total_bytes / RANGE_MIN + 2ull * streams + 1;

	memset(b, 0, sizeof(*b));
	b->idle_ms = RECV_IDLE_S * 1000;
	b->max_tar = m->total_bytes + nodes * TAR_PER_NODE + 2 * manifest_bytes + 2 * MIB;
	if (kind == RECV_TAR) {
		/* zstd's worst case (incompressible data) adds well under 1% */
		b->max_payload = b->max_tar + b->max_tar / 64 + MIB;
	} else {
		b->max_payload = m->total_bytes + manifest_bytes +
				 pieces * (FRAME_HEADER + FRAME_PATH_MAX) + MIB;
	}
	b->max_dirs = m->ndirs;
	b->max_mtimes = m->count;
	b->max_links = m->nhardlinks;
	b->max_names = manifest_bytes;
}

uint64_t recv_bounds_tree_memory(const struct manifest *m, uint64_t manifest_bytes)
{
	/* the names (path and NUL, twice for a hard link's primary), and a list entry each, doubled as lists grow */
	return manifest_bytes + 2 * (m->ndirs + m->count + m->nhardlinks) * 64;
}

int recv_bounds_take(const struct recv_bounds *b, atomic_uint_fast64_t *taken, uint64_t max,
		     uint64_t n, const char *what)
{
	uint64_t before;

	if (!b)
		return 0;
	before = atomic_fetch_add(taken, n);
	if (before + n > max)
		return err_set("more %s than the manifest the client sent allows (%llu): refused",
			       what, (unsigned long long)max);
	return 0;
}
