#include "workload.h"

#include "err.h"
#include "tree_features.h"
#include "rng.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* Leaf directories are grouped under parents so no directory holds more than about 1,000 entries. */
#define LEAVES_PER_PARENT 32

int workload_parse_name(const char *name, struct workload_spec *spec)
{
	bool realistic = !strcmp(name, "realistic");

	if (!strcmp(name, "largefile"))
		spec->kind = WORKLOAD_LARGEFILE;
	else if (!strcmp(name, "smallfiles") || realistic)
		spec->kind = WORKLOAD_SMALLFILES;
	else if (!strcmp(name, "mixed"))
		spec->kind = WORKLOAD_MIXED;
	else if (!strncmp(name, "dir:", 4)) {
		if (name[4] == '\0')
			return err_set("workload 'dir:' needs a path, e.g. dir:/srv/data");
		spec->kind = WORKLOAD_DIR;
		spec->dir = name + 4;
	} else
		return err_set("unknown workload '%s': use largefile, smallfiles, mixed, realistic or dir:PATH",
			       name);
	/* the last -w decides: realistic's features go with it */
	memset(&spec->features, 0, sizeof(spec->features));
	if (realistic)
		tree_features_default(&spec->features);
	return 0;
}

void workload_apply_defaults(struct workload_spec *spec)
{
	switch (spec->kind) {
	case WORKLOAD_LARGEFILE:
		if (!spec->size)
			spec->size = WORKLOAD_DEFAULT_LARGE_SIZE;
		break;
	case WORKLOAD_SMALLFILES:
		if (!spec->files)
			spec->files = WORKLOAD_DEFAULT_FILES;
		break;
	case WORKLOAD_MIXED:
		if (!spec->files)
			spec->files = WORKLOAD_DEFAULT_MIXED_FILES;
		if (!spec->size)
			spec->size = WORKLOAD_DEFAULT_MIXED_SIZE;
		break;
	case WORKLOAD_DIR:
		break;
	}
}

const char *workload_kind_name(enum workload_kind kind)
{
	switch (kind) {
	case WORKLOAD_LARGEFILE: return "largefile";
	case WORKLOAD_SMALLFILES: return "smallfiles";
	case WORKLOAD_MIXED: return "mixed";
	case WORKLOAD_DIR: return "dir";
	}
	return "?";
}

void workload_describe(const struct workload_spec *spec, char *buf, size_t len)
{
	char features[128] = "";
	int n;

	n = snprintf(buf, len, "%s files=%llu size=%llu seed=%llu compressibility=%.6g",
		     workload_kind_name(spec->kind), (unsigned long long)workload_count(spec),
		     (unsigned long long)spec->size, (unsigned long long)spec->seed,
		     spec->compressibility);
	if (spec->features.on && n >= 0 && (size_t)n < len) {
		tree_features_format(&spec->features, features, sizeof(features));
		snprintf(buf + n, len - (size_t)n, " tree-features=%s", features);
	}
}

static uint64_t small_files(const struct workload_spec *spec)
{
	return spec->kind == WORKLOAD_LARGEFILE ? 0 : spec->files;
}

static uint64_t large_files(const struct workload_spec *spec)
{
	if (spec->kind == WORKLOAD_LARGEFILE)
		return 1;
	return spec->kind == WORKLOAD_MIXED ? WORKLOAD_MIXED_LARGE_FILES : 0;
}

uint64_t workload_count(const struct workload_spec *spec)
{
	return small_files(spec) + large_files(spec);
}

uint64_t workload_small_count(const struct workload_spec *spec)
{
	return small_files(spec);
}

uint64_t workload_small_size(uint64_t seed, uint64_t index)
{
	/*
	 * Log-normal with median 2 KiB (mu = ln 2048) and mean 4 KiB:
	 * mean = exp(mu + sigma^2 / 2) gives sigma = sqrt(2 ln 2).
	 */
	const double mu = log(2048.0), sigma = sqrt(2.0 * log(2.0));
	struct rng r;
	double u1, u2, z, size;

	rng_init(&r, seed, index, 0x5153u);
	u1 = rng_unit(&r);
	u2 = rng_unit(&r);
	if (u1 < 1e-300)
		u1 = 1e-300;
	z = sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
	size = exp(mu + sigma * z);
	if (size > (double)WORKLOAD_SMALL_CAP)
		size = (double)WORKLOAD_SMALL_CAP;
	return (uint64_t)size;
}

