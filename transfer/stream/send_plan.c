#include "stream/send_plan.h"

#include "err.h"

#include <stdlib.h>
#include <string.h>

static struct send_item *plan_next(struct send_plan *p)
{
	struct send_item *it;

	if (p->count == p->alloc) {
		size_t n = p->alloc ? p->alloc * 2 : 256;
		struct send_item *grown = realloc(p->items, n * sizeof(*grown));

		if (!grown) {
			err_set("out of memory planning %zu items", n);
			return NULL;
		}
		p->items = grown;
		p->alloc = n;
	}
	it = &p->items[p->count++];
	memset(it, 0, sizeof(*it));
	return it;
}

static int plan_add(struct send_plan *p, const struct manifest_entry *e, uint64_t offset,
		    uint64_t length, enum send_kind kind)
{
	struct send_item *it = plan_next(p);

	if (!it)
		return -1;
	it->path = e->path;
	it->offset = offset;
	it->length = length;
	it->file_size = e->size;
	it->mode = e->mode;
	it->mtime = e->mtime;
	it->kind = kind;
	p->bytes += length;
	return 0;
}

static int plan_add_dirs(struct send_plan *p, const struct manifest *m)
{
	for (size_t i = 0; i < m->ndirs; i++) {
		struct send_item *it = plan_next(p);

		if (!it)
			return -1;
		it->path = m->dirs[i].path;
		it->mode = m->dirs[i].mode;
		it->mtime = m->dirs[i].mtime;
		it->kind = SEND_DIR;
	}
	return 0;
}

static int plan_add_link(struct send_plan *p, const char *path, const char *link,
			 enum send_kind kind)
{
	struct send_item *it = plan_next(p);

	if (!it)
		return -1;
	it->path = path;
	it->link = link;
	it->length = strlen(link);
	it->mtime = MANIFEST_NO_MTIME;
	it->kind = kind;
	return 0;
}

static int plan_add_links(struct send_plan *p, const struct manifest *m)
{
	for (size_t i = 0; i < m->nsymlinks; i++)
		if (plan_add_link(p, m->symlinks[i].path, m->symlinks[i].target, SEND_SYMLINK) < 0)
			return -1;
	for (size_t i = 0; i < m->nhardlinks; i++)
		if (plan_add_link(p, m->hardlinks[i].path, m->hardlinks[i].primary, SEND_HARDLINK) < 0)
			return -1;
	return 0;
}

int send_plan_whole(const struct manifest *m, struct send_plan *plan)
{
	int rc;

	memset(plan, 0, sizeof(*plan));
	rc = plan_add_dirs(plan, m);
	for (size_t i = 0; i < m->count && rc == 0; i++)
		rc = plan_add(plan, &m->entries[i], 0, m->entries[i].size, SEND_FILE);
	if (rc == 0)
		rc = plan_add_links(plan, m);
	if (rc < 0)
		send_plan_release(plan);
	return rc;
}

/* The stream with the fewest bytes so far takes the next item: greedy balancing. */
static unsigned lightest(const struct send_plan *plans, unsigned streams)
{
	unsigned best = 0;

	for (unsigned s = 1; s < streams; s++)
		if (plans[s].bytes < plans[best].bytes)
			best = s;
	return best;
}

/* Adds file e to the lightest plan, or one range of it to each when it is above the threshold. */
static int split_file(const struct manifest_entry *e, unsigned streams, uint64_t range_threshold,
		      struct send_plan *plans)
{
	/* one range per stream, so every stream carries a share of the large file */
	uint64_t piece = (e->size + streams - 1) / streams;

	if (streams == 1 || !range_threshold || e->size <= range_threshold)
		return plan_add(&plans[lightest(plans, streams)], e, 0, e->size, SEND_FILE);
	for (unsigned s = 0; s < streams; s++) {
		uint64_t off = piece * s;

		if (off >= e->size)
			break;
		if (plan_add(&plans[lightest(plans, streams)], e, off,
			     e->size - off < piece ? e->size - off : piece, SEND_RANGE) < 0)
			return -1;
	}
	return 0;
}

int send_plan_split(const struct manifest *m, unsigned streams, uint64_t range_threshold,
		    struct send_plan *plans)
{
	int rc;

	if (streams == 0)
		return err_set("at least one stream is needed");
	memset(plans, 0, streams * sizeof(*plans));
	rc = plan_add_dirs(&plans[0], m);
	for (size_t i = 0; i < m->count && rc == 0; i++)
		rc = split_file(&m->entries[i], streams, range_threshold, plans);
	if (rc == 0)
		rc = plan_add_links(&plans[0], m);
	if (rc < 0)
		for (unsigned s = 0; s < streams; s++)
			send_plan_release(&plans[s]);
	return rc;
}

void send_plan_release(struct send_plan *plan)
{
	free(plan->items);
	memset(plan, 0, sizeof(*plan));
}
