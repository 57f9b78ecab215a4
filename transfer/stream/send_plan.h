#ifndef XFERCMP_SEND_PLAN_H
#define XFERCMP_SEND_PLAN_H

#include "manifest.h"

#include <stddef.h>
#include <stdint.h>

/*
 * What one stream sends: whole files, or byte ranges of large files when a
 * tree is spread over several streams. Items point into the manifest, which
 * must outlive the plan.
 */

struct send_item {
	const char *path;	/* relative to the source root */
	uint64_t offset, length;
	uint64_t file_size;
	uint32_t mode;
	int whole;		/* 1: the whole file (FRAME_FILE); 0: a range (FRAME_RANGE) */
};

struct send_plan {
	struct send_item *items;
	size_t count, alloc;
	uint64_t bytes;
};

/*
 * Splits m into `streams` plans of about equal bytes: files above
 * range_threshold bytes are cut into ranges of about range_threshold / 2 or
 * more, so one large file fills every stream. plans[] has `streams` entries,
 * each released with send_plan_release. Returns 0 or -1 (error set).
 */
int send_plan_split(const struct manifest *m, unsigned streams, uint64_t range_threshold,
		    struct send_plan *plans);

/* The whole manifest as one plan of whole files, in manifest (path) order. */
int send_plan_whole(const struct manifest *m, struct send_plan *plan);

void send_plan_release(struct send_plan *plan);

#endif
