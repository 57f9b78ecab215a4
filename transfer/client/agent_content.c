/*
 * The keyed hashes of the large files' content, sent to the agent before
 * it verifies a job whose content came raw (stream/frames.h, agent.h's
 * "content_macs"): computed from the source under the session's content
 * key (wire_content_key), once a session, each file's XXH3 checked
 * against the manifest in the same read.
 */
#include "client/agent_client.h"

#include "content_mac.h"
#include "err.h"
#include "fsutil.h"
#include "hash_bufs.h"
#include "parallel.h"
#include "stream/frames.h"
#include "stream/wire_auth.h"
#include "tree.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Pairs a request: about 80 bytes each, well inside a request (WIRE_MAX_JSON). */
#define MACS_PER_REQUEST 400
#define MAC_READ_BUF (1u << 20)

struct mac_job {
	const char *root;
	const struct manifest *m;
	const size_t *idx;	/* the large entries' indices */
	unsigned char (*macs)[CONTENT_MAC_BYTES];
	const unsigned char *key;
	struct hash_bufs bufs;
};

/*
 * Read with drop-behind (common/cache_behind.c): a large file read cold
 * without it fills fresh page-cache pages, each a host fault on this VM.
 * Measured on the testbed (4 GiB source, splice the first raw strategy,
 * old and new client alternated, two runs each): its verify, these keyed
 * hashes and then the agent's check, took 15.5 s without it and 8.8 s with
 * it. The next run drops the source from the cache anyway.
 */
static int mac_one(void *ctx, unsigned worker, uint64_t i)
{
	struct mac_job *job = ctx;
	const struct manifest_entry *e = &job->m->entries[job->idx[i]];
	char path[PATH_MAX];
	uint64_t hash, size;

	if (fs_join(path, sizeof(path), job->root, e->path) < 0 ||
	    tree_hash_file_keyed(path, job->bufs.buf[worker], job->bufs.size, 1, job->key, &hash,
				 job->macs[i], &size) < 0)
		return -1;
	if (size != e->size || hash != e->xxh3)
		return err_set("source changed during the run: %s (its copy cannot be verified; rerun while nothing writes to the source)",
			       path);
	return 0;
}

/* Sends pairs [from, to) of the job's hashes in one request. Returns 0 or -1 (error set). */
static int send_batch(struct agent_client *c, const struct mac_job *job, size_t from, size_t to)
{
	json_object *req = json_object_new_object(), *macs = json_object_new_array(), *reply = NULL;
	int rc;

	if (!req || !macs) {
		json_object_put(req);
		json_object_put(macs);
		return err_set("out of memory");
	}
	for (size_t i = from; i < to; i++) {
		json_object *pair = json_object_new_array();
		char hex[2 * CONTENT_MAC_BYTES + 1];

		wire_hex(job->macs[i], CONTENT_MAC_BYTES, hex);
		json_object_array_add(pair, json_object_new_int64((int64_t)job->idx[i]));
		json_object_array_add(pair, json_object_new_string(hex));
		json_object_array_add(macs, pair);
	}
	json_object_object_add(req, "op", json_object_new_string("content_macs"));
	json_object_object_add(req, "macs", macs);
	rc = agent_client_call(c, req, &reply);
	json_object_put(req);
	json_object_put(reply);
	return rc;
}

int agent_client_send_content_macs(struct agent_client *c)
{
	struct mac_job job = { .root = c->src_root, .m = c->src_manifest };
	unsigned char key[WIRE_KEY_BYTES];
	size_t n = 0, *idx;
	int rc = 0;

	if (!c->src_root || !c->src_manifest)
		return err_set("the content of large files came raw, and no source was named to vouch for it (agent_client_set_source)");
	idx = malloc((job.m->count ? job.m->count : 1) * sizeof(*idx));
	if (!idx)
		return err_set("out of memory");
	for (size_t i = 0; i < job.m->count; i++)
		if (job.m->entries[i].size > FRAME_RAW_MIN)
			idx[n++] = i;
	job.idx = idx;
	job.key = key;
	job.macs = calloc(n ? n : 1, sizeof(*job.macs));
	if (!job.macs || hash_bufs_init(&job.bufs, 2 * parallel_cpus(), MAC_READ_BUF) < 0)
		rc = err_set("out of memory for the keyed hashes of %zu files", n);
	if (rc == 0)
		rc = wire_content_key(c->key, key);
	if (rc == 0 && parallel_for(n, 2 * parallel_cpus(), 1, mac_one, &job, NULL) < 0)
		rc = err_wrap("keyed hash of the source");
	for (size_t i = 0; rc == 0 && i < n; i += MACS_PER_REQUEST)
		rc = send_batch(c, &job, i, i + MACS_PER_REQUEST < n ? i + MACS_PER_REQUEST : n);
	explicit_bzero(key, sizeof(key));
	hash_bufs_release(&job.bufs);
	free(job.macs);
	free(idx);
	if (rc == 0)
		c->content_macs_sent = true;
	return rc;
}
