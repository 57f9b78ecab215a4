/*
 * "remove" and "remove_status": the scratch root emptied at the end of a
 * comparison, with many removals in flight, while the client shows how far
 * it got.
 *
 * Each strategy's verified copy is parked until the comparison ends
 * (agent_session.c, room_to_park): removed at once, or in the background
 * of the next strategy, its freed inodes slow that strategy's creates on
 * ext4 without a journal. Measured on the testbed's disk, 20,000 creates of
 * 4 KiB then syncfs: 3.6 s alone, 16.1 s while 16 threads removed another
 * 20,000 such files, 11.4 s right after they were removed. So the copies
 * wait, and go together once every strategy ran, before the client prints
 * its report: the time is the answer's (the report says how long), the
 * client shows the progress on its status line, and when it exits nothing
 * is left removing on the host to disturb a run that follows. The removal
 * runs on a thread of its own so the control loop can answer
 * "remove_status"; "bye" and the session's end wait for it.
 *
 * Everything in the root goes but its marker (the root goes when the
 * session ends, marker last, agent_root.h): every destination, and the
 * create probe's files kept there as the copies are.
 */
#define _GNU_SOURCE
#include "agent/agent.h"
#include "agent/agent_cleanup.h"

#include "agent/agent_leftover.h"
#include "agent/agent_remover_list.h"
#include "agent/agent_root.h"
#include "clock.h"
#include "err.h"
#include "fs_remove.h"
#include "stream/agent_startup.h"
#include "stream/wire.h"

#include <pthread.h>
#include <stdbool.h>
#include <string.h>

/* One removal at a time: the agent serves one session at a time (agent.c). */
static struct {
	pthread_t thread;
	bool running;	/* a thread was started and not yet joined */
	atomic_int done;
	int rc;
	struct err_saved why;
	struct agent_leftover_progress progress;	/* .removal: what "remove" removed */
	clock_ns t0, t1;
	uint64_t expected;	/* the parked copies' entries, by their manifests */
	bool own_root;		/* "remove" (the session's root), not "leftovers" (earlier runs') */
	int root_fd;
	const char *root;
} removal;

static void *remove_root_contents(void *arg)
{
	(void)arg;
	removal.rc = fs_empty_dir_parallel(removal.root_fd, AGENT_ROOT_MARKER, removal.root,
					   FS_REMOVE_THREADS, &removal.progress.removal);
	if (removal.rc < 0)
		err_save(&removal.why);
	removal.t1 = clock_now();
	atomic_store(&removal.done, 1);
	return NULL;
}

/*
 * "leftovers": an earlier run's roots in this root's parent, then those of
 * the removers listed in other parents, on the same thread and status.
 */
static void *finish_leftovers(void *arg)
{
	struct agent_session *s = arg;

	removal.rc = agent_leftovers_finish(s->scratch->parent_fd, s->scratch->parent, s->scratch->name,
					    &removal.progress);
	if (removal.rc == 0)
		removal.rc = agent_remover_list_finish(&removal.progress);
	if (removal.rc < 0)
		err_save(&removal.why);
	removal.t1 = clock_now();
	atomic_store(&removal.done, 1);
	return NULL;
}

/* What removing the parked copies takes, by their manifests. */
static uint64_t parked_entries(const struct agent_session *s)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < s->njobs; i++)
		if (!s->jobs[i].removed && s->jobs[i].parked)
			n += s->jobs[i].entries;
	return n;
}

/* The removal before: refused while it runs, else joined. 0 or -1 (error set). */
static int previous_ended(struct agent_session *s)
{
	if (removal.running && !atomic_load(&removal.done))
		return err_set("a removal is already running");
	agent_remove_wait(s);
	return 0;
}

