#ifndef XFERCMP_SSH_LOG_H
#define XFERCMP_SSH_LOG_H

/*
 * libssh's own log, routed by us. Left alone, libssh prints its messages to
 * stderr at the level the ssh config's LogLevel sets: `LogLevel ERROR` put
 * eleven "[date, 1] ssh_known_hosts_read_entries: ..." lines in front of a
 * report, and with -v its warnings (such as "Invalid SSH_MSG_GLOBAL_REQUEST
 * packet") mixed into our progress. Here they go nowhere, or to stderr as
 * "libssh: FUNCTION: MESSAGE" lines at the level asked (-vv: warnings,
 * -vvv: protocol), whatever the config says.
 */

#include <libssh/libssh.h>

/*
 * Where libssh's messages go from now on: nowhere (0), or stderr with its
 * warnings (1) or its protocol messages too (2 or more).
 */
void ssh_log_route(int level);

/*
 * Sets s's libssh verbosity to what ssh_log_route chose (none, warnings or
 * protocol), overriding the config's LogLevel: call it after
 * ssh_options_parse_config. Installs the routing callback if ssh_log_route
 * was never called. Returns 0 or -1 (error set).
 */
int ssh_log_apply(ssh_session s);

/*
 * Prints "xfercmp: warning: TEXT" on stderr, TEXT made from fmt, unless the
 * same TEXT was printed before by this process: what the ssh config asks
 * and libssh cannot do is the same on every connection of a run, and is
 * said once. Thread-safe. Returns 1 when it printed, 0 when said before.
 */
int ssh_log_warn_once(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
