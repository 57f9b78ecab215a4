#ifndef XFERCMP_XFER_TARGET_H
#define XFERCMP_XFER_TARGET_H

/*
 * Where a strategy's data goes: the agent always; SSH when a HOST was
 * given. A destination (destination.h) builds one; the strategies
 * (strategy/strategy.h) and the runner are given it.
 */

struct agent_client;
struct manifest;
struct ssh_target;

struct xfer_target {
	struct agent_client *agent;
	struct ssh_target *ssh;	/* NULL without SSH */
	const char *label;	/* the host as the user named it */
	const char *ssh_config;	/* -F FILE; NULL: ssh's default */
	int accept_new_hostkey;	/* --accept-new-hostkey */
	/* the tree to move, for an `available` that depends on it; set by the runner */
	const struct manifest *manifest;
};

#endif
