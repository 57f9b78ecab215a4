#ifndef XFERCMP_STRATEGY_REAL_PARALLEL_H
#define XFERCMP_STRATEGY_REAL_PARALLEL_H

/*
 * The command lines of the parallel reference strategies, real-rclone
 * (real_rclone.c) and real-fpsync (real_fpsync.c), built apart from
 * running them so that the unit tests check them without a host
 * (tests/unit/strategy/test_real_parallel.c).
 */

#include "strategy/pipeline.h"


struct ssh_resolved;

/*
 * The identity file rclone is given: the first of r's IdentityFiles that
 * can be read, "" for none (rclone then asks ssh-agent). Points into r.
 */
const char *real_rclone_identity(const struct ssh_resolved *r);

/*
 * rclone copy with an on-the-fly SFTP remote into a (every word one
 * argument; no config file, no shell): SRC's contents into DEST on the
 * host as `ssh -G` resolved it (ssh_resolve.h), with identity ("" for
 * none), `streams` files at once, host key checked against known_hosts (a
 * file holding every file of r->known_files).
 */
void real_rclone_args(struct pipeline_argv *a, const struct ssh_resolved *r, const char *identity,
		      const char *known_hosts, unsigned streams, const char *src, const char *dest);

/*
 * env RSYNC_RSH=RSH fpsync -n STREAMS -t WORKDIR SRC/ HOST:DEST/ into a.
 * fpsync pastes its paths into shell command lines inside quotes of both
 * kinds: a path holding ' " $ ` \ or a newline is refused. Returns 0, or
 * -1 (error set, a untouched).
 */
int real_fpsync_args(struct pipeline_argv *a, const char *rsh, const char *workdir, unsigned streams,
		     const char *src, const char *host, const char *dest);

#endif
