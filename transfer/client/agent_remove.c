/* The agent's copies removed together at the end (agent_remove.h). */
#define _GNU_SOURCE
#include "client/agent_remove.h"

#include "err.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static json_object *op(const char *name)
{
	json_object *req = json_object_new_object();

	json_object_object_add(req, "op", json_object_new_string(name));
	return req;
}

/* reply's key as an unsigned count, a boolean or a number; 0 / false when absent. */
static uint64_t count_of(json_object *reply, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(reply, key, &v) ? (uint64_t)json_object_get_int64(v) : 0;
}

static bool flag_of(json_object *reply, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(reply, key, &v) && json_object_get_boolean(v);
}

static void status_of(json_object *reply, struct agent_remove_status *st)
{
	json_object *v;

	st->found = count_of(reply, "found");
	st->expected = count_of(reply, "expected");
	st->removed = count_of(reply, "removed");
	st->walked = flag_of(reply, "walked");
	st->done = flag_of(reply, "done");
	st->seconds = json_object_object_get_ex(reply, "seconds", &v) ? json_object_get_double(v) : 0;
	st->roots = (unsigned)count_of(reply, "roots");
	st->waiting = flag_of(reply, "waiting");
}

/* Asks how far the removal the agent started got, until it is done. */
static int follow(struct agent_client *c, const char *what,
		  void (*progress)(void *ctx, const struct agent_remove_status *st), void *ctx,
		  struct agent_remove_status *last)
{
	long wait_ms = 10;

	while (!last->done) {
		/* a small removal is done in a few milliseconds: the first asks come soon */
		struct timespec poll = { 0, wait_ms * 1000000L };
		json_object *req, *reply = NULL;
		int rc;

		nanosleep(&poll, NULL);
		wait_ms = wait_ms * 2 > AGENT_REMOVE_POLL_MS ? AGENT_REMOVE_POLL_MS : wait_ms * 2;
		req = op("remove_status");
		rc = agent_client_call(c, req, &reply);
		json_object_put(req);
		if (rc < 0)
			return err_wrap("%s on %s", what, c->label);
		status_of(reply, last);
		json_object_put(reply);
		if (progress)
			progress(ctx, last);
	}
	return 0;
}

int agent_client_remove_all(struct agent_client *c,
			    void (*progress)(void *ctx, const struct agent_remove_status *st), void *ctx,
			    struct agent_remove_status *last)
{
	json_object *req = op("remove"), *reply = NULL;
	bool kept;
	int rc = agent_client_call(c, req, &reply);

	json_object_put(req);
	memset(last, 0, sizeof(*last));
	if (rc < 0)
		return !c->lost && strstr(err_msg(), "unknown request") ? 1 : -1;
	kept = flag_of(reply, "kept");
	json_object_put(reply);
	if (kept)
		return 1;
	return follow(c, "removing the copies", progress, ctx, last);
}

int agent_client_finish_leftovers(struct agent_client *c,
				  void (*progress)(void *ctx, const struct agent_remove_status *st), void *ctx,
				  struct agent_remove_status *last)
{
	json_object *req = op("leftovers"), *reply = NULL;
	int rc = agent_client_call(c, req, &reply);

	json_object_put(req);
	memset(last, 0, sizeof(*last));
	if (rc < 0)
		return !c->lost && strstr(err_msg(), "unknown request") ? 1 : -1;
	json_object_put(reply);
	return follow(c, "finishing an earlier run's removal", progress, ctx, last);
}

int agent_client_bye_background(struct agent_client *c, uint64_t *expected, char *why, size_t why_len)
{
	json_object *req = op("bye"), *reply = NULL, *v;
	int rc;

	json_object_object_add(req, "background", json_object_new_boolean(1));
	rc = agent_client_call(c, req, &reply);
	json_object_put(req);
	*expected = 0;
	if (why_len)
		why[0] = '\0';
	if (rc < 0)
		return -1;
	/* whatever the answer, the agent ended the session: no second "bye" */
	c->bye_said = true;
	if (!flag_of(reply, "background")) {
		if (why_len)
			snprintf(why, why_len, "%s",
				 json_object_object_get_ex(reply, "background_refused", &v) ?
				 json_object_get_string(v) : "the agent removed its copies itself");
		json_object_put(reply);
		return 1;
	}
	*expected = count_of(reply, "expected");
	json_object_put(reply);
	return 0;
}
