/* Drawing a sample with the whole's shape. See workload_sample.h. */
#define _GNU_SOURCE
#include "workload_sample.h"

#include "err.h"
#include "rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* strata: size class x compressed name x in a hard-link group */
#define STRATA (WORKLOAD_SAMPLE_CLASSES * 4)
/* a file above 1/CUT_SHARE of the sample's bytes is cut into pieces (when at least CUT_MIN) */
#define CUT_SHARE 64
#define PIECE_ALIGN 4096ull
/* a cluster of neighbouring directories holds at most this share of the files wanted (order_by_clusters) */
#define CLUSTERS_PER_SAMPLE 16

/* Length of path's directory ("" for a name in the root: 0). */
static size_t parent_len(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? (size_t)(slash - path) : 0;
}

/* A directory as a prefix of a node's path. */
struct view {
	const char *p;
	size_t len;
	size_t index;	/* what it was taken from */
};

static int view_cmp(const void *a, const void *b)
{
	const struct view *x = a, *y = b;
	int c = memcmp(x->p, y->p, x->len < y->len ? x->len : y->len);

	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/*
 * The same views in tree order: '/' before every other byte, so that a
 * directory's whole subtree follows it without a gap ("a", "a/b", "a/b/c",
 * "a-c"), and directories next to each other share their ancestors.
 */
static int tree_cmp(const void *a, const void *b)
{
	const struct view *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;

	for (size_t i = 0; i < n; i++) {
		unsigned char cx = (unsigned char)x->p[i], cy = (unsigned char)y->p[i];

		if (cx != cy)
			return cx == '/' ? -1 : cy == '/' ? 1 : cx < cy ? -1 : 1;
	}
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static bool view_same(const struct view *x, const struct view *y)
{
	return x->len == y->len && !memcmp(x->p, y->p, x->len);
}

void workload_sample_count(const struct manifest *m, struct workload_sample_counts *c)
{
	struct view *v = m->count ? malloc(m->count * sizeof(*v)) : NULL;

	memset(c, 0, sizeof(*c));
	c->files = m->count;
	c->bytes = m->total_bytes;
	c->dirs = m->ndirs;
	c->symlinks = m->nsymlinks;
	c->hardlinks = m->nhardlinks;
	for (size_t i = 0; i < m->count; i++) {
		unsigned k = workload_sample_class(m->entries[i].size);

		c->class_files[k]++;
		c->class_bytes[k] += m->entries[i].size;
		c->compressed_files += workload_sample_compressed_name(m->entries[i].path);
		if (v)
			v[i] = (struct view){ m->entries[i].path, parent_len(m->entries[i].path), 0 };
	}
	if (!v)
		return;
	qsort(v, m->count, sizeof(*v), view_cmp);
	for (size_t i = 0; i < m->count; i++)
		c->dirs_with_files += i == 0 || !view_same(&v[i], &v[i - 1]);
	free(v);
}

/* Everything one draw works with. */
struct draw {
	const struct manifest *w;
	double f;
	struct rng r;
	uint32_t *extra;	/* per entry: its hard links' count */
	uint16_t *strat;	/* per entry: its stratum */
	size_t *hl_primary;	/* per hard link: its primary's entry index */
	bool *cut, *take, *dir_in, *link_in;
	struct view *groups;	/* entries by directory (index: the entry) */
	struct view *chosen;	/* the directories files were taken from, sorted */
	size_t nchosen;
};

static uint64_t below(struct rng *r, uint64_t n)
{
	return n ? rng_next(r) % n : 0;
}

static void shuffle(struct rng *r, size_t *v, size_t n)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)below(r, i), t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}

static unsigned stratum(const struct draw *d, size_t i)
{
	return d->strat[i];
}

static void index_strata(struct draw *d)
{
	for (size_t i = 0; i < d->w->count; i++) {
		const struct manifest_entry *e = &d->w->entries[i];

		d->strat[i] = (uint16_t)(workload_sample_class(e->size) * 4 +
					 2 * workload_sample_compressed_name(e->path) + (d->extra[i] > 0));
	}
}

