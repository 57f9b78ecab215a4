/*
 * The keyed hashes of the large files' content (agent.h: "content_macs"),
 * and the verify of a job whose content came raw (stream/frames.h: content
 * longer than FRAME_RAW_MIN crosses a data connection unsealed, spliced on
 * both ends; the client sends, over the sealed control connection, the
 * keyed hash of each such file of its manifest, and the copy must match).
 */
#include "agent/agent.h"

#include "content_mac.h"
#include "err.h"
#include "stream/frames.h"
#include "stream/wire_auth.h"

#include <stdlib.h>
#include <string.h>

void agent_content_release(struct agent_session *s)
{
	if (s->content_macs)
		explicit_bzero(s->content_macs, s->manifest.count * sizeof(*s->content_macs));
	free(s->content_macs);
	free(s->content_have);
	s->content_macs = NULL;
	s->content_have = NULL;
}

_Static_assert(CONTENT_KEY_BYTES == WIRE_KEY_BYTES, "the content key is a wire key");

/* The session's tables of keyed hashes, one slot per manifest entry, made once. */
static int content_tables(struct agent_session *s)
{
	size_t count = s->manifest.count ? s->manifest.count : 1;

	if (s->content_macs)
		return 0;
	s->content_macs = calloc(count, sizeof(*s->content_macs));
	s->content_have = calloc(count, 1);
	if (!s->content_macs || !s->content_have) {
		agent_content_release(s);
		return err_set("out of memory for the keyed hashes of %zu files", s->manifest.count);
	}
	return 0;
}

/* One [index, "hex"] pair of the request. Returns 0 or -1 (error set). */
static int take_one(struct agent_session *s, json_object *pair)
{
	json_object *idx, *hex, *holder;
	int64_t i;

	if (!json_object_is_type(pair, json_type_array) || json_object_array_length(pair) != 2 ||
	    !json_object_is_type(idx = json_object_array_get_idx(pair, 0), json_type_int) ||
	    !json_object_is_type(hex = json_object_array_get_idx(pair, 1), json_type_string))
		return err_set("protocol error: 'macs' holds [index, \"hex\"] pairs");
	i = json_object_get_int64(idx);
	if (i < 0 || (uint64_t)i >= s->manifest.count)
		return err_set("protocol error: keyed hash for entry %lld of a manifest of %zu",
			       (long long)i, s->manifest.count);
	if (s->manifest.entries[i].size <= FRAME_RAW_MIN)
		return err_set("protocol error: keyed hash for '%s', whose content is never sent raw",
			       s->manifest.entries[i].path);
	/* wire_get_hex reads a field of an object: the pair's text goes in one */
	holder = json_object_new_object();
	if (!holder)
		return err_set("out of memory");
	json_object_object_add(holder, "mac", json_object_get(hex));
	i = wire_get_hex(holder, "mac", s->content_macs[i], CONTENT_MAC_BYTES) < 0 ? -1 : i;
	json_object_put(holder);
	if (i < 0)
		return -1;
	s->content_have[i] = 1;
	return 0;
}

int agent_op_content_macs(struct agent_session *s, json_object *req, json_object *reply)
{
	json_object *macs;
	size_t n;

	(void)reply;
	if (!s->have_manifest)
		return err_set("no manifest was sent before its keyed hashes");
	if (!json_object_object_get_ex(req, "macs", &macs) ||
	    !json_object_is_type(macs, json_type_array))
		return err_set("protocol error: 'content_macs' without its 'macs' array");
	if (content_tables(s) < 0)
		return -1;
	n = json_object_array_length(macs);
	for (size_t i = 0; i < n; i++)
		if (take_one(s, json_object_array_get_idx(macs, i)) < 0)
			return -1;
	return 0;
}

int agent_content_verify(struct agent_session *s, const char *root,
			 const struct verify_mode_note *notes, size_t n, unsigned threads,
			 struct verify_report *r)
{
	unsigned char key[WIRE_KEY_BYTES];
	struct verify_keyed keyed = { .key = key, .min_size = FRAME_RAW_MIN };
	int rc;

	/* none sent: every large file fails, naming the missing hash */
	if (content_tables(s) < 0)
		return -1;
	keyed.macs = (const unsigned char (*)[CONTENT_MAC_BYTES])s->content_macs;
	keyed.have = s->content_have;
	if (wire_content_key(s->key, key) < 0)
		return -1;
	rc = verify_tree_keyed(root, &s->manifest, threads, notes, n, &keyed, r);
	explicit_bzero(key, sizeof(key));
	return rc;
}
