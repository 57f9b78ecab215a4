#ifndef XFERCMP_STRATEGY_REFERENCE_H
#define XFERCMP_STRATEGY_REFERENCE_H

/*
 * What the reference strategies share (reference.c): how their ssh, scp
 * and rsync reach the host, quoting, and running their pipeline
 * (pipeline.h) as a run of a strategy. The strategies themselves are in
 * real_scp.c, real_rsync.c and real_tar.c; the user's own command in
 * reference_cmd.c.
 */

#include "ssh/ssh_conn.h"
#include "strategy/pipeline.h"
#include "strategy/strategy.h"

/*
 * How ssh, scp and rsync reach the host as xfercmp's own session did: the
 * same -F file, the same host key policy, never a prompt (nobody answers
 * one), and HOST's user and port as options, since scp and rsync take no
 * host:port.
 */
struct reference_host {
	struct ssh_conn_target parts;
	char scp_host[300];	/* the host before ":path": an IPv6 address in brackets */
};

/* Splits t->label into h. Returns 0 or -1 (error set). */
int reference_host_parse(const struct xfer_target *t, struct reference_host *h);

/* Adds the ssh options to a, one word each. */
void reference_ssh_options(struct pipeline_argv *a, const struct xfer_target *t,
			   const struct reference_host *h);

/* ssh OPTIONS -- HOST REMOTE into a, REMOTE being a shell command line for the host. */
void reference_ssh_stage(struct pipeline_argv *a, const struct xfer_target *t,
			 const struct reference_host *h, const char *remote);

/*
 * "ssh OPTIONS" as one string for rsync's -e or $RSYNC_RSH (real-rsync,
 * real-fpsync): each word in single quotes, a quote inside doubled, as
 * rsync splits it (it takes no backslashes). malloc'ed, or NULL (error set).
 */
char *reference_rsync_rsh(const struct xfer_target *t, const struct reference_host *h);

/*
 * The first name of m (a file, hard link or directory) holding a newline,
 * shown with the newline as "\\n" in buf; 1 when there is one, 0 when not
 * (or m is NULL). scp -O and rclone 1.60 both land such a name under
 * another one, so their strategies skip such a tree, naming it.
 */
int reference_newline_name(const struct manifest *m, char *buf, size_t len);

/* s quoted for a POSIX shell, malloc'ed (NULL, error set, when out of memory). */
char *reference_shell_quote(const char *s);

/*
 * Runs the stages (pipeline_run), frees them, and on success accounts
 * run's whole manifest as sent. Returns 0 or -1 (error set).
 */
int reference_finish(struct xfer_run *run, struct pipeline_stage *st, unsigned n, int out_fd);

#endif
