#ifndef XFERCMP_STRATEGY_TAR_SSH_H
#define XFERCMP_STRATEGY_TAR_SSH_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The command tar-ssh (compress false) and zstd-ssh (true) run on the host
 * to unpack their stream into dest (quoted here). Fails, with the error
 * set, when dest does not fit in out.
 */
int tar_ssh_extract_command(const char *dest, bool compress, char *out, size_t len);

#endif