/* Small files first, then the large ones: "d..." sorts before "large...", so index order is path order. */
void workload_entry(const struct workload_spec *spec, uint64_t index, struct workload_entry *e)
{
	uint64_t nsmall = small_files(spec);

	e->mode = 0644;
	e->mtime = WORKLOAD_NO_MTIME;
	if (index < nsmall) {
		uint64_t leaf = index / WORKLOAD_FILES_PER_DIR;

		snprintf(e->path, sizeof(e->path), "d%04llu/d%02llu/f%08llu",
			 (unsigned long long)(leaf / LEAVES_PER_PARENT),
			 (unsigned long long)(leaf % LEAVES_PER_PARENT), (unsigned long long)index);
		e->size = workload_small_size(spec->seed, index);
		if (spec->features.on)
			tree_features_apply(spec, index, e);
		return;
	}
	if (spec->kind == WORKLOAD_LARGEFILE) {
		snprintf(e->path, sizeof(e->path), "large.bin");
		e->size = spec->size;
	} else {
		/* mixed: the large files share --size; the last takes the remainder */
		uint64_t k = index - nsmall, n = WORKLOAD_MIXED_LARGE_FILES;
		uint64_t each = spec->size / n;

		snprintf(e->path, sizeof(e->path), "large/part%llu.bin", (unsigned long long)k);
		e->size = k + 1 == n ? spec->size - each * (n - 1) : each;
	}
	if (spec->features.on)
		e->mtime = tree_features_mtime(spec->seed, e->path);
}

uint64_t workload_parent_count(const struct workload_spec *spec)
{
	uint64_t nsmall = small_files(spec);
	uint64_t leaves = (nsmall + WORKLOAD_FILES_PER_DIR - 1) / WORKLOAD_FILES_PER_DIR;

	return (leaves + LEAVES_PER_PARENT - 1) / LEAVES_PER_PARENT;
}

uint64_t workload_leaves_per_parent(void)
{
	return LEAVES_PER_PARENT;
}

uint64_t workload_dir_count(const struct workload_spec *spec)
{
	uint64_t nsmall = small_files(spec);
	uint64_t leaves = (nsmall + WORKLOAD_FILES_PER_DIR - 1) / WORKLOAD_FILES_PER_DIR;

	return leaves + (spec->kind == WORKLOAD_MIXED ? 1 : 0);
}

void workload_dir_name(const struct workload_spec *spec, uint64_t index, char *buf, unsigned len)
{
	uint64_t nsmall = small_files(spec);
	uint64_t leaves = (nsmall + WORKLOAD_FILES_PER_DIR - 1) / WORKLOAD_FILES_PER_DIR;

	if (index < leaves)
		snprintf(buf, len, "d%04llu/d%02llu", (unsigned long long)(index / LEAVES_PER_PARENT),
			 (unsigned long long)(index % LEAVES_PER_PARENT));
	else
		snprintf(buf, len, "large");
}

/*
 * Compressible material: a fixed table of word-like text that every file
 * copies pieces of, so a compressor finds matches within and across files as
 * it would in logs, source code or mail. The rest of each file is random.
 */
#define PHRASE_TABLE 8192
#define SEGMENT 256

static unsigned char phrase_table[PHRASE_TABLE];
static pthread_once_t phrase_once = PTHREAD_ONCE_INIT;

static void phrase_init(void)
{
	static const char *const words[] = {
		"the ", "data ", "file ", "transfer ", "network ", "disk ", "metadata ", "of ",
		"and ", "to ", "in ", "is ", "for ", "on ", "with ", "status=ok ", "error ",
		"request ", "user_id=", "timestamp ", "INFO ", "WARN ", "\n", "{\"key\": ", "},\n",
	};
	struct rng r;
	size_t n = 0;

	rng_init(&r, 0x70687261736573ull, 0, 0);
	while (n < PHRASE_TABLE) {
		const char *w = words[rng_next(&r) % (sizeof(words) / sizeof(words[0]))];

		for (; *w && n < PHRASE_TABLE; w++)
			phrase_table[n++] = (unsigned char)*w;
	}
}

void workload_fill(const struct workload_spec *spec, uint64_t index, uint64_t off, void *buf,
		   uint64_t len)
{
	/* Compare against a 32-bit threshold so the choice is exact integer arithmetic. */
	uint64_t threshold = (uint64_t)(spec->compressibility * 4294967296.0);
	unsigned char *p = buf;
	uint64_t done = 0;

	pthread_once(&phrase_once, phrase_init);
	while (done < len) {
		uint64_t block = (off + done) / WORKLOAD_BLOCK;
		uint64_t in_block = WORKLOAD_BLOCK - (off + done) % WORKLOAD_BLOCK;
		uint64_t n = len - done < in_block ? len - done : in_block;
		struct rng r;

		rng_init(&r, spec->seed, index, block + 1);
		for (uint64_t i = 0; i < n; i += SEGMENT) {
			uint64_t seg = n - i < SEGMENT ? n - i : SEGMENT;
			uint64_t pick = rng_next(&r);

			if ((pick & 0xffffffffu) < threshold) {
				size_t from = (size_t)((pick >> 32) % (PHRASE_TABLE - SEGMENT));

				memcpy(p + done + i, phrase_table + from, seg);
			} else {
				for (uint64_t j = 0; j < seg; j += 8) {
					uint64_t w = rng_next(&r);

					memcpy(p + done + i + j, &w, seg - j < 8 ? seg - j : 8);
				}
			}
		}
		done += n;
	}
}
