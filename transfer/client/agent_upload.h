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

#include <stddef.h>

/*
 * Uploads the agent unless a checked copy is there; remote (len bytes) gets
 * its path on the host; t->uploaded says whether it went up this time.
 * Returns 0 or -1 (error set).
 */
int agent_upload(struct ssh_target *t, const char *home, char *remote, size_t len);

#endif
