/* The process's finished-files counter (files_done.h). */
#include "files_done.h"

#include <stdatomic.h>

static _Atomic uint64_t files_done;

void files_done_add(uint64_t n)
{
	atomic_fetch_add_explicit(&files_done, n, memory_order_relaxed);
}

uint64_t files_done_read(void)
{
	return atomic_load_explicit(&files_done, memory_order_relaxed);
}

void files_done_reset(void)
{
	atomic_store_explicit(&files_done, 0, memory_order_relaxed);
}
