/* A manifest's counts for the model's forecast. See workload_counts.h. */
#include "workload_counts.h"

#include <string.h>

unsigned workload_size_class(uint64_t size)
{
	unsigned k = 0;

	while (size) {
		k++;
		size >>= 1;
	}
	return k < WORKLOAD_SIZE_CLASSES ? k : WORKLOAD_SIZE_CLASSES - 1;
}

void workload_counts_of(const struct manifest *m, struct workload_counts *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < m->count; i++) {
		uint64_t size = m->entries[i].size;

		out->files++;
		out->name_bytes += strlen(m->entries[i].path);
		out->bytes += size;
		out->bytes_in_blocks += (size + 511) / 512 * 512;
		out->size_class[workload_size_class(size)]++;
		if (size > 0)
			out->nonempty_files++;
		if (size <= WORKLOAD_SMALL_FILE_BYTES) {
			out->small_files++;
			out->small_bytes += size;
			out->small_bytes_in_pages += (size + 4095) / 4096 * 4096;
		} else {
			out->large_files++;
			out->large_bytes += size;
		}
	}
	for (size_t i = 0; i < m->ndirs; i++)
		out->name_bytes += strlen(m->dirs[i].path);
	for (size_t i = 0; i < m->nsymlinks; i++)
		out->name_bytes += strlen(m->symlinks[i].path) + strlen(m->symlinks[i].target);
	for (size_t i = 0; i < m->nhardlinks; i++)
		out->name_bytes += strlen(m->hardlinks[i].path) + strlen(m->hardlinks[i].primary);
	out->dirs = m->ndirs;
	out->symlinks = m->nsymlinks;
	out->hardlinks = m->nhardlinks;
}

uint64_t workload_counts_nodes(const struct workload_counts *c)
{
	return c->files + c->symlinks + c->hardlinks;
}