/*
 * Each of n shares t[k] = f * count[k] rounded to a whole number so that
 * the totals hold: floor(u + running sum) differences, u drawn once.
 */
static void systematic(struct rng *r, const double *t, uint64_t *out, size_t n)
{
	double cum = rng_unit(r);

	for (size_t k = 0; k < n; k++) {
		out[k] = (uint64_t)(floor(cum + t[k]) - floor(cum));
		cum += t[k];
	}
}

/* The hard links: each one's primary, each entry's count of them. */
static int index_hardlinks(struct draw *d)
{
	const struct manifest *w = d->w;

	for (size_t h = 0; h < w->nhardlinks; h++) {
		const struct manifest_entry *e = manifest_find(w, w->hardlinks[h].primary);

		if (!e)
			return err_set("hard link '%s' names no file of the manifest", w->hardlinks[h].path);
		d->hl_primary[h] = (size_t)(e - w->entries);
		d->extra[d->hl_primary[h]]++;
	}
	return 0;
}

/* Marks the large files that give pieces instead; returns their bytes. */
static uint64_t mark_cut(struct draw *d)
{
	double sample_bytes = d->f * (double)d->w->total_bytes;
	uint64_t bytes = 0;

	for (size_t i = 0; i < d->w->count; i++) {
		uint64_t size = d->w->entries[i].size;

		d->cut[i] = !d->extra[i] && size >= WORKLOAD_SAMPLE_CUT_MIN &&
			    (double)size * CUT_SHARE > sample_bytes;
		if (d->cut[i])
			bytes += size;
	}
	return bytes;
}

/*
 * The directories' order (order[0..ngroups), whole[g]: directory g's files
 * that can be taken whole, g in tree order): clusters of directories next
 * to each other in tree order, in an order drawn from the seed, each
 * cluster's directories in tree order. Directories drawn one by one each
 * bring their own ancestors: on the system trees here a 5% sample had 2.0
 * to 3.9 times the whole's directories per file (/root/.rustup,
 * /usr/share, /usr/lib, /root/.pyenv; 2026-12-07). A cluster holds at most
 * 1/CLUSTERS_PER_SAMPLE of the files wanted (a directory larger stands
 * alone), so a sample still draws from that many places in the tree.
 */
static int order_by_clusters(struct draw *d, const uint64_t *whole, size_t ngroups, uint64_t wanted,
			     size_t *order)
{
	uint64_t cap = wanted / CLUSTERS_PER_SAMPLE > 1 ? wanted / CLUSTERS_PER_SAMPLE : 1, in = 0;
	size_t *first = malloc((ngroups + 1) * sizeof(*first)), *pick = malloc((ngroups + 1) * sizeof(*pick));
	size_t nclusters = 0, o = 0;

	if (!first || !pick) {
		free(first);
		free(pick);
		return -1;
	}
	for (size_t g = 0; g < ngroups; g++) {
		if (g == 0 || (in > 0 && in + whole[g] > cap)) {
			first[nclusters++] = g;
			in = 0;
		}
		in += whole[g];
	}
	first[nclusters] = ngroups;
	for (size_t c = 0; c < nclusters; c++)
		pick[c] = c;
	shuffle(&d->r, pick, nclusters);
	for (size_t c = 0; c < nclusters; c++)
		for (size_t g = first[pick[c]]; g < first[pick[c] + 1]; g++)
			order[o++] = g;
	free(first);
	free(pick);
	return 0;
}

/* A directory the strata still short may take from: its files of them, and its place in the order. */
struct short_source {
	uint64_t files;
	size_t at, group;
};

