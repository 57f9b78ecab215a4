/*
 * The comparison's cleanup before its report. See compare_cleanup.h, and
 * agent/agent_cleanup.c for why the copies wait until every strategy ran
 * and then go together, before the report rather than after the client
 * exits.
 */
#define _GNU_SOURCE
#include "compare_cleanup.h"

#include "client/agent_remove.h"
#include "clock.h"
#include "err.h"
#include "report/live.h"
#include "report/text_wrap.h"
#include "fs_remove.h"
#include "units.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* This machine's part, on a thread of its own while the host removes its copies. */
struct local_removal {
	const char *empty_dir, *remove_dir;
	struct fs_remove_progress progress;
	int rc;
	struct err_saved why;
	atomic_int done;
};

static void *remove_local(void *arg)
{
	struct local_removal *l = arg;
	int fd;

	if (l->empty_dir && l->empty_dir[0]) {
		fd = open(l->empty_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0) {
			l->rc = fs_empty_dir_parallel(fd, NULL, l->empty_dir, FS_REMOVE_THREADS, &l->progress);
			close(fd);
		}
	}
	if (l->rc == 0 && l->remove_dir && l->remove_dir[0])
		l->rc = fs_remove_tree_parallel(AT_FDCWD, l->remove_dir, l->remove_dir, FS_REMOVE_THREADS,
						&l->progress);
	if (l->rc < 0)
		err_save(&l->why);
	atomic_store(&l->done, 1);
	return NULL;
}

struct shown {
	bool show;
	struct local_removal *local;
	struct agent_remove_status host;
	bool drawn;
};

static void draw(struct shown *sh)
{
	char line[160];
	struct live_cleanup c;

	if (!sh->show)
		return;
	c = (struct live_cleanup){
		.host_found = sh->host.found, .host_removed = sh->host.removed,
		.host_walked = sh->host.walked, .host_expected = sh->host.expected,
		.local_found = atomic_load(&sh->local->progress.found),
		.local_removed = atomic_load(&sh->local->progress.removed),
	};
	live_cleanup_format(line, sizeof(line), &c);
	fprintf(stderr, "\r\033[K%s", line);
	fflush(stderr);
	sh->drawn = true;
}

static void host_progress(void *ctx, const struct agent_remove_status *st)
{
	struct shown *sh = ctx;

	sh->host = *st;
	draw(sh);
}

/*
 * The host's copies handed to the agent's remover: the session ends at once.
 * Returns 0 when they went to it, 1 when the agent removed them itself (or
 * has no such way), -1 (error set).
 */
static int host_background(struct compare_session *s, bool verbose, struct report_timing *t)
{
	char why[256];
	int rc = agent_client_bye_background(&s->dest.agent, &t->host_background_entries, why, sizeof(why));

	if (rc == 1 && verbose)
		fprintf(stderr, "  cleanup: the host removed its copies before it answered (%s)\n", why);
	t->host_background = rc == 0;
	return rc;
}

int compare_cleanup(struct compare_session *s, const char *empty_dir, const char *remove_dir,
		    bool show, bool verbose, bool background, struct report_timing *t)
{
	struct local_removal local = { .empty_dir = empty_dir, .remove_dir = remove_dir };
	struct shown sh = { .show = show, .local = &local, .host = { .walked = true } };
	struct agent_remove_status last = { 0 };
	clock_ns t0 = clock_now();
	pthread_t tid;
	bool thread = false;

	if ((empty_dir && empty_dir[0]) || (remove_dir && remove_dir[0]))
		thread = pthread_create(&tid, NULL, remove_local, &local) == 0;
	if (!thread)
		remove_local(&local);
	/* a lost agent removed nothing more for us: the run already says why it ended */
	/*
	 * What the host could not remove stays in the agent's root: the session's
	 * close removes the root and, failing, says so once, with the command
	 * that removes the rest (agent_client.c); said here too, it was two lines.
	 */
	if (s->dest.agent.ctl.fd >= 0 && !s->dest.agent.lost && (!background || host_background(s, verbose, t) < 0))
		agent_client_remove_all(&s->dest.agent, host_progress, &sh, &last);
	while (!atomic_load(&local.done)) {
		const struct timespec tick = { 0, AGENT_REMOVE_POLL_MS * 1000000L };

		draw(&sh);
		nanosleep(&tick, NULL);
	}
	if (thread)
		pthread_join(tid, NULL);
	if (sh.drawn) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	t->cleaned = true;
	t->cleanup_s = clock_seconds(t0, clock_now());
	t->host_removed = last.removed;
	t->local_removed = atomic_load(&local.progress.removed);
	if (show || verbose) {
		char host[32], here[32], line[256];

		if (t->host_background)
			snprintf(line, sizeof(line),
				 "cleanup: removed %s entries here in %.1f s; the host removes about %s after xfercmp exits (a run there waits for them)",
				 units_format_count(t->local_removed, here, sizeof(here)), t->cleanup_s,
				 units_format_count(t->host_background_entries, host, sizeof(host)));
		else
			snprintf(line, sizeof(line), "cleanup: removed %s entries on the host and %s here in %.1f s",
				 units_format_count(t->host_removed, host, sizeof(host)),
				 units_format_count(t->local_removed, here, sizeof(here)), t->cleanup_s);
		text_wrap(stderr, "  ", 4, line, text_width());
	}
	if (local.rc < 0)
		return err_restore(&local.why);
	return 0;
}

bool compare_cleanup_background(const struct compare_opts *o)
{
	return o->cleanup == COMPARE_CLEANUP_AUTO ? isatty(2) : o->cleanup == COMPARE_CLEANUP_BACKGROUND;
}

/* The setup's line while an earlier run's removal is finished or waited for. */
static void leftover_progress(void *ctx, const struct agent_remove_status *st)
{
	char line[160], n[32];

	(void)ctx;
	if (st->waiting)
		snprintf(line, sizeof(line), "waiting for an earlier run's copies to go on the host: %.0f s",
			 st->seconds);
	else
		snprintf(line, sizeof(line), "removing what an earlier run left on the host: %s entries",
			 units_format_count(st->removed, n, sizeof(n)));
	fprintf(stderr, "\r\033[K%s", line);
	fflush(stderr);
}

int compare_finish_leftovers(struct compare_session *s, bool show, bool verbose, struct report_timing *t)
{
	struct agent_remove_status last;
	clock_ns t0 = clock_now();
	int rc = agent_client_finish_leftovers(&s->dest.agent, show ? leftover_progress : NULL, NULL, &last);

	if (show && last.seconds > 0) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	t->leftover_roots = last.roots;
	t->leftover_s = clock_seconds(t0, clock_now());
	t->leftover_removed = last.removed;
	if (last.roots && (show || verbose)) {
		char n[32], line[200];

		snprintf(line, sizeof(line), "setup: an earlier run's copies on the host went first (%s entries removed by this run, %.1f s)",
			 units_format_count(last.removed, n, sizeof(n)), t->leftover_s);
		text_wrap(stderr, "  ", 4, line, text_width());
	}
	return 0;
}
