/* Unit tests for workloads/hash_bufs.c: one separate, full-size buffer per worker. */
#include "testutil.h"

#include "hash_bufs.h"
#include "parallel.h"

#include <stdint.h>

#define SIZE 4096

static void test_one_buffer_per_worker(void **state)
{
	struct hash_bufs b;

	(void)state;
	assert_int_equal(hash_bufs_init(&b, 4, SIZE), 0);
	assert_int_equal(b.count, 4);
	assert_int_equal(b.size, SIZE);
	for (unsigned w = 0; w < b.count; w++) {
		assert_non_null(b.buf[w]);
		/* every byte is usable, and no two buffers overlap */
		memset(b.buf[w], (int)w + 1, SIZE);
	}
	for (unsigned w = 0; w < b.count; w++)
		for (size_t i = 0; i < SIZE; i++)
			if (b.buf[w][i] != w + 1)
				fail_msg("buffer %u byte %zu overwritten", w, i);
	hash_bufs_release(&b);
	assert_null(b.buf);
	assert_int_equal(b.count, 0);
	/* twice is safe */
	hash_bufs_release(&b);
}

/* parallel_for runs one worker when asked for none: so is one buffer made. */
static void test_zero_counts_as_one(void **state)
{
	struct hash_bufs b;

	(void)state;
	assert_int_equal(hash_bufs_init(&b, 0, 16), 0);
	assert_int_equal(b.count, 1);
	assert_non_null(b.buf[0]);
	hash_bufs_release(&b);
}

static void test_release_zeroed(void **state)
{
	struct hash_bufs b = { 0 };

	(void)state;
	hash_bufs_release(&b);
	assert_null(b.buf);
}

struct use_ctx {
	struct hash_bufs *b;
	unsigned bad;	/* atomic: a worker saw another's mark */
};

/* Each worker marks its buffer with its id and checks the mark after filling it. */
static int use_buffer(void *p, unsigned worker, uint64_t i)
{
	struct use_ctx *c = p;
	unsigned char *buf = c->b->buf[worker];

	memset(buf, (int)(worker + 1), c->b->size);
	buf[i % c->b->size] = (unsigned char)(worker + 1);
	for (size_t k = 0; k < c->b->size; k++)
		if (buf[k] != (unsigned char)(worker + 1))
			__atomic_store_n(&c->bad, 1, __ATOMIC_RELAXED);
	return 0;
}

static void test_workers_do_not_share(void **state)
{
	struct hash_bufs b;
	struct use_ctx c = { .b = &b };

	(void)state;
	assert_int_equal(hash_bufs_init(&b, 4, 512), 0);
	assert_int_equal(parallel_for(4000, 4, 1, use_buffer, &c, NULL), 0);
	assert_int_equal(c.bad, 0);
	hash_bufs_release(&b);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_buffer_per_worker),
		cmocka_unit_test(test_zero_counts_as_one),
		cmocka_unit_test(test_release_zeroed),
		cmocka_unit_test(test_workers_do_not_share),
	};

	return test_run("hash_bufs", tests, ARRAY_LEN(tests), NULL, 0);
}