/* Most such files first; equal ones in the order drawn. */
static int short_source_cmp(const void *a, const void *b)
{
	const struct short_source *x = a, *y = b;

	if (x->files != y->files)
		return x->files > y->files ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/*
 * The files taken whole: each stratum's share, directory by directory in
 * the clusters' order (see workload_sample.h). First whole directories,
 * each while it brings the files taken closer to the share; then the
 * strata with more than their share give back their last ones (from the
 * directories taken last); then the strata still short take theirs from
 * the directories left that hold the most of them, within a bound.
 */
static int take_files(struct draw *d)
{
	const struct manifest *w = d->w;
	uint64_t count[STRATA] = { 0 }, want[STRATA], have[STRATA] = { 0 }, wanted = 0, taken = 0;
	uint64_t candidates = 0;
	double t[STRATA];
	size_t ngroups = 0, *start = NULL, *order = NULL, *idx = NULL, *whole = NULL, *took = NULL, o, ntook = 0;

	for (size_t i = 0; i < w->count; i++)
		if (!d->cut[i]) {
			count[stratum(d, i)]++;
			candidates++;
		}
	for (size_t k = 0; k < STRATA; k++)
		t[k] = d->f * (double)count[k];
	systematic(&d->r, t, want, STRATA);
	for (size_t k = 0; k < STRATA; k++)
		wanted += want[k];
	if (wanted == 0 && candidates > 0) {
		/* a tiny fraction of a small tree: one file, of a stratum as likely as its share */
		uint64_t pick = below(&d->r, candidates);

		for (size_t i = 0; i < w->count; i++)
			if (!d->cut[i] && pick-- == 0) {
				want[stratum(d, i)] = wanted = 1;
				break;
			}
	}
	/* the entries grouped by directory */
	for (size_t i = 0; i < w->count; i++)
		d->groups[i] = (struct view){ w->entries[i].path, parent_len(w->entries[i].path), i };
	qsort(d->groups, w->count, sizeof(*d->groups), tree_cmp);
	start = malloc((w->count + 1) * sizeof(*start));
	idx = malloc((w->count ? w->count : 1) * sizeof(*idx));
	whole = calloc(w->count + 1, sizeof(*whole));
	if (!start || !idx || !whole)
		goto oom;
	for (size_t i = 0; i < w->count; i++) {
		if (i == 0 || !view_same(&d->groups[i], &d->groups[i - 1]))
			start[ngroups++] = i;
		idx[i] = d->groups[i].index;
	}
	start[ngroups] = w->count;
	order = malloc((ngroups ? ngroups : 1) * sizeof(*order));
	took = malloc((ngroups ? ngroups : 1) * sizeof(*took));
	d->chosen = malloc((ngroups ? ngroups : 1) * sizeof(*d->chosen));
	if (!order || !took || !d->chosen)
		goto oom;
	for (size_t g = 0; g < ngroups; g++) {
		shuffle(&d->r, idx + start[g], start[g + 1] - start[g]);
		for (size_t j = start[g]; j < start[g + 1]; j++)
			whole[g] += !d->cut[idx[j]];
	}
	if (order_by_clusters(d, whole, ngroups, wanted, order) < 0)
		goto oom;
	/*
	 * Whole directories, each while it brings the count closer to the
	 * share; one too large to is passed over (its files stay for the
	 * strata still short), not the end of the draw: a directory larger
	 * than twice the share drawn first would leave the sample nearly empty.
	 */
	for (o = 0; o < ngroups && taken < wanted; o++) {
		size_t g = order[o];

		if (!whole[g] || (taken + whole[g] > wanted && taken + whole[g] - wanted >= wanted - taken))
			continue;
		for (size_t j = start[g]; j < start[g + 1]; j++)
			if (!d->cut[idx[j]]) {
				d->take[idx[j]] = true;
				have[stratum(d, idx[j])]++;
			}
		taken += whole[g];
		took[ntook++] = g;
		whole[g] = 0;	/* taken: nothing of it is left for the strata still short */
	}
	/* a stratum over its share gives back its last files */
	for (size_t b = ntook; b-- > 0;) {
		size_t g = took[b];

		for (size_t j = start[g + 1]; j-- > start[g];) {
			size_t i = idx[j];
			unsigned k = stratum(d, i);

			if (d->take[i] && have[k] > want[k]) {
				d->take[i] = false;
				have[k]--;
			}
		}
	}
	/*
	 * A stratum under its share takes the rest from the directories not
	 * taken whole, those holding the most files of such strata first (a
	 * stratum gathered in a few large directories, passed over above, then
	 * comes from them and not one file from each of many), at most a
	 * quarter as many as were taken whole (at least one): what a rare
	 * stratum still lacks then is left short rather than bring a directory
	 * for a file.
	 */
	{
		uint64_t short_of = 0;
		size_t extra = ntook / 4 > 1 ? ntook / 4 : 1, ncand = 0;
		struct short_source *cand = NULL;

		for (size_t k = 0; k < STRATA; k++)
			short_of += want[k] - have[k];
		if (short_of > 0 && !(cand = malloc((ngroups ? ngroups : 1) * sizeof(*cand))))
			goto oom;
		for (o = 0; o < ngroups && short_of > 0; o++) {
			size_t g = order[o];
			uint64_t n = 0;

			for (size_t j = start[g]; whole[g] && j < start[g + 1]; j++)
				n += !d->cut[idx[j]] && have[stratum(d, idx[j])] < want[stratum(d, idx[j])];
			if (n)
				cand[ncand++] = (struct short_source){ .files = n, .at = o, .group = g };
		}
		if (ncand)
			qsort(cand, ncand, sizeof(*cand), short_source_cmp);
		for (size_t c = 0; c < ncand && c < extra && short_of > 0; c++) {
			size_t g = cand[c].group;

			for (size_t j = start[g]; j < start[g + 1] && short_of > 0; j++) {
				size_t i = idx[j];
				unsigned k = stratum(d, i);

				if (d->cut[i] || have[k] >= want[k])
					continue;
				d->take[i] = true;
				have[k]++;
				short_of--;
			}
		}
		free(cand);
	}
	for (size_t g = 0; g < ngroups; g++)
		for (size_t j = start[g]; j < start[g + 1]; j++)
			if (d->take[idx[j]]) {
				d->chosen[d->nchosen++] = d->groups[start[g]];
				break;
			}
	qsort(d->chosen, d->nchosen, sizeof(*d->chosen), view_cmp);
	free(start);
	free(order);
	free(took);
	free(idx);
	free(whole);
	return 0;
oom:
	free(start);
	free(order);
	free(took);
	free(idx);
	free(whole);
	return err_set("out of memory drawing a sample of %zu files", w->count);
}

static bool in_chosen(const struct draw *d, const char *path)
{
	struct view key = { path, parent_len(path), 0 };
	size_t lo = 0, hi = d->nchosen;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = memcmp(d->chosen[mid].p, key.p,
			       d->chosen[mid].len < key.len ? d->chosen[mid].len : key.len);

		if (c == 0)
			c = d->chosen[mid].len < key.len ? -1 : d->chosen[mid].len > key.len;
		if (c == 0)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/*
 * Takes want of the n items (all, or those eligible): first those in the
 * directories files were taken from, in an order drawn from the seed, then
 * the others. picked[] marks them.
 */
static int take_share(struct draw *d, size_t n, uint64_t want, const char *(*path_of)(const struct manifest *, size_t),
		      bool (*eligible)(const struct manifest *, size_t), bool *picked)
{
	size_t *order = malloc((n ? n : 1) * sizeof(*order)), m = 0;

	if (!order)
		return err_set("out of memory drawing a sample");
	for (size_t i = 0; i < n; i++)
		if (!eligible || eligible(d->w, i))
			order[m++] = i;
	shuffle(&d->r, order, m);
	for (int pass = 0; pass < 2; pass++)
		for (size_t j = 0; j < m && want > 0; j++) {
			size_t i = order[j];

			if (picked[i] || in_chosen(d, path_of(d->w, i)) != (pass == 0))
				continue;
			picked[i] = true;
			want--;
		}
	free(order);
	return 0;
}

static const char *symlink_path(const struct manifest *w, size_t i)
{
	return w->symlinks[i].path;
}

static const char *dir_path(const struct manifest *w, size_t i)
{
	return w->dirs[i].path;
}

static bool empty_dir(const struct manifest *w, size_t i)
{
	return !manifest_has_below(w, w->dirs[i].path, 1);
}

/* f of n, rounded as systematic() would for one share. */
static uint64_t share_of(struct draw *d, size_t n)
{
	double t = d->f * (double)n;
	uint64_t out;

	systematic(&d->r, &t, &out, 1);
	return out;
}

/* Marks every directory of the whole above path (and path itself when it is one). */
static void mark_ancestors(struct draw *d, const char *path)
{
	char buf[4096];
	size_t len = strlen(path);

	if (len >= sizeof(buf))
		return;
	memcpy(buf, path, len + 1);
	for (;;) {
		const struct manifest_dir *dir;
		char *slash = strrchr(buf, '/');

		if (!slash)
			return;
		*slash = '\0';
		dir = manifest_find_dir(d->w, buf);
		if (dir) {
			size_t k = (size_t)(dir - d->w->dirs);

			if (d->dir_in[k])
				return;	/* and everything above it */
			d->dir_in[k] = true;
		}
	}
}

/* One file of the sample being built: its manifest line and where its bytes come from. */
struct item {
	char *path;
	uint64_t size, xxh3;
	uint32_t mode;
	int64_t mtime;
	struct workload_sample_source src;
};

static int item_cmp(const void *a, const void *b)
{
	return strcmp(((const struct item *)a)->path, ((const struct item *)b)->path);
}

/* Whether path is free in the whole (no node of any kind has it). */
static bool path_free(const struct manifest *w, const char *path)
{
	return !manifest_find(w, path) && !manifest_find_dir(w, path) &&
	       !manifest_find_symlink(w, path) && !manifest_find_hardlink(w, path);
}

/* The pieces of the cut file i into items[*n...]: f of its bytes, spread over it. */
static int add_pieces(struct draw *d, size_t i, struct item *items, size_t *n, struct workload_sample *s)
{
	const struct manifest_entry *e = &d->w->entries[i];
	double want = d->f * (double)e->size;
	uint64_t pieces = (uint64_t)llround(want / (double)WORKLOAD_SAMPLE_PIECE), len, stride;

	if (pieces < 1)
		pieces = 1;
	if (pieces > WORKLOAD_SAMPLE_MAX_PIECES)
		pieces = WORKLOAD_SAMPLE_MAX_PIECES;
	stride = e->size / pieces / PIECE_ALIGN * PIECE_ALIGN;
	len = ((uint64_t)ceil(want / (double)pieces) + PIECE_ALIGN - 1) / PIECE_ALIGN * PIECE_ALIGN;
	if (len > stride)
		len = stride / PIECE_ALIGN * PIECE_ALIGN;
	for (uint64_t k = 0; k < pieces; k++) {
		struct item *it = &items[(*n)++];
		uint64_t slack = (stride - len) / PIECE_ALIGN;
		char suffix[16] = "";

		*it = (struct item){ .size = len, .mode = e->mode, .mtime = e->mtime };
		it->src = (struct workload_sample_source){ .entry = i, .piece = true, .len = len,
			.offset = k * stride + below(&d->r, slack + 1) * PIECE_ALIGN };
		for (int tries = 0;; tries++) {
			free(it->path);
			if (asprintf(&it->path, "%s~piece%lluof%llu%s", e->path, (unsigned long long)k + 1,
				     (unsigned long long)pieces, suffix) < 0) {
				it->path = NULL;
				return err_set("out of memory drawing a sample");
			}
			if (path_free(d->w, it->path))
				break;
			if (tries == 8)
				return err_set("cannot name a piece of '%s': '%s' and the like are taken", e->path,
					       it->path);
			snprintf(suffix, sizeof(suffix), "~%d", tries + 1);
		}
		mark_ancestors(d, it->path);
		s->pieces++;
	}
	s->cut_files++;
	return 0;
}

/* Fills s->m and s->sources from what the draw took. */
static int build(struct draw *d, struct workload_sample *s, const bool *hl_in, const bool *empty_in)
{
	const struct manifest *w = d->w;
	size_t n = 0, cap = 0;
	struct item *items;
	int rc = -1;

	for (size_t i = 0; i < w->count; i++)
		cap += d->take[i] ? 1 : d->cut[i] ? WORKLOAD_SAMPLE_MAX_PIECES : 0;
	items = calloc(cap ? cap : 1, sizeof(*items));
	if (!items)
		return err_set("out of memory drawing a sample");
	for (size_t i = 0; i < w->count; i++) {
		const struct manifest_entry *e = &w->entries[i];

		if (d->cut[i]) {
			if (add_pieces(d, i, items, &n, s) < 0)
				goto out;
		} else if (d->take[i]) {
			items[n] = (struct item){ .path = strdup(e->path), .size = e->size, .xxh3 = e->xxh3,
				.mode = e->mode, .mtime = e->mtime,
				.src = { .entry = i, .offset = 0, .len = e->size } };
			if (!items[n++].path) {
				err_set("out of memory drawing a sample");
				goto out;
			}
			mark_ancestors(d, e->path);
		}
	}
	qsort(items, n, sizeof(*items), item_cmp);
	s->sources = malloc((n ? n : 1) * sizeof(*s->sources));
	if (!s->sources) {
		err_set("out of memory drawing a sample");
		goto out;
	}
	for (size_t j = 0; j < n; j++) {
		if (manifest_add_file(&s->m, items[j].path, items[j].size, items[j].mode, items[j].mtime,
				      items[j].xxh3) < 0)
			goto out;
		s->sources[j] = items[j].src;
	}
	for (size_t h = 0; h < w->nhardlinks; h++)
		if (hl_in[h] && manifest_add_hardlink(&s->m, w->hardlinks[h].path, w->hardlinks[h].primary) < 0)
			goto out;
	for (size_t l = 0; l < w->nsymlinks; l++)
		if (d->link_in[l] && manifest_add_symlink(&s->m, w->symlinks[l].path, w->symlinks[l].target) < 0)
			goto out;
	for (size_t k = 0; k < w->ndirs; k++)
		if (empty_in[k]) {
			mark_ancestors(d, w->dirs[k].path);
			d->dir_in[k] = true;
		}
	for (size_t k = 0; k < w->ndirs; k++)
		if (d->dir_in[k] && manifest_add_dir(&s->m, w->dirs[k].path, w->dirs[k].mode, w->dirs[k].mtime) < 0)
			goto out;
	manifest_sort(&s->m);
	rc = manifest_check(&s->m);
out:
	for (size_t j = 0; j < n; j++)
		free(items[j].path);
	free(items);
	return rc;
}

static double fraction_asked(const struct manifest *w, const struct workload_sample_request *req)
{
	switch (req->unit) {
	case WORKLOAD_SAMPLE_PERCENT:
		return req->value / 100.0;
	case WORKLOAD_SAMPLE_BYTES:
		return w->total_bytes ? req->value / (double)w->total_bytes : 1.0;
	case WORKLOAD_SAMPLE_FILES:
		return w->count ? req->value / (double)w->count : 1.0;
	}
	return 1.0;
}

/* How it was drawn, in words, with what came of it. */
static void describe(struct workload_sample *s)
{
	const struct workload_sample_counts *a = &s->sample, *b = &s->whole;
	int n = snprintf(s->method, sizeof(s->method),
			 "stratified: each log2 size class, compressed names and hard-link groups "
			 "in proportion (%.3g%%), files taken directory by directory, in clusters of "
			 "neighbouring directories in an order drawn from seed %llu (%llu of %llu "
			 "directories holding files, %llu of %llu in all); %llu of %llu symbolic links; ",
			 100 * s->fraction, (unsigned long long)s->seed,
			 (unsigned long long)a->dirs_with_files, (unsigned long long)b->dirs_with_files,
			 (unsigned long long)a->dirs, (unsigned long long)b->dirs, (unsigned long long)a->symlinks, (unsigned long long)b->symlinks);

	if (n < 0 || (size_t)n >= sizeof(s->method))
		return;
	if (s->cut_files)
		snprintf(s->method + n, sizeof(s->method) - (size_t)n,
			 "%llu large file%s give %llu piece%s spread over %s, each a file of its own; "
			 "copied to a tree of its own on the source",
			 (unsigned long long)s->cut_files, s->cut_files == 1 ? "" : "s",
			 (unsigned long long)s->pieces, s->pieces == 1 ? "" : "s",
			 s->cut_files == 1 ? "it" : "them");
	else
		snprintf(s->method + n, sizeof(s->method) - (size_t)n,
			 "no file large enough to be cut into pieces; copied to a tree of its own on the source");
}

int workload_sample_draw(const struct manifest *whole, const struct workload_sample_request *req,
			 uint64_t seed, struct workload_sample *out)
{
	struct draw d = { .w = whole };
	bool *hl_in = NULL, *empty_in = NULL;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	manifest_init(&out->m);
	out->request = *req;
	out->seed = seed;
	workload_sample_count(whole, &out->whole);
	if (whole->count == 0)
		return err_set("the workload holds no regular file to sample");
	d.f = fraction_asked(whole, req);
	if (d.f >= 1.0) {
		out->fraction = 1.0;
		out->sample = out->whole;
		snprintf(out->method, sizeof(out->method),
			 "the whole workload: --sample %s asks for all of it (%llu files, %llu bytes)",
			 req->text ? req->text : "", (unsigned long long)whole->count,
			 (unsigned long long)whole->total_bytes);
		return 0;
	}
	out->fraction = d.f;
	rng_init(&d.r, seed, 0x73616d706c65ull, 0);
	d.extra = calloc(whole->count, sizeof(*d.extra));
	d.strat = calloc(whole->count, sizeof(*d.strat));
	d.hl_primary = calloc(whole->nhardlinks + 1, sizeof(*d.hl_primary));
	d.cut = calloc(whole->count, sizeof(*d.cut));
	d.take = calloc(whole->count, sizeof(*d.take));
	d.groups = calloc(whole->count, sizeof(*d.groups));
	d.dir_in = calloc(whole->ndirs + 1, sizeof(*d.dir_in));
	d.link_in = calloc(whole->nsymlinks + 1, sizeof(*d.link_in));
	hl_in = calloc(whole->nhardlinks + 1, sizeof(*hl_in));
	empty_in = calloc(whole->ndirs + 1, sizeof(*empty_in));
	if (!d.extra || !d.strat || !d.hl_primary || !d.cut || !d.take || !d.groups || !d.dir_in || !d.link_in ||
	    !hl_in || !empty_in) {
		err_set("out of memory drawing a sample of %zu files", whole->count);
		goto out;
	}
	if (index_hardlinks(&d) < 0)
		goto out;
	index_strata(&d);
	mark_cut(&d);
	if (take_files(&d) < 0)
		goto out;
	for (size_t h = 0; h < whole->nhardlinks; h++)
		if ((hl_in[h] = d.take[d.hl_primary[h]]))
			mark_ancestors(&d, whole->hardlinks[h].path);
	if (take_share(&d, whole->nsymlinks, share_of(&d, whole->nsymlinks), symlink_path, NULL, d.link_in) < 0)
		goto out;
	for (size_t l = 0; l < whole->nsymlinks; l++)
		if (d.link_in[l])
			mark_ancestors(&d, whole->symlinks[l].path);
	{
		size_t empties = 0;

		for (size_t k = 0; k < whole->ndirs; k++)
			empties += empty_dir(whole, k);
		if (take_share(&d, whole->ndirs, share_of(&d, empties), dir_path, empty_dir, empty_in) < 0)
			goto out;
	}
	if (build(&d, out, hl_in, empty_in) < 0)
		goto out;
	workload_sample_count(&out->m, &out->sample);
	describe(out);
	rc = 0;
out:
	free(d.extra);
	free(d.strat);
	free(d.hl_primary);
	free(d.cut);
	free(d.take);
	free(d.groups);
	free(d.dir_in);
	free(d.link_in);
	free(d.chosen);
	free(hl_in);
	free(empty_in);
	if (rc < 0)
		workload_sample_release(out);
	return rc;
}

bool workload_sample_is_whole(const struct workload_sample *s)
{
	return s->fraction >= 1.0;
}

void workload_sample_release(struct workload_sample *s)
{
	manifest_release(&s->m);
	free(s->sources);
	s->sources = NULL;
}
