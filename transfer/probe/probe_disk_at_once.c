/*
 * The one disk under source and destination, read and written at once
 * (probes.h). Probed alone, its cold read and its durable write each have the
 * whole device; a copy within one machine reads and writes together, and what
 * the two get then is not what they got in turn (docs/MODEL.md, "How they
 * combine"). Measured on this VM's one virtio disk, 4 GiB cold to durable: the reads
 * probed alone at 2,680 MB/s and the writes at 2,017 MB/s, in turn 3.73 s;
 * parallel read and wrote 1,438 MB/s each at once, 2.99 s.
 */
#include "probe/probes.h"

#include "clock.h"
#include "err.h"
#include "client/agent_client.h"
#include "sample/procstat.h"

#include <string.h>

static const char *info_text(json_object *info, const char *key)
{
	json_object *v;

	if (!info || !json_object_object_get_ex(info, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

bool probe_one_disk(const char *src_root, json_object *agent_info)
{
	const char *boot = info_text(agent_info, "boot_id"), *dev = info_text(agent_info, "root_device");
	char mine[40], src_dev[PROCSTAT_NAME_MAX];

	if (!boot || !dev)
		return false;	/* an older agent, or nothing readable: not known to be one disk */
	procstat_boot_id(mine, sizeof(mine));
	return mine[0] && !strcmp(mine, boot) &&
	       procstat_device_for_path(src_root, src_dev, sizeof(src_dev)) == 0 && !strcmp(src_dev, dev);
}

/* The least read and written at once: one of the cold reader's pieces. */
#define AT_ONCE_MIN_BYTES (8ull << 20)

/*
 * What fits the budget even if the disk did the reads and the writes in
 * turn, each at its rate probed alone (at most PROBE_READ_MAX_BYTES): a slow
 * disk is not kept for many times the budget.
 */
static uint64_t at_once_bytes(const struct probe_results *r, unsigned depth, double seconds)
{
	double read = r->nread_at ? probe_rate_at(r->read_at, r->nread_at, depth) : r->disk_read_bps;
	double fit = read > 0 && r->disk_write_bps > 0 ? seconds / (1 / read + 1 / r->disk_write_bps) : 0;

	if (!(fit > 0) || fit >= (double)PROBE_READ_MAX_BYTES)
		return PROBE_READ_MAX_BYTES;
	return fit > (double)AT_ONCE_MIN_BYTES ? (uint64_t)fit : AT_ONCE_MIN_BYTES;
}

/*
 * One depth: the reads and the writes of the same count of bytes begun
 * together, as a copy's are, each timed to its own end and both to the
 * later one.
 */
static int at_once(struct agent_client *a, const char *src_root, const struct manifest *m,
		   unsigned depth, double seconds, struct probe_results *r)
{
	struct probe_cold_reader *rd;
	struct agent_probe_reply disk;
	uint64_t bytes = at_once_bytes(r, depth, seconds), read;
	clock_ns start, read_end, write_end;
	struct err_saved e;
	int rc;

	if (probe_cold_reader_start(src_root, m, depth, &bytes, &rd) < 0)
		return -1;
	if (!rd)
		return 0;
	start = clock_now();
	rc = agent_client_probe(a, "probe_disk", PROBE_MAX_SECONDS, bytes, "bps", &disk);
	write_end = clock_now();
	if (rc < 0)
		err_save(&e);
	if (probe_cold_reader_wait(rd, &read_end, &read) < 0)
		return -1;
	if (rc < 0)
		return err_restore(&e);
	if (read == bytes && disk.rate > 0 && read_end > start && write_end > start)
		r->disk_at_once[r->ndisk_at_once++] = (struct probe_disk_at_once){
			.depth = depth,
			.read_bps = (double)bytes / clock_seconds(start, read_end),
			.write_bps = disk.rate,
			.copy_bps = (double)bytes / clock_seconds(start, read_end > write_end ? read_end : write_end),
		};
	return 0;
}

int probe_disk_at_once(struct agent_client *a, const char *src_root, const struct manifest *m,
		       double seconds, const struct probe_depths *reads, struct probe_results *r)
{
	struct probe_depths one = { .n = 1, .depth = { 1 } };

	if (probe_check_budget(seconds) < 0)
		return -1;
	if (!reads || reads->n == 0)
		reads = &one;
	r->ndisk_at_once = 0;
	for (unsigned k = 0; k < reads->n; k++)
		if (at_once(a, src_root, m, reads->depth[k], seconds / reads->n, r) < 0)
			return err_wrap("reading the source with %u stream%s while writing the destination",
					reads->depth[k], reads->depth[k] == 1 ? "" : "s");
	return 0;
}
