#ifndef XFERCMP_AGENT_UPLOAD_H
#define XFERCMP_AGENT_UPLOAD_H

/*
 * Puts this build's static agent on the host, for ssh_target.c: in
 * ~/.cache/xfercmp/ (made, or made 0700, and refused unless it is a real
 * directory of the user we log in as: a loose one would let others change
 * the agent that will hold the session key), under a name with our version,
 * the protocol and the content's hash. A copy there with this agent's
 * SHA-256 (as the host computes it) is used as it is; else the agent goes up
 * over SFTP under a temporary name, is moved into place and checked again.
 * The SHA-256 is kept in t->agent_sha256: the command that starts the agent
 * checks it again on the very file it then runs (ssh_target.c).
 */

#include "client/ssh_target.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* This build's agent, as it would be cached on a host. */
struct agent_local {
	char path[PATH_MAX];	/* here */
	char name[128];		/* in ~/.cache/xfercmp/ on the host */
	char sha256[65];	/* hex */
	uint64_t size;
};

/* Finds and hashes this build's agent. Returns 0 or -1 (error set). */
int agent_local_init(struct agent_local *l);

/*
 * The cached copy without SFTP: shell text for the command that looks at
 * the host (ssh_target.c), printing AGENT_CACHE_LINES lines: how
 * ~/.cache and ~/.cache/xfercmp are (type, owner, mode, without following
 * a link), the SHA-256 of the copy of l, and how many cached agents and
 * leftover uploads there are. Opening SFTP and hashing the copy over
 * commands of their own made each run's set-up 2.58-3.03 s on the testbed,
 * 1.42-1.61 s without them (three runs each, alternated, caches dropped,
 * 2026-12-07): every command sshd starts here pays a login.
 * Returns 0 or -1 (error set).
 */
#define AGENT_CACHE_LINES 4
int agent_cache_script(const struct agent_local *l, char *buf, size_t len);

/*
 * Whether those lines show the copy ready as agent_upload would leave it:
 * both directories the user's (uid; any when uid < 0) with no mode to
 * fix, the copy's SHA-256 ours, and nothing for the cache's pruning to
 * remove. Anything else (a stat that failed, a loose directory, no copy)
 * is not ready: agent_upload then does it all. The command that starts
 * the agent checks the SHA-256 again on the very file it runs.
 */
bool agent_cache_ready(const struct agent_local *l, char lines[][512], long uid);

/*
 * The copy agent_cache_ready found: its path on the host under home into
 * remote (len bytes), its SHA-256 into t->agent_sha256 for the start's
 * check. Returns 0 or -1 (error set).
 */
int agent_use_cached(struct ssh_target *t, const struct agent_local *l, const char *home, char *remote,
		     size_t len);

/*
 * Uploads the agent l unless a checked copy is there; remote (len bytes)
 * gets its path on the host under home; t->agent_sha256 its SHA-256;
 * t->uploaded says whether it went up this time. Returns 0 or -1 (error set).
 */
int agent_upload(struct ssh_target *t, const struct agent_local *l, const char *home, char *remote,
		 size_t len);

#endif
