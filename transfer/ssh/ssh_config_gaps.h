#ifndef XFERCMP_SSH_CONFIG_GAPS_H
#define XFERCMP_SSH_CONFIG_GAPS_H

/*
 * What an ssh config asks that libssh 0.10 does not take from it by itself,
 * once OpenSSH's `ssh -G` has read the config (ssh_resolve.h) and libssh's
 * own parser is off: the algorithm lists a config sets (Ciphers,
 * KexAlgorithms, HostKeyAlgorithms, MACs, PubkeyAcceptedAlgorithms) are
 * handed to libssh; the options libssh has no way to apply (ControlMaster,
 * CertificateFile, PKCS11Provider, Compression, ...) are a one-line warning
 * each, once a run. Neither ever fails a connection: ssh would have
 * connected, and libssh's own choice is the fallback.
 */

#include "ssh/ssh_resolve.h"

#include <libssh/libssh.h>

/*
 * Clears in r what OpenSSH has without any config (ssh -G -F /dev/null,
 * read once a process), so that r holds only what a config set. When that
 * reading fails, every algorithm list and unsupported option is cleared:
 * nothing is applied or warned about rather than something wrongly.
 */
void ssh_config_gaps_keep_configured(struct ssh_resolved *r);

/*
 * Hands s the algorithm lists left in r (after keep_configured), the
 * ciphers only unless ciphers_given (the caller's list wins, as a command
 * line's -c would over the config's). A list libssh refuses (it knows none
 * of its algorithms) is a warning, and libssh keeps its own. Then a warning
 * for each unsupported option r sets. Returns the number of warnings this
 * call printed (a warning already printed by this process is not again).
 */
int ssh_config_gaps_apply(ssh_session s, const struct ssh_resolved *r, int ciphers_given);

#endif
