/*
 * The plan of what real scp is given (scp_cover.h): walk every node in tree
 * order, ask about each, mark the parents of what is cut ("tainted": they
 * cannot be given whole), then every node whose parent is tainted and that
 * is neither cut nor tainted itself is a source of its parent's batch.
 */
#include "strategy/scp_cover.h"

#include "err.h"
#include "ssh/scp_sender.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct node {
	const char *path;
	char kind;
};

/* A source and the directory it goes into, before grouping. */
struct pending {
	const char *parent;	/* "" or a tainted directory's path */
	const char *path;
};

static int node_cmp(const void *a, const void *b)
{
	return scp_tree_order_cmp(((const struct node *)a)->path, ((const struct node *)b)->path);
}

static int str_cmp(const void *a, const void *b)
{
	return scp_tree_order_cmp(*(const char *const *)a, *(const char *const *)b);
}

static int pending_cmp(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;
	int c = scp_tree_order_cmp(x->parent, y->parent);

	return c ? c : scp_tree_order_cmp(x->path, y->path);
}

/* The length of path's parent ("" = 0). */
static size_t parent_len(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? (size_t)(slash - path) : 0;
}

/* The member of the sorted set equal to path's first len bytes, or NULL. */
static const char *set_find(const char *const *set, size_t n, const char *path, size_t len)
{
	char key[PATH_MAX];
	size_t lo = 0, hi = n;

	if (len >= sizeof(key))
		return NULL;
	memcpy(key, path, len);
	key[len] = '\0';
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = scp_tree_order_cmp(set[mid], key);

		if (c == 0)
			return set[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int str_ptr_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The directories the paths of m imply but m does not list (a manifest of
 * regular files only, as every generated workload without tree features
 * has): malloc'ed, sorted, each once, into *out. Without them the root had
 * no children to give scp and nothing was copied (seen: real-scp-legacy
 * "1000 missing" on smallfiles).
 */
static int implied_dirs(const struct manifest *m, char ***out, size_t *n)
{
	size_t cap = 64, k = 0, u = 0;
	char **v = malloc(cap * sizeof(*v));
	*out = NULL;
	*n = 0;
	if (!v)
		return err_set("out of memory planning what scp is given");
	for (int kind = 0; kind < 4; kind++) {
		size_t count = kind == 0 ? m->count : kind == 1 ? m->nhardlinks :
			       kind == 2 ? m->nsymlinks : m->ndirs;

		for (size_t i = 0; i < count; i++) {
			const char *p = kind == 0 ? m->entries[i].path : kind == 1 ? m->hardlinks[i].path :
					kind == 2 ? m->symlinks[i].path : m->dirs[i].path;
			size_t len = parent_len(p);

			/* a path's parents, nearest first, until one the manifest lists */
			while (len > 0) {
				char *d;

				if (k == cap) {
					char **grown = realloc(v, (cap *= 2) * sizeof(*v));

					if (!grown)
						goto oom;
					v = grown;
				}
				if (!(d = strndup(p, len)))
					goto oom;
				if (manifest_find_dir(m, d)) {
					free(d);
					break;
				}
				v[k++] = d;
				len = parent_len(d);
			}
		}
	}
	qsort(v, k, sizeof(*v), str_ptr_cmp);
	for (size_t i = 0; i < k; i++) {
		if (u && !strcmp(v[u - 1], v[i]))
			free(v[i]);
		else
			v[u++] = v[i];
	}
	*out = v;
	*n = u;
	return 0;
oom:
	for (size_t i = 0; i < k; i++)
		free(v[i]);
	free(v);
	return err_set("out of memory planning what scp is given");
}

static int collect(const struct manifest *m, char **implied, size_t nimplied, struct node **out,
		   size_t *n)
{
	size_t total = m->count + m->nhardlinks + m->nsymlinks + m->ndirs + m->nspecials + nimplied,
	       k = 0;
	struct node *v = malloc((total ? total : 1) * sizeof(*v));

	if (!v)
		return err_set("out of memory planning what scp is given");
	for (size_t i = 0; i < nimplied; i++)
		v[k++] = (struct node){ implied[i], SCP_NODE_DIR };
	for (size_t i = 0; i < m->count; i++)
		v[k++] = (struct node){ m->entries[i].path, SCP_NODE_FILE };
	for (size_t i = 0; i < m->nhardlinks; i++)
		v[k++] = (struct node){ m->hardlinks[i].path, SCP_NODE_HARDLINK };
	for (size_t i = 0; i < m->nsymlinks; i++)
		v[k++] = (struct node){ m->symlinks[i].path, SCP_NODE_SYMLINK };
	for (size_t i = 0; i < m->ndirs; i++)
		v[k++] = (struct node){ m->dirs[i].path, SCP_NODE_DIR };
	for (size_t i = 0; i < m->nspecials; i++)
		v[k++] = (struct node){ m->specials[i].path, SCP_NODE_SPECIAL };
	qsort(v, k, sizeof(*v), node_cmp);
	*out = v;
	*n = k;
	return 0;
}

/*
 * Every parent directory of the cut nodes (not the root), sorted in tree
 * order and without repeats, as pointers into the manifest's strings when
 * the manifest lists the directory, else into the cut node's own path
 * (malloc'ed copies kept in *owned).
 */
static int tainted_dirs(const struct manifest *m, const char *const *cut, size_t ncut,
			const char ***out, size_t *n, char ***owned, size_t *nowned)
{
	size_t cap = 16, k = 0;
	const char **v = malloc(cap * sizeof(*v));

	*owned = NULL;
	*nowned = 0;
	if (!v)
		return err_set("out of memory planning what scp is given");
	for (size_t i = 0; i < ncut; i++) {
		size_t len = parent_len(cut[i]);

		while (len > 0) {
			const struct manifest_dir *d;
			char *p = strndup(cut[i], len);

			if (!p) {
				free(v);
				return err_set("out of memory planning what scp is given");
			}
			if (k == cap) {
				const char **w = realloc(v, 2 * cap * sizeof(*v));

				if (!w) {
					free(p);
					free(v);
					return err_set("out of memory planning what scp is given");
				}
				v = w;
				cap *= 2;
			}
			d = manifest_find_dir(m, p);
			if (d) {
				v[k++] = d->path;
				free(p);
			} else {
				char **o = realloc(*owned, (*nowned + 1) * sizeof(**owned));

				if (!o) {
					free(p);
					free(v);
					return err_set("out of memory planning what scp is given");
				}
				*owned = o;
				o[(*nowned)++] = p;
				v[k++] = p;
			}
			len = parent_len(v[k - 1]);
		}
	}
	qsort(v, k, sizeof(*v), str_cmp);
	*n = 0;
	for (size_t i = 0; i < k; i++)
		if (*n == 0 || strcmp(v[*n - 1], v[i]))
			v[(*n)++] = v[i];
	*out = v;
	return 0;
}

int scp_cover_plan(const struct manifest *m, scp_cover_cut_fn cut, void *ctx, struct scp_cover *c)
{
	struct node *nodes = NULL;
	const char **cuts = NULL, **tainted = NULL;
	char **owned = NULL;
	struct pending *pend = NULL;
	size_t nnodes = 0, ncuts = 0, ntainted = 0, nowned = 0, npend = 0;
	const char *cut_dir = NULL;
	int rc = -1;

	memset(c, 0, sizeof(*c));
	if (implied_dirs(m, &c->implied, &c->nimplied) < 0 ||
	    collect(m, c->implied, c->nimplied, &nodes, &nnodes) < 0) {
		scp_cover_release(c);
		return -1;
	}
	cuts = malloc((nnodes ? nnodes : 1) * sizeof(*cuts));
	pend = malloc((nnodes ? nnodes : 1) * sizeof(*pend));
	c->sources = malloc((nnodes ? nnodes : 1) * sizeof(*c->sources));
	if (!cuts || !pend || !c->sources) {
		err_set("out of memory planning what scp is given");
		goto out;
	}
	/* what is cut: tree order brings a directory's nodes right after it */
	for (size_t i = 0; i < nnodes; i++) {
		size_t dl = cut_dir ? strlen(cut_dir) : 0;

		if (cut_dir && !strncmp(nodes[i].path, cut_dir, dl) && nodes[i].path[dl] == '/') {
			nodes[i].kind = 0;	/* below a cut directory: neither asked nor given */
			continue;
		}
		cut_dir = NULL;
		if (cut(ctx, nodes[i].path, nodes[i].kind)) {
			c->cut++;
			if (nodes[i].kind == SCP_NODE_SYMLINK)
				c->cut_symlinks++;
			if (nodes[i].kind == SCP_NODE_DIR)
				cut_dir = nodes[i].path;
			cuts[ncuts++] = nodes[i].path;
			nodes[i].kind = 0;
		}
	}
	if (tainted_dirs(m, cuts, ncuts, &tainted, &ntainted, &owned, &nowned) < 0)
		goto out;
	/* the sources: children of the root or of a tainted directory, not tainted themselves */
	for (size_t i = 0; i < nnodes; i++) {
		const char *p = nodes[i].path;
		size_t pl = parent_len(p);
		const char *parent = pl ? set_find(tainted, ntainted, p, pl) : "";

		if (!nodes[i].kind || !parent)
			continue;
		if (nodes[i].kind == SCP_NODE_DIR && set_find(tainted, ntainted, p, strlen(p)))
			continue;
		pend[npend++] = (struct pending){ parent, p };
	}
	qsort(pend, npend, sizeof(*pend), pending_cmp);
	c->batches = malloc((ntainted + 1) * sizeof(*c->batches));
	c->made = malloc((ntainted ? ntainted : 1) * sizeof(*c->made));
	if (!c->batches || !c->made) {
		err_set("out of memory planning what scp is given");
		goto out;
	}
	/* one batch a directory, the root's first, also when it is empty */
	c->batches[c->nbatches++] = (struct scp_batch){ "", 0, 0 };
	for (size_t t = 0; t < ntainted; t++) {
		const struct manifest_dir *d = manifest_find_dir(m, tainted[t]);

		c->made[c->nmade++] = (struct scp_made_dir){ tainted[t], d ? d->mode : 0755 };
		c->batches[c->nbatches++] = (struct scp_batch){ tainted[t], 0, 0 };
	}
	for (size_t i = 0, b = 0; i < npend; i++) {
		while (strcmp(c->batches[b].dir, pend[i].parent))
			b++;
		if (c->batches[b].n == 0)
			c->batches[b].first = c->nsources;
		c->batches[b].n++;
		c->sources[c->nsources++] = pend[i].path;
	}
	/* the strings of directories the manifest does not list live as long as c */
	c->owned = owned;
	c->nowned = nowned;
	owned = NULL;
	rc = 0;
out:
	for (size_t i = 0; owned && i < nowned; i++)
		free(owned[i]);
	free(owned);
	free(tainted);
	free(pend);
	free(cuts);
	free(nodes);
	return rc;
}

void scp_cover_release(struct scp_cover *c)
{
	for (size_t i = 0; i < c->nowned; i++)
		free(c->owned[i]);
	free(c->owned);
	for (size_t i = 0; i < c->nimplied; i++)
		free(c->implied[i]);
	free(c->implied);
	free(c->sources);
	free(c->batches);
	free(c->made);
	memset(c, 0, sizeof(*c));
}
