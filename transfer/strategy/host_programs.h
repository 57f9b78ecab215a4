#ifndef XFERCMP_STRATEGY_HOST_PROGRAMS_H
#define XFERCMP_STRATEGY_HOST_PROGRAMS_H

/*
 * Which programs there are, here and on the SSH host: the `available`
 * checks of the strategies that need the system's own programs (the real-*
 * strategies, zstd-ssh).
 */

#include "strategy/strategy.h"

#include <stddef.h>

struct ssh_target;

/*
 * Whether the SSH host has program (tar, zstd, rsync or scp), as the SSH
 * target found them when it opened (one command for all: ssh_target.c).
 * Returns 1 (it has), 0 (it has not), or -1 (error set: program is none of
 * those).
 */
int host_programs_has(const struct ssh_target *ssh, const char *program);

/*
 * For `available`, with an SSH host (strategy_needs_ssh first): 0 if the
 * host has program, else 1 with the reason in why (also when it cannot be
 * asked).
 */
int host_programs_need(const struct xfer_target *t, const char *program, char *why, size_t len);

/* The Debian package that installs program ("openssh-client" for ssh and scp, "fpart" for fpsync). */
const char *host_programs_package(const char *program);

/* For `available`: 0 if every program (NULL-terminated) is in $PATH here, else 1 with the reason in why. */
int host_programs_need_local(const char *const *programs, char *why, size_t len);

#endif
