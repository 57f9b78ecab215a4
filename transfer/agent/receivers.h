#ifndef XFERCMP_RECEIVERS_H
#define XFERCMP_RECEIVERS_H

#include "stream/recv_opts.h"
#include "stream/xfer_stats.h"

#include <stddef.h>

/*
 * The agent's receive side of each raw-TCP strategy, by name. Each receiver
 * reads one data connection to its end and writes what it carries beneath
 * the directory destfd (the job's directory, opened once beneath the
 * scratch root's descriptor: agent_root_open_dir); dest is its path, for
 * messages only, never opened again. It mirrors a sender on the client
 * (see each strategy's file).
 */
struct receiver {
	const char *name;
	/*
	 * Returns 0 when the stream ended cleanly and everything was written, or
	 * -1 (error set). o: the stream's key (its segments are checked with it,
	 * seal_stream.h; the probes' sinks carry no tree and take none).
	 */
	int (*receive)(int sock, const struct recv_opts *o, int destfd, const char *dest,
		       struct recv_stats *st);
	/*
	 * Optional, for a receiver whose streams leave work for when all of
	 * them ended (frames: hard links, mtimes, directory modes). Then begin
	 * makes what the streams of one receive into dest share (NULL: error
	 * set), receive_part reads one stream into it (called instead of
	 * receive, from one thread per stream), and end, called once after
	 * every stream returned, with ok when all succeeded, finishes and frees
	 * it. Each returns as receive does.
	 */
	void *(*begin)(int destfd, const char *dest);
	int (*receive_part)(void *shared, const char *dest, int sock, const struct recv_opts *o,
			    struct recv_stats *st);
	int (*end)(void *shared, int ok);
	unsigned max_streams;	/* connections one receive may use */
	/*
	 * It carries a tree: the receive needs the session's manifest, which
	 * bounds it (kind: how, recv_opts.h). 0: a probe's sink, unbounded but
	 * by its budget (it writes nothing).
	 */
	int carries_tree;
	enum recv_kind kind;
	/* the most memory one stream may hold (its buffers): for the session's cap, agent.h */
	size_t stream_memory;
};

/* NULL (error set) when no receiver has that name. */
const struct receiver *receiver_find(const char *name);

#endif
