#ifndef XFERCMP_AGENT_REMOVE_H
#define XFERCMP_AGENT_REMOVE_H

/*
 * The client's side of the agent's "remove" and "remove_status"
 * (agent/agent_cleanup.h): the host's copies removed together once every
 * strategy ran, the progress polled for the status line.
 */

#include "client/agent_client.h"

#include <stdbool.h>
#include <stdint.h>

struct agent_remove_status {
	uint64_t found;		/* entries the agent's walk found so far (all, once walked) */
	uint64_t expected;	/* entries its parked copies were made of, by their manifests (0: none said) */
	uint64_t removed;	/* of them, removed */
	bool walked;		/* found is the total */
	bool done;
	double seconds;		/* the removal's time on the agent, so far */
	unsigned roots;		/* "leftovers": an earlier run's roots found */
	bool waiting;		/* "leftovers": waiting for another process's remover now */
};

/* How often the client asks how far the removal got. */
#define AGENT_REMOVE_POLL_MS 200

/*
 * Starts the removal of everything in the agent's scratch root (its marker
 * aside), then asks how far it got every AGENT_REMOVE_POLL_MS, calling
 * progress (may be NULL) with each answer, until it is done; *last gets the
 * last answer. Returns 0; 1 when the agent has no such request (nothing was
 * removed: "bye" removes as before) or keeps everything (serve --keep); -1
 * (error set) when the removal failed or the connection was lost.
 */
int agent_client_remove_all(struct agent_client *c,
			    void (*progress)(void *ctx, const struct agent_remove_status *st), void *ctx,
			    struct agent_remove_status *last);

/*
 * Finishes what earlier runs left to be removed in the background in the
 * agent's scratch parent (agent/agent_leftover.h), following it as
 * agent_client_remove_all does. Returns 0, 1 when the agent has no such
 * request, -1 (error set).
 */
int agent_client_finish_leftovers(struct agent_client *c,
				  void (*progress)(void *ctx, const struct agent_remove_status *st), void *ctx,
				  struct agent_remove_status *last);

/*
 * Ends the session with "bye" {"background": true}: the agent hands its
 * root, copies and all, to a remover of its own and exits, so the client
 * does not wait for the removal. *expected: the entries its copies were
 * made of. Returns 0; 1 when the agent removed them itself instead (why:
 * its reason); -1 (error set) when the call failed. After 0 or 1 the
 * session is over: agent_client_close sends no "bye".
 */
int agent_client_bye_background(struct agent_client *c, uint64_t *expected, char *why, size_t why_len);

#endif
