#ifndef XFERCMP_DESTINATION_H
#define XFERCMP_DESTINATION_H

/*
 * A destination: the agent the strategies move data to, the SSH connection
 * beside it when the host is reached over ssh, and the xfer_target the
 * strategies are given. Reached in one of three ways:
 *
 *   - an agent started by hand (agent: ADDR:PORT, with its token file);
 *   - an agent launched on this machine (host "local"), over loopback;
 *   - an agent started on host over SSH (ssh_target.h), reached directly
 *     or, when its port is closed to us or agent_via_ssh says so, through
 *     ssh (agent_client_connect_ssh).
 *
 * The comparison opens one; --explain opens its extra ones (tmpfs, this
 * machine, the cheapest cipher) the same way. Nothing here prints: what the
 * user should hear about (an upload, a fallback through ssh) is in the
 * struct for the caller to say.
 */

#include "client/agent_client.h"
#include "client/agent_launch.h"
#include "client/ssh_target.h"
#include "client/xfer_target.h"
#include "manifest.h"

#include <stdbool.h>
#include <stdint.h>

struct destination_opts {
	const char *host;	/* "local": an agent launched here; else the ssh destination */
	const char *agent;	/* ADDR:PORT ([ADDR]:PORT) of an agent started by hand, or NULL */
	const char *token_file;	/* that agent's token (with agent) */
	const char *ssh_config;	/* -F FILE; NULL: ssh's default */
	int accept_new_hostkey;	/* add an unknown host key to known_hosts */
	const char *scratch_dir;	/* the agent makes its root DIR/xfercmp.XXXXXX there; NULL: /var/tmp */
	const char *ciphers;	/* the ssh connection's ciphers; NULL: as ssh's configuration says */
	int agent_via_ssh;	/* every connection to an agent started over SSH goes through ssh */
};

struct destination {
	struct destination_opts o;	/* as opened; its strings must outlive the destination */
	struct agent_process proc;	/* the agent launched here; pid -1 when none */
	struct ssh_target ssh;		/* session NULL without SSH */
	struct agent_client agent;
	struct xfer_target target;	/* complete once destination_send_manifest returned 0 */
};

/* Makes d closed: destination_close on it does nothing. */
void destination_init(struct destination *d);

/*
 * Starts or finds the agent as o says and connects to it (the host key is
 * checked here: before a workload is made). Returns 0, or -1 (error set);
 * either way destination_close(d) follows. d->ssh.uploaded and
 * d->agent.direct_failed then say what the caller may want to tell.
 */
int destination_open(struct destination *d, const struct destination_opts *o);

/*
 * Sends the manifest of the tree to move and fills d->target. Returns 0 or
 * -1 (error set).
 */
int destination_send_manifest(struct destination *d, const struct manifest *m);

/* The free bytes of the agent's scratch file system, as it said; false when it did not. */
bool destination_free_bytes(const struct destination *d, uint64_t *free_bytes);

/*
 * Says bye to the agent (which removes what it kept), stops an agent
 * started over SSH and disconnects, stops an agent launched here. Each step
 * runs whatever the others did; failed (may be NULL) is called once for
 * each that failed, with the error set, so the caller can say each in its
 * own line. Returns 0, or -1 when any failed.
 */
int destination_close(struct destination *d, void (*failed)(void *ctx), void *ctx);

#endif
