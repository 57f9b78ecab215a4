#include "stream/send_plan.h"

#include "err.h"

#include <stdlib.h>
#include <string.h>

static int plan_add(struct send_plan *p, const struct manifest_entry *e, uint64_t offset,
		    uint64_t length, int whole)
{
	struct send_item *it;

	if (p->count == p->alloc) {
		size_t n = p->alloc ? p->alloc * 2 : 256;
		struct send_item *grown = realloc(p->items, n * sizeof(*grown));

		if (!grown)
			return err_set("out of memory planning %zu items", n);
		p->items = grown;
		p->alloc = n;
	}
	it = &p->items[p->count++];
	it->path = e->path;
	it->offset = offset;
	it->length = length;
	it->file_size = e->size;
	it->mode = e->mode;
	it->whole = whole;
	p->bytes += length;
	return 0;
}

int send_plan_whole(const struct manifest *m, struct send_plan *plan)
{
	memset(plan, 0, sizeof(*plan));
	for (size_t i = 0; i < m->count; i++)
		if (plan_add(plan, &m->entries[i], 0, m->entries[i].size, 1) < 0) {
			send_plan_release(plan);
			return -1;
		}
	return 0;
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

int send_plan_split(const struct manifest *m, unsigned streams, uint64_t range_threshold,
		    struct send_plan *plans)
{
	if (streams == 0)
		return err_set("at least one stream is needed");
	memset(plans, 0, streams * sizeof(*plans));
	for (size_t i = 0; i < m->count; i++) {
		const struct manifest_entry *e = &m->entries[i];
		int rc;

		if (streams > 1 && range_threshold && e->size > range_threshold) {
			/* one range per stream, so every stream carries a share of the large file */
			uint64_t piece = (e->size + streams - 1) / streams;

			rc = 0;
			for (unsigned s = 0; s < streams && rc == 0; s++) {
				uint64_t off = piece * s;

				if (off >= e->size)
					break;
				rc = plan_add(&plans[lightest(plans, streams)], e, off,
					      e->size - off < piece ? e->size - off : piece, 0);
			}
		} else {
			rc = plan_add(&plans[lightest(plans, streams)], e, 0, e->size, 1);
		}
		if (rc < 0) {
			for (unsigned s = 0; s < streams; s++)
				send_plan_release(&plans[s]);
			return -1;
		}
	}
	return 0;
}

void send_plan_release(struct send_plan *plan)
{
	free(plan->items);
	memset(plan, 0, sizeof(*plan));
}
