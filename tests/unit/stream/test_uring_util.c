/* Unit tests for transfer/stream/uring_util.c: ring setup, reaping, waiting. */
#define _GNU_SOURCE
#include "testutil.h"

#include "err.h"
#include "stream/uring_util.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

struct seen {
	unsigned count;
	uint64_t data[8];
	int res[8];
};

static void record(void *ctx, uint64_t data, int res)
{
	struct seen *s = ctx;

	if (s->count < ARRAY_LEN(s->data)) {
		s->data[s->count] = data;
		s->res[s->count] = res;
	}
	s->count++;
}

static void queue_nop(struct io_uring *ring, uint64_t data)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	assert_non_null(sqe);
	io_uring_prep_nop(sqe);
	io_uring_sqe_set_data64(sqe, data);
}

/* Every completion reaches the callback once, with its user_data and result, in order. */
static void test_wait_and_reap(void **state)
{
	struct io_uring ring;
	struct seen s = { 0 };

	(void)state;
	assert_int_equal(uring_setup(&ring, 8, 0, 4, 2), 0);
	assert_int_equal(uring_reap(&ring, record, &s), 0);
	queue_nop(&ring, 7);
	queue_nop(&ring, 1ull << 40);
	queue_nop(&ring, 3);
	while (s.count < 3) {
		assert_int_equal(uring_submit_wait(&ring), 0);
		uring_reap(&ring, record, &s);
	}
	assert_int_equal(s.count, 3);
	assert_int_equal(s.data[0], 7);
	assert_int_equal(s.data[1], 1ull << 40);
	assert_int_equal(s.data[2], 3);
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(s.res[i], 0);
	/* reaped completions are gone */
	assert_int_equal(uring_reap(&ring, record, &s), 0);
	io_uring_queue_exit(&ring);
}

/* A failed request's result is the negative errno, handed on as it is. */
static void test_reap_passes_errors(void **state)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct seen s = { 0 };
	char buf[4];

	(void)state;
	assert_int_equal(uring_setup(&ring, 4, 0, 1, 1), 0);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, 0, buf, sizeof(buf), 0);
	/* slot 0 is registered but empty: the read fails with EBADF */
	sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data64(sqe, 42);
	assert_int_equal(uring_submit_wait(&ring), 0);
	assert_int_equal(uring_reap(&ring, record, &s), 1);
	assert_int_equal(s.data[0], 42);
	assert_int_equal(s.res[0], -EBADF);
	io_uring_queue_exit(&ring);
}

/* The registered file slots exist: a direct open into the last one works, one past it fails. */
static void test_file_slots(void **state)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct seen s = { 0 };

	(void)state;
	assert_int_equal(uring_setup(&ring, 8, 32, 4, 2), 0);
	assert_true(ring.cq.ring_entries >= 32);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_openat_direct(sqe, AT_FDCWD, "/", O_RDONLY | O_DIRECTORY, 0, 3);
	io_uring_sqe_set_data64(sqe, 1);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_openat_direct(sqe, AT_FDCWD, "/", O_RDONLY | O_DIRECTORY, 0, 4);
	io_uring_sqe_set_data64(sqe, 2);
	while (s.count < 2) {
		assert_int_equal(uring_submit_wait(&ring), 0);
		uring_reap(&ring, record, &s);
	}
	for (unsigned i = 0; i < 2; i++) {
		if (s.data[i] == 1)
			assert_int_equal(s.res[i], 0);
		else
			assert_true(s.res[i] < 0);
	}
	io_uring_queue_exit(&ring);
}

/* A ring the kernel refuses is an error naming io_uring. */
static void test_setup_fails(void **state)
{
	struct io_uring ring;

	(void)state;
	err_clear();
	assert_int_equal(uring_setup(&ring, 0, 0, 1, 1), -1);
	assert_contains(err_msg(), "cannot set up io_uring");
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wait_and_reap),
		cmocka_unit_test(test_reap_passes_errors),
		cmocka_unit_test(test_file_slots),
		cmocka_unit_test(test_setup_fails),
	};

	return test_run("uring_util", tests, ARRAY_LEN(tests), NULL, 0);
}
