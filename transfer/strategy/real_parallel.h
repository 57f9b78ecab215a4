#ifndef XFERCMP_STRATEGY_REAL_PARALLEL_H
#define XFERCMP_STRATEGY_REAL_PARALLEL_H

/*
 * The command lines of the parallel reference strategies, real-rclone
 * (real_rclone.c) and real-fpsync (real_fpsync.c), built apart from
 * running them so that the unit tests check them without a host
 * (tests/unit/strategy/test_real_parallel.c).
 */

#include "strategy/pipeline.h"

#include <limits.h>

#define SSH_RESOLVED_MAX_FILES 8

/*
 * What `ssh -G HOST` resolved for HOST with our options (reference.h):
 * what rclone's own SFTP client, which reads no ssh config, needs to reach
 * the host as ssh would and to check its key against the same known_hosts.
 */
struct rclone_host {
	char hostname[256], user[256];
	unsigned port;
	/* the first IdentityFile that exists, "" for none (rclone then asks ssh-agent) */
	char identity[PATH_MAX];
	/* UserKnownHostsFile's files, then GlobalKnownHostsFile's, as listed */
	char known_hosts[SSH_RESOLVED_MAX_FILES][PATH_MAX];
	unsigned nknown;
	/* "proxyjump" or "proxycommand" when the config sets one (rclone 1.60 cannot follow it), else "" */
	char proxy[16];
};

/*
 * Parses ssh -G's output (one "keyword value" a line) into r. IdentityFile
 * paths are printed unexpanded: ~ and %d become home, %u local_user, %r the
 * remote user, %h the host name, %% a %; a path with another token is
 * passed over. Returns 0, or -1 (error set) when the host name, user or
 * port is missing.
 */
int rclone_host_parse(const char *text, const char *home, const char *local_user,
		       struct rclone_host *r);

/*
 * rclone copy with an on-the-fly SFTP remote into a (every word one
 * argument; no config file, no shell): SRC's contents into DEST on the
 * resolved host, `streams` files at once, host key checked against
 * known_hosts (a file holding every file of r->known_hosts).
 */
void real_rclone_args(struct pipeline_argv *a, const struct rclone_host *r, const char *known_hosts,
		      unsigned streams, const char *src, const char *dest);

/*
 * env RSYNC_RSH=RSH fpsync -n STREAMS -t WORKDIR SRC/ HOST:DEST/ into a.
 * fpsync pastes its paths into shell command lines inside quotes of both
 * kinds: a path holding ' " $ ` \ or a newline is refused. Returns 0, or
 * -1 (error set, a untouched).
 */
int real_fpsync_args(struct pipeline_argv *a, const char *rsh, const char *workdir, unsigned streams,
		     const char *src, const char *host, const char *dest);

#endif
