#ifndef XFERCMP_AGENT_CLEANUP_H
#define XFERCMP_AGENT_CLEANUP_H

/*
 * The end of a comparison on the agent's side (agent_cleanup.c): "remove"
 * starts emptying the scratch root (its marker kept) on a thread of its
 * own; "remove_status" says {found, removed, walked, done, seconds} and,
 * once done, fails with the removal's error if it had one.
 */

#include <json-c/json.h>

struct agent_session;

int agent_op_remove(struct agent_session *s, json_object *req, json_object *reply);
int agent_op_remove_status(struct agent_session *s, json_object *req, json_object *reply);

/* Waits for a removal still running (a "bye", the session's end); marks the jobs removed. */
void agent_remove_wait(struct agent_session *s);

#endif