/* Starts fn on the removal's thread; "remove_status" follows it. */
static int start(void *(*fn)(void *), struct agent_session *s, json_object *reply)
{
	removal.own_root = fn == remove_root_contents;
	memset(&removal.progress, 0, sizeof(removal.progress));
	atomic_store(&removal.done, 0);
	removal.rc = 0;
	removal.root_fd = s->scratch->fd;
	removal.root = s->root;
	removal.t0 = removal.t1 = clock_now();
	if (pthread_create(&removal.thread, NULL, fn, s) != 0)
		return err_set("cannot start the removal's thread");
	removal.running = true;
	json_object_object_add(reply, "started", json_object_new_boolean(1));
	return 0;
}

int agent_op_leftovers(struct agent_session *s, json_object *req, json_object *reply)
{
	(void)req;
	if (previous_ended(s) < 0)
		return -1;
	removal.expected = 0;
	return start(finish_leftovers, s, reply);
}

int agent_bye_background(struct agent_session *s, json_object *reply)
{
	uint64_t expected;

	if (s->keep || !s->detach_root)
		return 1;
	expected = parked_entries(s);
	if (s->detach_root() < 0) {
		/* said to the client, which waits for the removal as before */
		json_object_object_add(reply, "background_refused", json_object_new_string(err_msg()));
		return 1;
	}
	/* the remover takes the whole root: nothing is the session's to remove any more */
	for (unsigned i = 0; i < s->njobs; i++)
		s->jobs[i].removed = 1;
	json_object_object_add(reply, "background", json_object_new_boolean(1));
	json_object_object_add(reply, "expected", json_object_new_int64((int64_t)expected));
	json_object_object_add(reply, "root", json_object_new_string(s->scratch->path));
	return 0;
}

int agent_op_remove(struct agent_session *s, json_object *req, json_object *reply)
{
	(void)req;
	if (previous_ended(s) < 0)
		return -1;
	for (unsigned i = 0; i < s->njobs; i++)
		if (!s->jobs[i].removed && !s->jobs[i].parked)
			return err_set("destination '%s' is still in use: end its strategy first",
				       s->jobs[i].name);
	if (s->keep) {
		json_object_object_add(reply, "kept", json_object_new_boolean(1));
		return 0;
	}
	/* the walk lists as it removes, to the end, on a big tree: the manifests say how many there are */
	removal.expected = parked_entries(s);
	return start(remove_root_contents, s, reply);
}

int agent_op_remove_status(struct agent_session *s, json_object *req, json_object *reply)
{
	bool done = !removal.running || atomic_load(&removal.done);
	double seconds = clock_seconds(removal.t0, done ? removal.t1 : clock_now());

	(void)req;
	json_object_object_add(reply, "found",
			       json_object_new_int64((int64_t)atomic_load(&removal.progress.removal.found)));
	json_object_object_add(reply, "removed",
			       json_object_new_int64((int64_t)atomic_load(&removal.progress.removal.removed)));
	json_object_object_add(reply, "walked",
			       json_object_new_boolean(atomic_load(&removal.progress.removal.walked)));
	json_object_object_add(reply, "roots", json_object_new_int64(atomic_load(&removal.progress.roots)));
	json_object_object_add(reply, "waiting", json_object_new_boolean(atomic_load(&removal.progress.waiting)));
	json_object_object_add(reply, "expected", json_object_new_int64((int64_t)removal.expected));
	json_object_object_add(reply, "done", json_object_new_boolean(done));
	json_object_object_add(reply, "seconds", json_object_new_double(seconds));
	if (!done || !removal.running)
		return 0;
	agent_remove_wait(s);
	return removal.rc < 0 ? err_restore(&removal.why) : 0;
}

void agent_remove_wait(struct agent_session *s)
{
	if (!removal.running)
		return;
	pthread_join(removal.thread, NULL);
	removal.running = false;
	/* every destination went with the root's contents (those that failed: the error says where) */
	for (unsigned i = 0; i < s->njobs && removal.own_root; i++)
		if (removal.rc == 0)
			s->jobs[i].removed = 1;
}
