#ifndef XFERCMP_FRAMES_TREE_H
#define XFERCMP_FRAMES_TREE_H

#include <stdint.h>
#include <sys/types.h>

/*
 * What the record streams of one receive (transfer/stream/frames.h) leave
 * for their end: hard links, file mtimes, directory modes and mtimes. None
 * can be done when its record arrives: a hard link's primary may still be in
 * flight (in the io_uring chains, or on another stream), a file's content is
 * complete only when every range of it arrived, and a directory's mtime
 * changes with every entry made in it, as a 0555 directory refuses them.
 * So each stream notes them in a frames_later list (no lock: one list per
 * stream), hands the list to the shared frames_tree when it ended cleanly,
 * and frames_tree_finish applies them all once every stream has ended: hard
 * links, then file mtimes, then directories deepest first (mode, then
 * mtime), so nothing made afterwards changes what was set.
 *
 * Every path is resolved as beneath.h says (never through a link, never
 * outside dest); a hard link's primary must be a regular file there.
 */

struct frames_later_item;

struct frames_later {
	struct frames_later_item *v;
	size_t n, alloc;
};

/* Each copies its strings; returns 0 or -1 (error set). */
int frames_later_hardlink(struct frames_later *l, const char *path, const char *primary);
int frames_later_mtime(struct frames_later *l, const char *path, int64_t mtime);
/* has_mtime 0: only the mode. */
int frames_later_dir(struct frames_later *l, const char *path, mode_t mode, int has_mtime,
		     int64_t mtime);
void frames_later_release(struct frames_later *l);

struct frames_tree;

/*
 * The shared end of a receive into the directory dirfd (duplicated: the
 * caller keeps its own); dest names it in messages and must outlive the
 * tree. Every stream and the finish work beneath that descriptor, never by
 * the path again. NULL (error set) when out of memory.
 */
struct frames_tree *frames_tree_new_at(int dirfd, const char *dest);

/* The same for a path the caller trusts (tests, local use): opened here, once. */
struct frames_tree *frames_tree_new(const char *dest);

/* The destination's descriptor, owned by t. */
int frames_tree_dirfd(const struct frames_tree *t);

/* Takes over what l holds (l is left empty), from any thread. Returns 0 or -1 (error set). */
int frames_tree_add(struct frames_tree *t, struct frames_later *l);

/*
 * With ok, applies everything handed over, in the order above, stopping at
 * the first failure. Frees t either way. Returns 0, or -1 (error set).
 */
int frames_tree_finish(struct frames_tree *t, int ok);

#endif
