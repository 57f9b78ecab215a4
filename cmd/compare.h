#ifndef XFERCMP_COMPARE_H
#define XFERCMP_COMPARE_H

/*
 * What `xfercmp [OPTIONS] [HOST]` (cmd_compare.c) and `xfercmp probe`
 * (cmd_probe.c) share: the options, and the session before the strategies
 * run or the ceilings are reported: the agent, the source and its
 * manifest, the probes, and the interrupt that cleans them up.
 */

#include "client/destination.h"
#include "run/runner.h"
#include "manifest.h"
#include "probe/probes.h"
#include "strategy/strategy.h"
#include "workload_opts.h"

#include <stddef.h>
#include <stdint.h>

/* The most --what-if scenarios one run answers. */
#define COMPARE_WHAT_IF_MAX 8

struct compare_opts {
	struct workload_opts wo;
	const char *workload_name;
	const char *source_dir;
	const char *strategies;
	const char *agent;
	const char *token_file;
	const char *json;
	const char *html;
	const char *export_csv, *export_markdown;	/* the results table as CSV, Markdown */
	const char *host;
	double probe_seconds;
	uint64_t disk_probe_bytes;
	int no_probes;
	int probe_only;		/* xfercmp probe */
	const char *ssh_config;
	const char *remote_dir;
	int accept_new_hostkey;
	int agent_via_ssh;	/* --agent-via-ssh: every connection to the agent through ssh */
	struct runner_opts run;
	int streams_auto;	/* -P auto (the default): run.strategy.streams chosen after the network probe */
	char streams_why[256];	/* how the streams were chosen, for the report */
	int verbose;
	int quiet;		/* -q: no progress at all */
	/* for the record in the reports: the command line and when it started (RFC 3339, UTC) */
	int argc;
	char **argv;
	char started_at[32];
	/* --explain[=LIST] (run/explain.h): rerun strategies with one resource taken away */
	int explain;
	const char *explain_list;	/* NULL: the recommended and the slowest (explain_choose) */
	/* --what-if scenarios, in the order given */
	struct what_if what_if[COMPARE_WHAT_IF_MAX];
	size_t nwhat_if;
};

/* One comparison, or one probe, from connecting to cleaning up. */
struct compare_session {
	struct compare_opts o;
	struct destination dest;	/* the agent, and SSH when HOST is reached over it */
	struct manifest m;
	struct probe_results probes;	/* o.run.probes points here once measured */
	const char *root;		/* the source tree */
};

/*
 * Parses the options into o (probe_only: for `xfercmp probe`). Returns 0,
 * or an exit code after printing the usage error. --help, --version and
 * --list-strategies print and exit here.
 */
int compare_parse(int argc, char **argv, struct compare_opts *o, int probe_only);

/*
 * -P auto, once the network probe swept (p may be NULL: --no-probes): the
 * sweep's saturation (net_sweep_auto) between one stream a core (more for
 * large files' ranges) and 8 a core (at most 16), no more than m's files and
 * large-file ranges; sets o->run.strategy.streams, p's streams and
 * o->streams_why. With -P N, only the why and p's streams.
 */
void compare_choose_streams(struct compare_opts *o, const struct manifest *m, struct probe_results *p);

/*
 * Sets up s after compare_parse filled s->o: watches for an interrupt
 * (which also stops what the n strategies of list run, through their
 * stop), connects to the agent, makes the source and sends its manifest,
 * and runs the probes unless --no-probes. Returns EXIT_OK, or the exit
 * code after printing the error. Either way compare_close(s) follows.
 */
int compare_open(struct compare_session *s, const struct strategy *const *list, size_t n);

/*
 * Lets an interrupt being handled end the process; then ends the agent
 * (which removes its destinations and root), frees s and removes a temporary
 * source. Returns EXIT_OK, or EXIT_FAILED after printing one line for each
 * cleanup that failed (what is left and how to remove it): a run that leaves
 * something behind does not end in success.
 */
int compare_close(struct compare_session *s);

/* The one way the comparison reports its own failure: prints the error, returns EXIT_FAILED. */
int compare_fail(void);

#endif
