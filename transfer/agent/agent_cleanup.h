#ifndef XFERCMP_AGENT_CLEANUP_H
#define XFERCMP_AGENT_CLEANUP_H

/*
 * The end of a comparison on the agent's side (agent_cleanup.c): "remove"
 * starts emptying the scratch root (its marker kept) on a thread of its
 * own; "remove_status" says {found, removed, walked, done, seconds} and,
 * once done, fails with the removal's error if it had one. Or the root goes
 * to a remover of its own when the client leaves (agent_leftover.h).
 */

#include <json-c/json.h>

struct agent_session;

int agent_op_remove(struct agent_session *s, json_object *req, json_object *reply);

/*
 * "leftovers": finishes an earlier run's roots left to a remover in this
 * root's parent (agent_leftover.h) on the same thread; "remove_status"
 * follows it, saying also {roots, waiting}.
 */
int agent_op_leftovers(struct agent_session *s, json_object *req, json_object *reply);

/*
 * "bye" {"background": true}: hands the root to a remover of its own
 * (s->detach_root) and fills reply {background, expected, root}. Returns 0;
 * 1 when it cannot (--keep, no detach_root, the remover did not start:
 * reply's "background_refused" says why) and the caller removes as before.
 */
int agent_bye_background(struct agent_session *s, json_object *reply);
int agent_op_remove_status(struct agent_session *s, json_object *req, json_object *reply);

/* Waits for a removal still running (a "bye", the session's end); marks the jobs removed. */
void agent_remove_wait(struct agent_session *s);

#endif
