/* Unit tests for common/pipeutil.c: a close-on-exec pipe, sized as large as allowed. */
#define _GNU_SOURCE
#include "testutil.h"

#include "pipeutil.h"

#include <fcntl.h>
#include <unistd.h>

static void test_sized_and_cloexec(void **state)
{
	int fds[2] = { -1, -1 };
	size_t size = 0;
	char c = 'x';

	(void)state;
	assert_int_equal(pipe_open_large(fds, &size), 0);
	assert_true(fds[0] >= 0 && fds[1] >= 0);
	/* what it reports is the pipe's real size, within the bounds it asks for */
	assert_int_equal(size, (size_t)fcntl(fds[1], F_GETPIPE_SZ));
	assert_true(size >= PIPE_MIN);
	assert_true(fcntl(fds[0], F_GETFD) & FD_CLOEXEC);
	assert_true(fcntl(fds[1], F_GETFD) & FD_CLOEXEC);
	/* and it is a working pipe, write end second */
	assert_int_equal(write(fds[1], &c, 1), 1);
	c = 0;
	assert_int_equal(read(fds[0], &c, 1), 1);
	assert_int_equal(c, 'x');
	close(fds[0]);
	close(fds[1]);
}

/* Without privilege the size is capped by pipe-max-size; it still gets the most it may. */
static void test_takes_the_most_allowed(void **state)
{
	FILE *f = fopen("/proc/sys/fs/pipe-max-size", "r");
	unsigned long max = 0;
	int fds[2];
	size_t size;

	(void)state;
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%lu", &max), 1);
	fclose(f);
	assert_int_equal(pipe_open_large(fds, &size), 0);
	if (max >= PIPE_WANT || geteuid() == 0)
		assert_int_equal(size, PIPE_WANT);
	else
		assert_true(size >= PIPE_MIN && size <= max);
	close(fds[0]);
	close(fds[1]);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sized_and_cloexec),
		cmocka_unit_test(test_takes_the_most_allowed),
	};

	return test_run("pipeutil", tests, ARRAY_LEN(tests), NULL, 0);
}
