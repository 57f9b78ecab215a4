/* The process's sent-files and sent-bytes counters (sent_progress.h). */
#include "sent_progress.h"

#include <stdatomic.h>

static _Atomic uint64_t files_sent, bytes_sent;

void sent_progress_file(void)
{
	atomic_fetch_add_explicit(&files_sent, 1, memory_order_relaxed);
}

void sent_progress_bytes(uint64_t n)
{
	atomic_fetch_add_explicit(&bytes_sent, n, memory_order_relaxed);
}

void sent_progress_read(uint64_t *files, uint64_t *bytes)
{
	*files = atomic_load_explicit(&files_sent, memory_order_relaxed);
	*bytes = atomic_load_explicit(&bytes_sent, memory_order_relaxed);
}

void sent_progress_reset(void)
{
	atomic_store_explicit(&files_sent, 0, memory_order_relaxed);
	atomic_store_explicit(&bytes_sent, 0, memory_order_relaxed);
}
