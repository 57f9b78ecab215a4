#ifndef XFERCMP_DEST_SPACE_H
#define XFERCMP_DEST_SPACE_H

/*
 * What the destination's file system has free now, asked of the agent (its
 * scratch root's, where every destination is): to tell a full disk behind
 * an error that does not say so (sftp-server's bare "Failure", a short
 * write of the host's tar), and to say how full it is (nospace.h).
 */

#include "client/agent_client.h"
#include "nospace.h"

/* The agent's "info" again, its free bytes and inodes. Returns 0 or -1 (error set). */
int dest_space_free(struct agent_client *c, struct nospace_free *f);

#endif
