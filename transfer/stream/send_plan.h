#ifndef XFERCMP_SEND_PLAN_H
#define XFERCMP_SEND_PLAN_H

#include "manifest.h"

#include <stddef.h>
#include <stdint.h>

/*
 * What one stream sends: the tree's directories, whole files (or byte ranges
 * of large files when a tree is spread over several streams), symbolic links
 * and hard links, each one record of transfer/stream/frames.h. Items point
 * into the manifest, which must outlive the plan.
 *
 * Order: directories first (in path order, so parents before children),
 * then files, then links. The receiver applies directory modes and mtimes,
 * file mtimes and hard links once every stream has ended, so this order is
 * not needed for correctness, only for fewer surprises (a directory's
 * record before the files that would otherwise make it with mode 0755).
 */

enum send_kind {
	SEND_FILE,		/* a whole file: FRAME_FILE */
	SEND_RANGE,		/* a byte range of a file: FRAME_RANGE */
	SEND_DIR,		/* a directory: FRAME_DIR */
	SEND_SYMLINK,		/* a symbolic link: FRAME_SYMLINK, link is its text */
	SEND_HARDLINK,		/* a hard link: FRAME_HARDLINK, link is the primary's path */
};

struct send_item {
	const char *path;	/* relative to the source root */
	const char *link;	/* SYMLINK, HARDLINK: the record's content; NULL otherwise */
	uint64_t offset, length;	/* length: content bytes (a link's text) */
	uint64_t file_size;
	uint32_t mode;
	int64_t mtime;		/* FILE, RANGE, DIR; MANIFEST_NO_MTIME when unknown */
	enum send_kind kind;
};

struct send_plan {
	struct send_item *items;
	size_t count, alloc;
	uint64_t bytes;		/* file content (FILE and RANGE lengths), not link text */
};

/*
 * Splits m into `streams` plans of about equal bytes: files above
 * range_threshold bytes are cut into ranges of about range_threshold / 2 or
 * more, so one large file fills every stream. Directories and links all go
 * to plans[0] (they carry no content to balance). plans[] has `streams`
 * entries, each released with send_plan_release. Returns 0 or -1 (error set).
 */
int send_plan_split(const struct manifest *m, unsigned streams, uint64_t range_threshold,
		    struct send_plan *plans);

/* The whole manifest as one plan: directories, whole files, links, each kind in path order. */
int send_plan_whole(const struct manifest *m, struct send_plan *plan);

void send_plan_release(struct send_plan *plan);

#endif
