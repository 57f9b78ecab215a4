/*
 * parallel: the tree spread over N TCP streams to the agent, small files
 * sharded, large files cut into byte ranges, each stream sent like splice.
 * The agent runs one frames receiver per stream (frames_receiver.c).
 * Directories and links go on stream 0; the agent makes hard links and sets
 * mtimes and directory modes once every stream has ended, so it carries all
 * a tree holds, as splice does.
 */
#include "err.h"
#include "client/raw_stream.h"
#include "stream/frames.h"
#include "stream/send_plan.h"
#include "stream/splice_sender.h"
#include "strategy/strategy.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Files above this are cut into ranges so one large file fills every stream. */
#define RANGE_THRESHOLD (64ull << 20)

struct stream_arg {
	int fd;
	const unsigned char *key;	/* its connection's client-to-agent key */
	const char *src_root;
	const struct send_plan *plan;
	bool drop_cache;
	struct send_stats st;
	int rc;
	struct err_saved error;	/* the thread's message, raised again by the joiner */
};

static void *stream_main(void *p)
{
	struct stream_arg *a = p;

	a->rc = splice_send(a->fd, a->key, a->src_root, a->plan->items, a->plan->count, a->drop_cache,
			    &a->st);
	if (a->rc < 0)
		err_save(&a->error);
	return NULL;
}

static int parallel_run(struct xfer_run *run)
{
	unsigned n = run->opts->streams ? run->opts->streams : 2;
	struct send_plan plans[STRATEGY_MAX_STREAMS];
	struct stream_arg args[STRATEGY_MAX_STREAMS];
	pthread_t tids[STRATEGY_MAX_STREAMS];
	int fds[STRATEGY_MAX_STREAMS], rc = 0;
	unsigned char keys[STRATEGY_MAX_STREAMS][WIRE_KEY_BYTES];

	if (n > STRATEGY_MAX_STREAMS)
		return err_set("parallel: at most %d streams", STRATEGY_MAX_STREAMS);
	if (send_plan_split(run->manifest, n, RANGE_THRESHOLD, plans) < 0)
		return -1;
	if (raw_stream_open(run->target->agent, run->job, "frames", n, fds, keys) < 0) {
		for (unsigned i = 0; i < n; i++)
			send_plan_release(&plans[i]);
		return -1;
	}
	memset(args, 0, sizeof(args));
	for (unsigned i = 0; i < n; i++) {
		args[i] = (struct stream_arg){
			.fd = fds[i], .key = keys[i], .src_root = run->src_root, .plan = &plans[i],
			.drop_cache = !run->opts->keep_cached,
		};
		if (pthread_create(&tids[i], NULL, stream_main, &args[i]) != 0) {
			stream_main(&args[i]);
			tids[i] = 0;
		}
	}
	for (unsigned i = 0; i < n; i++) {
		if (tids[i])
			pthread_join(tids[i], NULL);
		if (args[i].rc < 0 && rc == 0) {
			err_restore(&args[i].error);
			rc = err_wrap("stream %u", i);
		}
		run->sent.files += args[i].st.files;
		run->sent.bytes_read += args[i].st.bytes_read;
		run->sent.wire_bytes += args[i].st.wire_bytes;
		send_plan_release(&plans[i]);
	}
	explicit_bzero(keys, sizeof(keys));
	/* the streams counted records, and a file cut into ranges is several: count files */
	if (rc == 0)
		run->sent.files = run->manifest->count;
	return raw_stream_finish(run->target->agent, fds, n, rc, &run->received);
}

const struct strategy strategy_parallel = {
	.name = "parallel",
	.summary = "N TCP streams to the agent (-P), files sharded, large files split into ranges",
	.flags = STRATEGY_MULTI_STREAM | STRATEGY_CLEARTEXT,
	.preserves = PRESERVE_ALL,
	.traits = STRATEGY_TRAITS_RECORDS,
	/* no one-line tool shards a tree over N raw TCP streams: fpsync's N rsync workers (over ssh) come nearest */
	.real_command = "fpsync -n N DIR/ HOST:DST/",
	.run = parallel_run,
};
