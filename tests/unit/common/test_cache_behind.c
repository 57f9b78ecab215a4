/*
 * Unit tests for common/cache_behind.c: which windows it writes back and
 * drops, that the bytes written stay right, that a failure is reported, and
 * which windows a reader's drop-behind takes out of the page cache.
 * The files live under /var/tmp (a disk, where /tmp may be tmpfs); on a
 * tmpfs nothing can be dropped, so the residency check is skipped there.
 */
#define _GNU_SOURCE
#include "testutil.h"

#include "cache_behind.h"
#include "page_cache_testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#define MiB (1u << 20)

static char path[64];

static int make_file(void **state)
{
	int fd;

	snprintf(path, sizeof(path), "/var/tmp/xfercmp-wb.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	*state = (void *)(intptr_t)fd;
	return 0;
}

static int remove_file(void **state)
{
	close((int)(intptr_t)*state);
	unlink(path);
	return 0;
}

/* Writes len bytes from off in 1 MiB writes, byte i of the file holding (i * 7) & 0xff. */
static void write_range(int fd, struct write_behind *wb, uint64_t off, uint64_t len)
{
	unsigned char *buf = malloc(MiB);

	assert_non_null(buf);
	for (uint64_t done = 0; done < len;) {
		size_t n = len - done < MiB ? (size_t)(len - done) : MiB;

		for (size_t i = 0; i < n; i++)
			buf[i] = (unsigned char)((off + done + i) * 7);
		assert_int_equal(pwrite(fd, buf, n, (off_t)(off + done)), (ssize_t)n);
		done += n;
		assert_int_equal(write_behind_wrote(wb, off + done), 0);
	}
	free(buf);
}

static void expect_content(int fd, uint64_t off, uint64_t len)
{
	unsigned char *buf = malloc(MiB);

	assert_non_null(buf);
	for (uint64_t done = 0; done < len;) {
		size_t n = len - done < MiB ? (size_t)(len - done) : MiB;

		assert_int_equal(pread(fd, buf, n, (off_t)(off + done)), (ssize_t)n);
		for (size_t i = 0; i < n; i++)
			if (buf[i] != (unsigned char)((off + done + i) * 7)) {
				print_error("byte %llu is %u\n", (unsigned long long)(off + done + i),
					    buf[i]);
				fail();
			}
		done += n;
	}
	free(buf);
}

/* 64 MiB from 0: writeback started on all 8 windows, all but the last LAG settled and dropped. */
static void test_settles_all_but_the_lag(void **state)
{
	int fd = (int)(intptr_t)*state;
	struct write_behind wb;

	write_behind_init(&wb, fd, 0);
	write_range(fd, &wb, 0, 64 * MiB);
	assert_int_equal(wb.started, 64 * MiB);
	assert_int_equal(wb.settled, 64 * MiB - WRITE_BEHIND_LAG);
	if (!on_tmpfs(fd))
		assert_int_equal(resident_pages(fd, 0, wb.settled), 0);
	expect_content(fd, 0, 64 * MiB);
}

/* A range from an offset inside the file counts its windows from there; a tail under a window waits. */
static void test_range_from_offset(void **state)
{
	int fd = (int)(intptr_t)*state;
	uint64_t off = 3 * MiB + 4096, len = 5 * WRITE_BEHIND_WINDOW + 12345;
	struct write_behind wb;

	write_behind_init(&wb, fd, off);
	write_range(fd, &wb, off, len);
	assert_int_equal(wb.started, off + 5 * WRITE_BEHIND_WINDOW);
	assert_int_equal(wb.settled, off + 5 * WRITE_BEHIND_WINDOW - WRITE_BEHIND_LAG);
	expect_content(fd, off, len);
}

/* Under one window written, nothing is started or settled. */
static void test_short_write_starts_nothing(void **state)
{
	int fd = (int)(intptr_t)*state;
	struct write_behind wb;

	write_behind_init(&wb, fd, 0);
	write_range(fd, &wb, 0, WRITE_BEHIND_WINDOW - 1);
	assert_int_equal(wb.started, 0);
	assert_int_equal(wb.settled, 0);
}

/* A descriptor it cannot write back fails with errno set, not silently. */
static void test_bad_fd_fails(void **state)
{
	struct write_behind wb;
	int fd = open("/dev/null", O_RDONLY);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	write_behind_init(&wb, fd, 0);
	errno = 0;
	assert_int_equal(write_behind_wrote(&wb, 2 * WRITE_BEHIND_WINDOW), -1);
	assert_int_equal(errno, EBADF);
}

/* Reads [off, off + len) in 1 MiB reads, telling rb each time. */
static void read_range(int fd, struct read_behind *rb, uint64_t off, uint64_t len)
{
	unsigned char *buf = malloc(MiB);

	assert_non_null(buf);
	for (uint64_t done = 0; done < len;) {
		size_t n = len - done < MiB ? (size_t)(len - done) : MiB;

		assert_int_equal(pread(fd, buf, n, (off_t)(off + done)), (ssize_t)n);
		done += n;
		read_behind_done(rb, off + done);
	}
	free(buf);
}

/* A file of len bytes on disk, written and synced, its pages all in the cache. */
static void written_and_cached(int fd, uint64_t len)
{
	struct write_behind wb;
	unsigned char *buf;

	write_behind_init(&wb, fd, 0);
	write_range(fd, &wb, 0, len);
	assert_int_equal(fsync(fd), 0);
	buf = malloc(MiB);
	assert_non_null(buf);
	for (uint64_t done = 0; done < len; done += MiB)
		assert_int_equal(pread(fd, buf, MiB, (off_t)done), (ssize_t)MiB);
	free(buf);
}

/* 64 MiB read from 0: every window ending LAG or more behind is out of the cache, the rest in. */
static void test_read_drops_all_but_the_lag(void **state)
{
	int fd = (int)(intptr_t)*state;
	long page = sysconf(_SC_PAGESIZE);
	struct read_behind rb;

	written_and_cached(fd, 64 * MiB);
	read_behind_init(&rb, fd, 0);
	read_range(fd, &rb, 0, 64 * MiB);
	assert_int_equal(rb.dropped, 64 * MiB - READ_BEHIND_LAG);
	if (on_tmpfs(fd))
		return;
	assert_int_equal(resident_pages(fd, 0, rb.dropped), 0);
	assert_int_equal(resident_pages(fd, rb.dropped, 64 * MiB - rb.dropped),
			 (64 * MiB - rb.dropped) / (uint64_t)page);
	expect_content(fd, 0, 64 * MiB);
}

/* A range read from an offset counts its windows from there; under LAG + a window, nothing goes. */
static void test_read_range_from_offset(void **state)
{
	int fd = (int)(intptr_t)*state;
	uint64_t off = 3 * MiB;
	struct read_behind rb;

	written_and_cached(fd, 48 * MiB);
	read_behind_init(&rb, fd, off);
	read_range(fd, &rb, off, READ_BEHIND_LAG + READ_BEHIND_WINDOW - MiB);
	assert_int_equal(rb.dropped, off);
	read_range(fd, &rb, off + READ_BEHIND_LAG + READ_BEHIND_WINDOW - MiB, MiB);
	assert_int_equal(rb.dropped, off + READ_BEHIND_WINDOW);
	if (!on_tmpfs(fd))
		assert_int_equal(resident_pages(fd, 0, 48 * MiB),
				 (48 * MiB - READ_BEHIND_WINDOW) / (uint64_t)sysconf(_SC_PAGESIZE));
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_settles_all_but_the_lag, make_file, remove_file),
		cmocka_unit_test_setup_teardown(test_range_from_offset, make_file, remove_file),
		cmocka_unit_test_setup_teardown(test_short_write_starts_nothing, make_file, remove_file),
		cmocka_unit_test(test_bad_fd_fails),
		cmocka_unit_test_setup_teardown(test_read_drops_all_but_the_lag, make_file, remove_file),
		cmocka_unit_test_setup_teardown(test_read_range_from_offset, make_file, remove_file),
	};

	return test_run("cache_behind", tests, ARRAY_LEN(tests), NULL, 0);
}
