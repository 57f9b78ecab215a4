#ifndef XFERCMP_DIRTY_LIMIT_H
#define XFERCMP_DIRTY_LIMIT_H

/*
 * How much written data this machine keeps in its page cache before it
 * starts writing it back: the kernel's background dirty threshold
 * (vm.dirty_background_bytes, or vm.dirty_background_ratio percent of the
 * memory that can hold dirty pages: free pages and the file cache, as
 * mm/page-writeback.c's global_dirtyable_memory counts them). A copy smaller
 * than this is written to disk only when it is flushed (docs/MODEL.md,
 * "The flush").
 */

#include <stdint.h>

/*
 * The threshold from the texts of /proc/meminfo, dirty_background_bytes and
 * dirty_background_ratio. Returns bytes, or 0 when the texts say nothing usable.
 */
uint64_t dirty_limit_parse(const char *meminfo, const char *bytes, const char *ratio);

/* The same from this machine's /proc; 0 when unreadable. */
uint64_t dirty_limit_read(void);

#endif
