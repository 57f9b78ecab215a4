/* A sample's one-file tree (workload_sample.h, workload_sample_one). */
#include "workload_sample.h"

#include "err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether dir is path's directory or one above it. */
static bool holds(const char *dir, const char *path)
{
	size_t n = strlen(dir);

	return strncmp(dir, path, n) == 0 && path[n] == '/';
}

/* The sample's smallest file that is not empty (the first, when all are). */
static size_t smallest(const struct manifest *m)
{
	size_t pick = 0;

	for (size_t i = 1; i < m->count; i++) {
		uint64_t size = m->entries[i].size, best = m->entries[pick].size;

		if (size > 0 && (best == 0 || size < best))
			pick = i;
	}
	return pick;
}

int workload_sample_one(const struct workload_sample *sample, struct workload_sample *out)
{
	const struct manifest *m = &sample->m;
	const struct manifest_entry *e;
	size_t pick;
	uint64_t size;
	bool cut;

	memset(out, 0, sizeof(*out));
	manifest_init(&out->m);
	if (m->count == 0 || !sample->sources)
		return err_set("the sample holds no regular file to take one of");
	pick = smallest(m);
	e = &m->entries[pick];
	out->request = (struct workload_sample_request){ .unit = WORKLOAD_SAMPLE_FILES, .value = 1, .text = "1" };
	out->seed = sample->seed;
	out->whole = sample->whole;
	if (!(out->sources = malloc(sizeof(*out->sources))))
		return err_set("out of memory for the one-file tree");
	out->sources[0] = sample->sources[pick];
	cut = e->size > WORKLOAD_SAMPLE_ONE_MAX;
	size = cut ? WORKLOAD_SAMPLE_ONE_MAX : e->size;
	if (cut) {
		out->sources[0].len = size;
		out->sources[0].piece = true;
	}
	/* one file of the whole's; of a one-file whole, its share of the bytes */
	out->fraction = sample->whole.files > 1 ? 1.0 / (double)sample->whole.files :
			sample->whole.bytes > 0 ? (double)size / (double)sample->whole.bytes : 1.0;
	if (manifest_add_file(&out->m, e->path, size, e->mode, e->mtime, cut ? 0 : e->xxh3) < 0)
		goto fail;
	for (size_t k = 0; k < m->ndirs; k++)
		if (holds(m->dirs[k].path, e->path) &&
		    manifest_add_dir(&out->m, m->dirs[k].path, m->dirs[k].mode, m->dirs[k].mtime) < 0)
			goto fail;
	manifest_sort(&out->m);
	if (manifest_check(&out->m) < 0)
		goto fail;
	workload_sample_count(&out->m, &out->sample);
	out->cut_files = out->pieces = out->sources[0].piece;
	snprintf(out->method, sizeof(out->method), "one file of the sample, its smallest not empty (%s, %llu bytes%s)",
		 e->path, (unsigned long long)size, cut ? ": its first bytes" : "");
	return 0;
fail:
	workload_sample_release(out);
	return -1;
}
