#ifndef XFERCMP_AGENT_PROBES_H
#define XFERCMP_AGENT_PROBES_H

/*
 * The agent's side of the probes (the client's side: probe/probes.h): the
 * destination disk and metadata probes it runs on request, and the receivers
 * the network probe sends into.
 */

#include "stream/probe_limits.h"
#include "stream/recv_opts.h"

#include <json-c/json.h>

struct agent_session;
struct recv_stats;

/*
 * Agent request "probe_disk" {"seconds": x, "max_bytes": n} (both optional:
 * PROBE_DEFAULT_SECONDS, PROBE_DISK_DEFAULT_BYTES): writes one file of
 * incompressible 1 MiB blocks in a fresh directory beneath s->scratch, keeping
 * writeback going as it writes so the time budget holds, then fsync; removes
 * it. Replies {"bytes","seconds","bps","dest_fs"}, seconds = write + fsync.
 * Returns 0 or -1 (error set; nothing left behind).
 */
int agent_op_probe_disk(struct agent_session *s, json_object *req, json_object *reply);

/*
 * Agent request "probe_create" {"seconds": x, "max_files": n, "threads": t,
 * "depths": [d, ...]} (all optional: PROBE_DEFAULT_SECONDS,
 * PROBE_CREATE_DEFAULT_FILES, 2 a core, [t]; t and each d at most
 * PROBE_MAX_DEPTH, at most PROBE_DEPTHS_MAX depths): for each depth in turn,
 * for its share of the budget, creates files of 4 KiB, 1,000 a directory, d
 * at a time (the concurrency a receiver keeps) up to max_files; then one
 * syncfs, shared among the depths by their files. Replies "at": [{"depth",
 * "files", "seconds", "per_s", "cpu_seconds" (the agent's CPU one create,
 * its write and close took, the syncfs left out)}] and, for the first
 * depth, "files", "seconds", "per_s". The files stay until the session's
 * end (agent_probes.c says why).
 * Returns 0 or -1 (error set; nothing left behind).
 */
int agent_op_probe_create(struct agent_session *s, json_object *req, json_object *reply);

/*
 * Receiver "discard": reads sock until EOF and counts st->wire_bytes; writes
 * nothing under dest. Returns 0, or -1 (error set) when a read fails.
 */
int recv_discard(int sock, const struct recv_opts *o, int destfd, const char *dest,
		 struct recv_stats *st);

/*
 * Receiver "echo": writes every byte read back to sock until EOF, counting
 * st->wire_bytes (bytes read); writes nothing under dest. Returns 0, or -1
 * (error set) when a read or write fails.
 */
int recv_echo(int sock, const struct recv_opts *o, int destfd, const char *dest,
	      struct recv_stats *st);

#endif
