/*
 * For the unit tests that check what a reader or writer leaves in the page
 * cache (common/cache_behind.c and its users): mincore(2) over a mapping.
 * Nothing can be dropped on a tmpfs, so those checks are skipped there.
 * Header only, as testutil.h.
 */
#ifndef XFERCMP_PAGE_CACHE_TESTUTIL_H
#define XFERCMP_PAGE_CACHE_TESTUTIL_H

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

/* statfs(2)'s f_type of a tmpfs (linux/magic.h) */
#define TMPFS_MAGIC_NUMBER 0x01021994

/* Pages of [off, off + len) of fd that are in the page cache; off a page's multiple. */
static __attribute__((unused)) size_t resident_pages(int fd, uint64_t off, uint64_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t pages = (size_t)((len + (uint64_t)page - 1) / (uint64_t)page), count = 0;
	unsigned char *vec = malloc(pages ? pages : 1);
	void *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, (off_t)off);

	assert_non_null(vec);
	assert_true(map != MAP_FAILED);
	assert_int_equal(mincore(map, len, vec), 0);
	for (size_t i = 0; i < pages; i++)
		count += vec[i] & 1;
	munmap(map, len);
	free(vec);
	return count;
}

static __attribute__((unused)) int on_tmpfs(int fd)
{
	struct statfs st;

	return fstatfs(fd, &st) == 0 && st.f_type == TMPFS_MAGIC_NUMBER;
}

#endif
