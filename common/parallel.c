#define _GNU_SOURCE
#include "parallel.h"

#include "err.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct pool {
	uint64_t n, next, done;
	unsigned chunk;
	int failed;
	parallel_fn fn;
	void *ctx;
	pthread_mutex_t lock;
	struct err_saved error;	/* the first failure's message, from its worker */
};

struct worker_arg {
	struct pool *pool;
	unsigned id;
};

static void *worker_main(void *p)
{
	struct worker_arg *w = p;
	struct pool *pool = w->pool;

	for (;;) {
		uint64_t start = __atomic_fetch_add(&pool->next, pool->chunk, __ATOMIC_RELAXED);
		uint64_t end;

		if (start >= pool->n || __atomic_load_n(&pool->failed, __ATOMIC_RELAXED))
			break;
		end = start + pool->chunk < pool->n ? start + pool->chunk : pool->n;
		for (uint64_t i = start; i < end; i++) {
			if (pool->fn(pool->ctx, w->id, i) != 0) {
				pthread_mutex_lock(&pool->lock);
				if (!pool->failed) {
					pool->failed = 1;
					err_save(&pool->error);
				}
				pthread_mutex_unlock(&pool->lock);
				return NULL;
			}
		}
		__atomic_fetch_add(&pool->done, end - start, __ATOMIC_RELAXED);
	}
	return NULL;
}

int parallel_for(uint64_t n, unsigned threads, unsigned chunk, parallel_fn fn, void *ctx,
		 parallel_progress_fn progress)
{
	struct pool pool = { .n = n, .chunk = chunk ? chunk : 1, .fn = fn, .ctx = ctx };
	pthread_t *tids;
	struct worker_arg *args;
	unsigned started = 0;

	if (threads == 0)
		threads = 1;
	if (threads > n)
		threads = n ? (unsigned)n : 1;
	tids = calloc(threads, sizeof(*tids));
	args = calloc(threads, sizeof(*args));
	if (!tids || !args) {
		free(tids);
		free(args);
		return err_set("out of memory starting %u threads", threads);
	}
	pthread_mutex_init(&pool.lock, NULL);
	for (unsigned t = 0; t < threads; t++) {
		args[t].pool = &pool;
		args[t].id = t;
		if (pthread_create(&tids[t], NULL, worker_main, &args[t]) != 0)
			break;
		started++;
	}
	if (started == 0) {
		/* no thread could start: do the work here rather than fail */
		args[0].pool = &pool;
		worker_main(&args[0]);
	}
	if (progress) {
		struct timespec tick = { 0, 100 * 1000 * 1000 };

		while (__atomic_load_n(&pool.done, __ATOMIC_RELAXED) < n &&
		       !__atomic_load_n(&pool.failed, __ATOMIC_RELAXED)) {
			progress(ctx, __atomic_load_n(&pool.done, __ATOMIC_RELAXED), n);
			nanosleep(&tick, NULL);
		}
	}
	for (unsigned t = 0; t < started; t++)
		pthread_join(tids[t], NULL);
	if (progress && !pool.failed)
		progress(ctx, n, n);
	pthread_mutex_destroy(&pool.lock);
	free(tids);
	free(args);
	if (pool.failed)
		return err_restore(&pool.error);
	return 0;
}

unsigned parallel_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned)n : 1;
}
