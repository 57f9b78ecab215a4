/* The destination's free space, from the agent: see dest_space.h. */
#include "client/dest_space.h"

#include "err.h"

#include <json-c/json.h>
#include <string.h>

/* A field of the reply that is a whole number >= 0 into *out; 0, or -1 when absent or null. */
static int take_count(json_object *reply, const char *key, uint64_t *out)
{
	json_object *v;

	if (!json_object_object_get_ex(reply, key, &v) || !json_object_is_type(v, json_type_int) ||
	    json_object_get_int64(v) < 0)
		return -1;
	*out = (uint64_t)json_object_get_int64(v);
	return 0;
}

int dest_space_free(struct agent_client *c, struct nospace_free *f)
{
	json_object *req = json_object_new_object(), *reply = NULL;
	int rc;

	memset(f, 0, sizeof(*f));
	json_object_object_add(req, "op", json_object_new_string("info"));
	rc = agent_client_call(c, req, &reply);
	json_object_put(req);
	if (rc < 0)
		return err_wrap("cannot ask the agent for the destination's free space");
	if (take_count(reply, "root_free_bytes", &f->bytes) < 0)
		rc = err_set("the agent cannot see its scratch root's free space");
	/* null: the file system counts no inodes */
	f->inodes_counted = take_count(reply, "root_free_inodes", &f->inodes) == 0;
	json_object_put(reply);
	return rc;
}
