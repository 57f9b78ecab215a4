/*
 * xfercmp [OPTIONS] [HOST]: the comparison. Parses, sets up source and
 * target, runs, reports. `xfercmp probe` (cmd_probe.c) shares the options
 * and the setup (compare.h).
 */
#define _GNU_SOURCE
#include "stream/agent_startup.h"
#include "commands.h"
#include "compare.h"
#include "live.h"
#include "model/verdict.h"
#include "sample/rss.h"
#include "environment.h"
#include "explain_run.h"
#include "err.h"
#include "exitcode.h"
#include "fsutil.h"
#include "generate.h"
#include "netaddr.h"
#include "parallel.h"
#include "report.h"
#include "text_wrap.h"
#include "ssh/ssh_log.h"
#include "strategy/list.h"
#include "units.h"

#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_STRATEGIES 32
#define DISK_PROBE_MIN (1ull << 20)

/* Option texts the comparison and `probe` share, so their help cannot drift apart. */
#define SOURCE_DIR_HELP                                                                        \
	"      --source-dir DIR     generate the workload here and keep it; reused when DIR\n"   \
	"                           already holds the same workload (default: a temporary\n"   \
	"                           directory under /var/tmp, removed at the end)\n"
#define CONNECT_OPTIONS_HELP                                                                   \
	"  -F, --ssh-config FILE    ssh configuration file, as ssh -F (default ~/.ssh/config)\n"  \
	"      --accept-new-hostkey add an unknown host key to known_hosts (a changed key is\n"  \
	"                           always refused)\n"                                            \
	"      --remote-dir DIR     where the agent makes its scratch root on the host, a fresh\n" \
	"                           DIR/xfercmp.XXXXXX (0700) removed at the end (default /var/tmp)\n" \
	"      --agent ADDR:PORT    use an agent started by hand (xfercmp serve) at ADDR:PORT\n"  \
	"                           ([ADDR]:PORT for IPv6)\n"                                   \
	"      --token-file FILE    the token that agent was given (with --agent)\n"            \
	"      --agent-via-ssh      reach the agent's TCP port through ssh (a direct-tcpip\n"   \
	"                           channel a stream), as is done by itself when the port\n"  \
	"                           cannot be reached directly; the cipher is then in the\n"  \
	"                           raw-TCP strategies' path\n"
#define PROBE_OPTIONS_HELP                                                                     \
	"      --probe-seconds S    time budget of each probe (default 2)\n"                      \
	"      --disk-probe-size SIZE  the destination disk probe writes SIZE, whatever the\n"     \
	"                           budget (up to 60 s); give a large file's size to measure\n"  \
	"                           the rate a file that large meets (default: up to 1 GiB\n"    \
	"                           within the budget)\n"
#define COMMON_TAIL_HELP                                                                       \
	"  -v, --verbose            progress on stderr even when it is not a terminal, and\n"    \
	"                           libssh's warnings (\"libssh: ...\"; never without -v)\n"     \
	"  -q, --quiet              no progress, not even on a terminal\n"                      \
	"  -h, --help               this text\n"                                                 \
	"      --version            print the version\n\n"

static const char compare_help[] =
	"usage: xfercmp [OPTIONS] [HOST]\n"
	"Moves a workload to HOST through several strategies, verifies every byte arrived,\n"
	"and reports each strategy's time. Without HOST (or with HOST 'local') it starts an\n"
	"agent on this machine and compares against it over loopback.\n\n" WORKLOAD_OPTIONS_HELP
	SOURCE_DIR_HELP
	"  -s, --strategies LIST    comma-separated strategies, or all (default all); real =\n"
	"                           the system's own scp, rsync, tar, rclone, fpsync (real-*);\n"
	"                           cmd:NAME=COMMAND = your own command with {src}, {host},\n"
	"                           {dst}, {rdst} (see README; {rdst}: {dst} quoted for a shell\n"
	"                           across ssh)\n"
	"      --list-strategies    print each strategy: NAME, own or reference, and the\n"
	"                           reference strategy it models (or -), tab-separated\n"
	CONNECT_OPTIONS_HELP
	"      --repeat N           runs per strategy (default 1): the median, mean ± σ and each\n"
	"                           run; a winner only beyond the runs' noise (Welch's t-test)\n"
	"      --warm               do not drop the source from the page cache before each run\n"
	"                           (and skip the source disk probe, which would)\n"
	"      --allow-cleartext    let the raw-TCP strategies (splice, zstd, parallel,\n"
	"                           real-tar-nc) send a dir: tree to a host off loopback; they\n"
	"                           do not encrypt (they measure the link without a cipher), so\n"
	"                           without it they are skipped there; the SSH ones encrypt\n"
	"  -P, --streams N|auto     parallel, real-rclone, real-fpsync: streams, 1-64; auto\n"
	"                           (default): where the network probe's stream sweep\n"
	"                           saturates, at least one a core, at most 8 a core and 16,\n"
	"                           and no more than the files and ranges to share out\n"
	"      --zstd-level N       zstd: compression level, negative = fast (default 1)\n"
	"      --zstd-threads N     zstd: compression threads (default: number of cores, at most\n"
	"                           64; 0: none, compression in the sending thread)\n"
	PROBE_OPTIONS_HELP
	"      --what-if SCENARIO   also predict each strategy on another link, e.g.\n"
	"                           rate=1gbit,rtt=20ms (repeat it, or separate with ';')\n"
	"      --no-probes          skip the probes (no ceilings, no attribution)\n"
	"      --explain[=LIST]     then rerun LIST (default: the recommended and the slowest) with\n"
	"                           one resource taken away at a time (destination disk, durable\n"
	"                           write, source disk, network, cipher) and report what each\n"
	"                           saved and the causal verdict\n"
	"      --json FILE          write the results as JSON (- = stdout; schema in README)\n"
	"      --html FILE          write a self-contained HTML page with a chart\n"
	"      --export-csv FILE    write the results table as CSV (one row a strategy)\n"
	"      --export-markdown FILE  the same as a Markdown table\n"
	COMMON_TAIL_HELP
	"Exit status: 0 every strategy ran and verified (skipped ones aside), 1 a strategy\n"
	"or a verification failed, 2 usage error, 130 interrupted.\n";

/* `xfercmp probe --help`: its own text (it printed the comparison's). */
static const char probe_help[] =
	"usage: xfercmp probe [OPTIONS] [HOST]\n"
	"Measures the ceilings of this pair of machines (network, SSH, disk, file creation,\n"
	"compression) and reports them; no strategy runs. The workload options choose the\n"
	"data the source-side and compression probes read.\n\n" WORKLOAD_OPTIONS_HELP
	SOURCE_DIR_HELP
	CONNECT_OPTIONS_HELP
	"      --warm               skip the source disk probe (it would drop the page cache)\n"
	"  -P, --streams N|auto     the streams the ceilings are shown at (default auto: what\n"
	"                           -P auto would choose from the network probe's sweep)\n"
	"      --zstd-level N       the level the compression probe measures (default 1)\n"
	PROBE_OPTIONS_HELP
	"      --json FILE          write the ceilings as JSON (- = stdout; schema in README)\n"
	COMMON_TAIL_HELP
	"Exit status: 0 every probe ran, 1 a probe or the connection failed, 2 usage error.\n";

/* NO_COLOR's convention (no-color.org): set AND non-empty turns colour off. */
static int no_color(void)
{
	const char *v = getenv("NO_COLOR");

	return v && *v;
}

/* The options, then the strategies in their order, names padded to the longest. */
static void print_help(int probe_only)
{
	int width = 0;

	if (probe_only) {
		fputs(probe_help, stdout);
		return;
	}
	fputs(compare_help, stdout);
	for (size_t i = 0; i < strategy_count; i++) {
		int len = (int)strlen(strategy_table[i]->name);

		if (len > width)
			width = len;
	}
	fputs("\n", stdout);
	commands_list(stdout);
	fputs("\nstrategies (-s all runs them in this order):\n", stdout);
	for (size_t i = 0; i < strategy_count; i++) {
		char lead[64];

		snprintf(lead, sizeof(lead), "  %-*s  ", width, strategy_table[i]->name);
		/* a summary too long for the line goes on under its own start */
		text_wrap(stdout, lead, (size_t)width + 4, strategy_table[i]->summary, TEXT_WIDTH);
	}
}

/* What an interrupt must remove: the temporary source, if we made one. */
static char temp_source[PATH_MAX];
static struct agent_process *running_agent;
/* Set once an interrupt is being handled: its thread says how the run ends. */
static atomic_int interrupted;
/*
 * What the interrupt stops besides: each chosen strategy's stop, once.
 * Copied, since the cmd: strategies are freed at the end while an
 * interrupt may still come.
 */
static void (*interrupt_stops[MAX_STRATEGIES])(void);
static size_t ninterrupt_stops;

/*
 * What the interrupt needs to report the strategies that finished: the
 * session, the list and the results being filled. results[0..completed)
 * are final (the runner fills each before its "done" progress call).
 */
static struct compare_session *partial_session;
static const struct strategy *const *partial_list;
static struct strategy_result *partial_results;
static int partial_n;
static atomic_int partial_completed;
/* --explain's removals, once the comparison finished: reported as far as they got */
static struct explain_report *partial_explain;
/* set while the normal report is being written: the interrupt waits for it instead */
static atomic_int reporting;

/* The live status line, on a terminal unless -q (live.h). */
static struct live live;
static bool live_on;

/*
 * The interrupt pulls the agent and the source from under the run, which
 * then fails: that failure is not the run's end to report, nor its exit
 * status. The interrupt's thread ends the process once it has cleaned up.
 */
static void leave_exit_to_interrupt(void)
{
	while (atomic_load(&interrupted))
		pause();
}

int compare_fail(void)
{
	leave_exit_to_interrupt();
	return cmd_fail(NULL, EXIT_FAILED);
}

static int report_results(struct compare_session *s, struct strategy_result *results, int n, int rc,
			  bool partial);

/*
 * On an interrupt during the strategies: the report of those that finished,
 * the one running marked interrupted and the rest not run, on stdout and in
 * the files asked for, marked partial. When the normal report is already
 * being written, waits (up to 10 s) for it instead of writing a second.
 */
static void report_partial(void)
{
	struct strategy_result *copy;
	int done = atomic_load(&partial_completed);

	if (!partial_results || !partial_session)
		return;
	if (atomic_load(&reporting)) {
		for (int i = 0; i < 100 && atomic_load(&reporting) == 1; i++)
			usleep(100 * 1000);
		return;
	}
	copy = calloc((size_t)partial_n, sizeof(*copy));
	if (!copy)
		return;
	memcpy(copy, partial_results, (size_t)done * sizeof(*copy));
	for (int i = done; i < partial_n; i++) {
		copy[i].strategy = partial_list[i];
		copy[i].status = i == done ? RESULT_FAILED : RESULT_SKIPPED;
		snprintf(copy[i].error, sizeof(copy[i].error), "%s",
			 i == done ? "interrupted while it ran" : "not run: interrupted");
	}
	report_results(partial_session, copy, partial_n, 0, true);
	fflush(stdout);
	free(copy);
}

static void *watch_interrupt(void *arg)
{
	sigset_t *set = arg;
	int sig;

	while (sigwait(set, &sig) != 0)
		;
	atomic_store(&interrupted, 1);
	if (live_on)
		live_clear(&live);
	fprintf(stderr, "\nxfercmp: interrupted, cleaning up\n");
	for (size_t i = 0; i < ninterrupt_stops; i++)
		interrupt_stops[i]();
	report_partial();
	if (running_agent)
		agent_process_stop(running_agent);
	if (temp_source[0]) {
		char manifest[PATH_MAX + 16];

		/*
		 * The generator's threads may still be creating files: asked to,
		 * they stop at their next file; the first pass takes their
		 * directories from under them, and a later pass takes what they
		 * made meanwhile (0555 directories of --tree-features included).
		 */
		workload_generate_cancel(true);
		for (int pass = 0; pass < 50 && fs_remove_tree(temp_source) < 0; pass++)
			usleep(100 * 1000);
		if (manifest_default_path(temp_source, manifest, sizeof(manifest)) == 0)
			unlink(manifest);
	}
	_exit(EXIT_INTERRUPTED);
	return NULL;
}

/* Keeps each distinct stop of list[] for the interrupt. */
static void keep_stops(const struct strategy *const *list, size_t n)
{
	ninterrupt_stops = 0;
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;

		if (!list[i]->stop)
			continue;
		while (k < ninterrupt_stops && interrupt_stops[k] != list[i]->stop)
			k++;
		if (k == ninterrupt_stops && ninterrupt_stops < MAX_STRATEGIES)
			interrupt_stops[ninterrupt_stops++] = list[i]->stop;
	}
}

static void start_interrupt_watch(void)
{
	static sigset_t set;
	pthread_t tid;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	pthread_create(&tid, NULL, watch_interrupt, &set);
}

/* The wire bytes a strategy should move, for the status line's total: 0 when unknown. */
static uint64_t expected_wire(const struct compare_session *s, const struct strategy *st)
{
	if (!(st->flags & STRATEGY_COMPRESSED))
		return s->m.total_bytes;
	if (s->o.run.probes && s->o.run.probes->zstd_ratio > 0)
		return (uint64_t)((double)s->m.total_bytes / s->o.run.probes->zstd_ratio);
	return 0;
}

static void progress(void *ctx, const struct strategy *s, unsigned run, unsigned runs,
		     const struct strategy_result *done)
{
	const struct compare_opts *o = ctx;

	if (done && partial_results && done >= partial_results &&
	    done < partial_results + partial_n)
		atomic_store(&partial_completed, (int)(done - partial_results) + 1);
	if (live_on) {
		if (done)
			live_end(&live, done, partial_session ? partial_session->m.count : 0);
		else
			live_begin(&live, s, run, runs, partial_session ? partial_session->m.count : 0,
				   partial_session ? partial_session->m.total_bytes : 0,
				   expected_wire(partial_session, s));
		return;
	}
	if (o->quiet || (!o->verbose && !isatty(2)))
		return;
	if (!done)
		fprintf(stderr, "running %s%s", s->name, runs > 1 ? "" : "...\n");
	if (!done && runs > 1)
		fprintf(stderr, " (%u/%u)...\n", run, runs);
	if (done && done->status != RESULT_OK)
		fprintf(stderr, "  %s %s: %s\n", s->name,
			done->status == RESULT_SKIPPED ? "skipped" : "failed", done->error);
}

#define DEFAULT_MAX_STREAMS 16
/*
 * -P auto's most streams a core: a stream held back by its window waits on
 * the round trip, not on a core (the sweep at 20 ms on the 2-vCPU testbed
 * still gained at 16 streams), and the sweep itself measured what the cores
 * drive.
 */
#define AUTO_STREAMS_PER_CORE 8
/* parallel cuts files above this into ranges (parallel.c's RANGE_THRESHOLD): each a piece to share out */
#define AUTO_RANGE_BYTES (64ull << 20)

/* -P auto's fewest streams, and the streams without a sweep: one a core, at most DEFAULT_MAX_STREAMS. */
static unsigned auto_floor(void)
{
	unsigned cores = parallel_cpus();

	return cores > DEFAULT_MAX_STREAMS ? DEFAULT_MAX_STREAMS : cores;
}

/*
 * -P auto, once the network probe swept (p may be NULL: --no-probes):
 * net_sweep_auto between auto_floor and AUTO_STREAMS_PER_CORE a core (at most
 * DEFAULT_MAX_STREAMS), no more than m's files and large-file ranges. Sets
 * the streams and o->streams_why.
 */
static void choose_streams(struct compare_opts *o, const struct manifest *m, struct probe_results *p)
{
	unsigned cores = parallel_cpus(), floor_streams, cap = cores * AUTO_STREAMS_PER_CORE;
	unsigned long long pieces = m->count + m->total_bytes / AUTO_RANGE_BYTES, ranges = 0;
	unsigned chosen;

	/* the ranges parallel cuts large files into (parallel.c) */
	for (size_t i = 0; i < m->count; i++)
		if (m->entries[i].size > AUTO_RANGE_BYTES)
			ranges += (m->entries[i].size + AUTO_RANGE_BYTES - 1) / AUTO_RANGE_BYTES;
	floor_streams = net_sweep_floor(cores, ranges, DEFAULT_MAX_STREAMS);

	if (cap > DEFAULT_MAX_STREAMS)
		cap = DEFAULT_MAX_STREAMS;
	if (!o->streams_auto) {
		snprintf(o->streams_why, sizeof(o->streams_why), "-P %u as given", o->run.strategy.streams);
		if (p)
			probe_results_set_streams(p, o->run.strategy.streams);
		return;
	}
	if (!p || p->nsweep == 0) {
		chosen = net_sweep_auto(NULL, 0, floor_streams, cap, pieces);
		snprintf(o->streams_why, sizeof(o->streams_why),
			 "-P auto chose %u: %s, no network sweep to go by", chosen,
			 floor_streams > auto_floor() ? "large files' ranges: the disks' queue depth" : "one a core");
	} else {
		chosen = net_sweep_auto(p->sweep, p->nsweep, floor_streams, cap, pieces);
		snprintf(o->streams_why, sizeof(o->streams_why),
			 "-P auto chose %u: the sweep saturates at %u stream%s; at least %u (%s), at most %u (%u a core, the agent's default) and %llu (files and ranges)",
			 chosen, p->net_saturation, p->net_saturation == 1 ? "" : "s", floor_streams,
			 floor_streams > auto_floor() ? "large files' ranges: the disks' queue depth" : "one a core",
			 cap, AUTO_STREAMS_PER_CORE, pieces);
		probe_results_set_streams(p, chosen);
	}
	o->run.strategy.streams = chosen;
}

static void set_defaults(struct compare_opts *o, int probe_only)
{
	memset(o, 0, sizeof(*o));
	o->probe_only = probe_only;
	o->probe_seconds = 2.0;
	workload_opts_init(&o->wo);
	o->workload_name = "smallfiles";
	o->strategies = "all";
	o->run.repeat = 1;
	/*
	 * One stream a core, at most DEFAULT_MAX_STREAMS: the agent holds at
	 * most 31 record streams within its memory cap of a session (agent.h,
	 * AGENT_SESSION_MEM_MAX); 16 leaves room for a large manifest. -P sets more.
	 */
	o->run.strategy.streams = auto_floor();
	o->streams_auto = 1;
	o->run.strategy.zstd_level = 1;
	o->run.strategy.zstd_threads = parallel_cpus();
	if (o->run.strategy.zstd_threads > STRATEGY_MAX_ZSTD_THREADS)
		o->run.strategy.zstd_threads = STRATEGY_MAX_ZSTD_THREADS;
}

enum {
	OPT_SOURCE_DIR = 2000, OPT_AGENT, OPT_TOKEN, OPT_REPEAT, OPT_WARM, OPT_ZLEVEL,
	OPT_ZTHREADS, OPT_JSON, OPT_VERSION, OPT_ACCEPT_NEW, OPT_REMOTE_DIR, OPT_HTML,
	OPT_PROBE_SECONDS, OPT_NO_PROBES, OPT_DISK_PROBE_SIZE, OPT_LIST_STRATEGIES,
	OPT_EXPORT_CSV, OPT_EXPORT_MARKDOWN, OPT_ALLOW_CLEARTEXT, OPT_WHAT_IF, OPT_EXPLAIN,
	OPT_AGENT_VIA_SSH,
};

/* --what-if: one or several ';'-separated scenarios. Returns 0, or cmd_usage_error's code. */
static int parse_what_if(struct compare_opts *o, const char *arg)
{
	char copy[1024], *save = NULL;

	if (strlen(arg) >= sizeof(copy))
		return cmd_usage_error(NULL, "--what-if: at most %zu bytes", sizeof(copy) - 1);
	strcpy(copy, arg);
	for (char *one = strtok_r(copy, ";", &save); one; one = strtok_r(NULL, ";", &save)) {
		if (o->nwhat_if == COMPARE_WHAT_IF_MAX)
			return cmd_usage_error(NULL, "--what-if: at most %d scenarios", COMPARE_WHAT_IF_MAX);
		if (attribution_parse_what_if(one, &o->what_if[o->nwhat_if]) < 0)
			return cmd_usage_error(NULL, "--what-if: %s", err_msg());
		o->nwhat_if++;
	}
	if (o->nwhat_if == 0)
		return cmd_usage_error(NULL, "--what-if: expected a scenario like rate=1gbit,rtt=20ms");
	return 0;
}

/* The options that take a number: checks and sets it. Returns 0, or cmd_usage_error's code. */
static int parse_number(struct compare_opts *o, int opt, const char *arg)
{
	uint64_t v;

	switch (opt) {
	case OPT_PROBE_SECONDS:
		if (units_parse_double(arg, 0.05, 60, &o->probe_seconds) < 0)
			return cmd_usage_error(NULL, "--probe-seconds: %s", err_msg());
		break;
	case OPT_DISK_PROBE_SIZE:
		if (units_parse_size(arg, &o->disk_probe_bytes) < 0 ||
		    o->disk_probe_bytes < DISK_PROBE_MIN || o->disk_probe_bytes > PROBE_DISK_MAX_BYTES)
			return cmd_usage_error(NULL, "--disk-probe-size: expected 1M to 64G, got '%s'",
					       arg);
		break;
	case OPT_REPEAT:
		if (units_parse_count(arg, RUNNER_MAX_REPEAT, &v) < 0 || v == 0)
			return cmd_usage_error(NULL, "--repeat: expected 1 to %d, got '%s'",
					       RUNNER_MAX_REPEAT, arg);
		o->run.repeat = (unsigned)v;
		break;
	case 'P':
		if (!strcmp(arg, "auto")) {
			o->streams_auto = 1;
			o->run.strategy.streams = auto_floor();
			break;
		}
		if (units_parse_count(arg, STRATEGY_MAX_STREAMS, &v) < 0 || v == 0)
			return cmd_usage_error(NULL, "--streams: expected auto or 1 to %d, got '%s'",
					       STRATEGY_MAX_STREAMS, arg);
		o->run.strategy.streams = (unsigned)v;
		o->streams_auto = 0;
		break;
	case OPT_ZLEVEL: {
		char *end;
		long level = strtol(arg, &end, 10);

		if (*end || end == arg || level < -100 || level > 22)
			return cmd_usage_error(NULL, "--zstd-level: expected -100 to 22, got '%s'",
					       arg);
		o->run.strategy.zstd_level = (int)level;
		break;
	}
	case OPT_ZTHREADS:
		if (units_parse_count(arg, STRATEGY_MAX_ZSTD_THREADS, &v) < 0)
			return cmd_usage_error(NULL, "--zstd-threads: expected 0 to %d, got '%s'",
					       STRATEGY_MAX_ZSTD_THREADS, arg);
		o->run.strategy.zstd_threads = (unsigned)v;
		break;
	}
	return 0;
}

/* What the options say together, once all are read. Returns 0, or cmd_usage_error's code. */
static int check_opts(struct compare_opts *o, int argc, char **argv)
{
	if (argc - optind > 1)
		return cmd_usage_error(NULL, "expected at most one HOST, got '%s' and '%s'",
				       argv[optind], argv[optind + 1]);
	o->host = optind < argc ? argv[optind] : "local";
	if (workload_opts_finish(&o->wo) < 0)
		return cmd_usage_error(NULL, "%s", err_msg());
	if (!!o->agent != !!o->token_file)
		return cmd_usage_error(NULL, "--agent and --token-file go together");
	if (o->agent_via_ssh && (o->agent || !strcmp(o->host, "local")))
		return cmd_usage_error(NULL, "--agent-via-ssh needs a HOST reached over ssh (the agent is then "
					     "started there), not %s", o->agent ? "--agent" : "a local run");
	if (o->remote_dir && o->remote_dir[0] != '/')
		return cmd_usage_error(NULL, "--remote-dir: give an absolute path, not '%s'", o->remote_dir);
	if (o->remote_dir && strlen(o->remote_dir) > SSH_TARGET_ROOT_MAX)
		return cmd_usage_error(NULL, "--remote-dir: at most %d bytes, not %zu", SSH_TARGET_ROOT_MAX,
				       strlen(o->remote_dir));
	return 0;
}

/*
 * The comparison's options that `probe` has no use for: it refuses them, as
 * any option its help does not list (they were taken and ignored).
 */
static int comparison_only(int opt)
{
	static const int ids[] = { 's', OPT_LIST_STRATEGIES, OPT_REPEAT, OPT_ALLOW_CLEARTEXT,
				   OPT_ZTHREADS, OPT_WHAT_IF, OPT_EXPLAIN, OPT_NO_PROBES, OPT_HTML,
				   OPT_EXPORT_CSV, OPT_EXPORT_MARKDOWN };

	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		if (ids[i] == opt)
			return 1;
	return 0;
}

/* The usage error for such an option, named by its long name (argv may hold its value). */
static int probe_refuses(const struct option *longopts, int opt)
{
	const char *name = "?";

	for (; longopts->name; longopts++)
		if (longopts->val == opt)
			name = longopts->name;
	return cmd_usage_error("probe", "unknown option '--%s': it is the comparison's, not probe's",
			       name);
}

int compare_parse(int argc, char **argv, struct compare_opts *o, int probe_only)
{
	static const struct option longopts[] = {
		WORKLOAD_LONG_OPTIONS,
		{ "source-dir", required_argument, NULL, OPT_SOURCE_DIR },
		{ "strategies", required_argument, NULL, 's' },
		{ "list-strategies", no_argument, NULL, OPT_LIST_STRATEGIES },
		{ "agent", required_argument, NULL, OPT_AGENT },
		{ "ssh-config", required_argument, NULL, 'F' },
		{ "accept-new-hostkey", no_argument, NULL, OPT_ACCEPT_NEW },
		{ "remote-dir", required_argument, NULL, OPT_REMOTE_DIR },
		{ "allow-cleartext", no_argument, NULL, OPT_ALLOW_CLEARTEXT },
		{ "agent-via-ssh", no_argument, NULL, OPT_AGENT_VIA_SSH },
		{ "token-file", required_argument, NULL, OPT_TOKEN },
		{ "repeat", required_argument, NULL, OPT_REPEAT },
		{ "warm", no_argument, NULL, OPT_WARM },
		{ "streams", required_argument, NULL, 'P' },
		{ "zstd-level", required_argument, NULL, OPT_ZLEVEL },
		{ "zstd-threads", required_argument, NULL, OPT_ZTHREADS },
		{ "json", required_argument, NULL, OPT_JSON },
		{ "html", required_argument, NULL, OPT_HTML },
		{ "export-csv", required_argument, NULL, OPT_EXPORT_CSV },
		{ "export-markdown", required_argument, NULL, OPT_EXPORT_MARKDOWN },
		{ "probe-seconds", required_argument, NULL, OPT_PROBE_SECONDS },
		{ "no-probes", no_argument, NULL, OPT_NO_PROBES },
		{ "disk-probe-size", required_argument, NULL, OPT_DISK_PROBE_SIZE },
		{ "what-if", required_argument, NULL, OPT_WHAT_IF },
		{ "explain", optional_argument, NULL, OPT_EXPLAIN },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	int opt, rc;

	set_defaults(o, probe_only);
	o->argc = argc;
	o->argv = argv;
	{
		time_t now = time(NULL);
		struct tm tm;

		if (gmtime_r(&now, &tm))
			strftime(o->started_at, sizeof(o->started_at), "%Y-%m-%dT%H:%M:%SZ", &tm);
	}
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":w:s:P:F:vqh", longopts, NULL)) != -1) {
		int handled = workload_opts_parse(&o->wo, opt, optarg, argc, argv);

		if (handled < 0)
			return cmd_usage_error(NULL, "%s", err_msg());
		if (handled) {
			if (opt == 'w')
				o->workload_name = optarg;
			continue;
		}
		if (probe_only && comparison_only(opt))
			return probe_refuses(longopts, opt);
		switch (opt) {
		case OPT_SOURCE_DIR: o->source_dir = optarg; break;
		case 's': o->strategies = optarg; break;
		case OPT_AGENT: o->agent = optarg; break;
		case 'F': o->ssh_config = optarg; break;
		case OPT_ACCEPT_NEW: o->accept_new_hostkey = 1; break;
		case OPT_REMOTE_DIR: o->remote_dir = optarg; break;
		case OPT_ALLOW_CLEARTEXT: o->run.allow_cleartext = true; break;
		case OPT_AGENT_VIA_SSH: o->agent_via_ssh = 1; break;
		case OPT_TOKEN: o->token_file = optarg; break;
		case OPT_WARM: o->run.warm = o->run.strategy.keep_cached = true; break;
		case OPT_JSON: o->json = optarg; break;
		case OPT_HTML: o->html = optarg; break;
		case OPT_EXPORT_CSV: o->export_csv = optarg; break;
		case OPT_EXPORT_MARKDOWN: o->export_markdown = optarg; break;
		case OPT_NO_PROBES: o->no_probes = 1; break;
		case OPT_WHAT_IF:
			if ((rc = parse_what_if(o, optarg)) != 0)
				return rc;
			break;
		case OPT_EXPLAIN:
			if (explain_check_list(optarg) < 0)
				return cmd_usage_error(NULL, "%s", err_msg());
			o->explain = 1;
			o->explain_list = optarg && *optarg ? optarg : NULL;
			break;
		case 'v': o->verbose = 1; break;
		case 'q': o->quiet = 1; break;
		case OPT_PROBE_SECONDS: case OPT_DISK_PROBE_SIZE: case OPT_REPEAT: case 'P':
		case OPT_ZLEVEL: case OPT_ZTHREADS:
			if ((rc = parse_number(o, opt, optarg)) != 0)
				return rc;
			break;
		case OPT_VERSION:
			printf("xfercmp %s\n", XFERCMP_VERSION);
			exit(EXIT_OK);
		case 'h':
			print_help(probe_only);
			exit(EXIT_OK);
		case OPT_LIST_STRATEGIES:
			exit(strategy_list_print(stdout) < 0 ? cmd_fail(NULL, EXIT_FAILED) : EXIT_OK);
		case ':':
			return cmd_usage_error(NULL, "option '%s' needs a value", argv[optind - 1]);
		default:
			return cmd_usage_error(NULL, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if ((rc = check_opts(o, argc, argv)) != 0)
		return rc;
	o->run.user_tree = o->wo.spec.kind == WORKLOAD_DIR;
	o->run.progress = progress;
	o->run.progress_ctx = o;
	o->run.sample = true;
	return 0;
}

static void probe_progress(void *ctx, const char *what)
{
	const struct compare_opts *o = ctx;

	if (o->verbose || (!o->quiet && isatty(2)))
		fprintf(stderr, "probing %s...\n", what);
}

/* Makes (or finds) the source tree and its manifest; sets *root. */
static int prepare_source(struct compare_opts *o, struct manifest *m, const char **root)
{
	const struct workload_spec *spec = &o->wo.spec;
	char manifest_path[PATH_MAX + 16], description[256];
	struct generate_stats st;

	if (spec->kind == WORKLOAD_DIR) {
		if (access(spec->dir, R_OK | X_OK) != 0)
			return err_errno("cannot read workload directory '%s'", spec->dir);
		if (manifest_from_tree(m, spec->dir, 2 * parallel_cpus()) < 0)
			return -1;
		/* no strategy could carry them all, and copying a device is no measure of a link */
		if (m->nspecials)
			fprintf(stderr,
				"xfercmp: %zu special file%s (devices, FIFOs, sockets) in '%s' %s left out, e.g. '%s'\n",
				m->nspecials, m->nspecials == 1 ? "" : "s", spec->dir,
				m->nspecials == 1 ? "is" : "are", m->specials[0].path);
		if (m->count == 0)
			return err_set("workload directory '%s' holds no regular files", spec->dir);
		*root = spec->dir;
		return 0;
	}
	workload_describe(spec, description, sizeof(description));
	if (o->source_dir) {
		if (manifest_default_path(o->source_dir, manifest_path, sizeof(manifest_path)) < 0)
			return -1;
		/* an earlier run left this very workload there: reuse it */
		if (access(manifest_path, R_OK) == 0 && manifest_load(m, manifest_path) == 0) {
			if (m->description && !strcmp(m->description, description)) {
				*root = o->source_dir;
				return 0;
			}
			manifest_release(m);
		}
		*root = o->source_dir;
	} else {
		snprintf(temp_source, sizeof(temp_source), "%s/xfercmp-src.XXXXXX", fs_scratch_base());
		if (!mkdtemp(temp_source)) {
			temp_source[0] = '\0';
			return err_errno("cannot create a temporary source under %s", fs_scratch_base());
		}
		*root = temp_source;
	}
	if (workload_generate(spec, *root, 2 * parallel_cpus(), isatty(2), m, &st) < 0)
		return -1;
	m->description = strdup(description);
	if (o->source_dir && manifest_save(m, manifest_path) < 0)
		return -1;
	return 0;
}

/*
 * Refuses to start when the destination cannot hold the workload: one copy
 * at a time is there (each strategy's destination is removed after it is
 * verified), plus room for file-system overhead on small files.
 */
static int check_destination_space(const struct agent_client *c, const struct manifest *m,
				   const char *host)
{
	json_object *v;
	uint64_t free_bytes, need = m->total_bytes + m->count * 4096ull + (64ull << 20);
	char have[32], want[32];

	if (!c->info || !json_object_object_get_ex(c->info, "root_free_bytes", &v) || !v)
		return 0;
	free_bytes = (uint64_t)json_object_get_int64(v);
	if (free_bytes >= need)
		return 0;
	return err_set("not enough space on %s: the workload needs about %s, the scratch directory's file system has %s free; choose a larger one with --remote-dir",
		       host, units_format_bytes(need, want, sizeof(want)),
		       units_format_bytes(free_bytes, have, sizeof(have)));
}

/*
 * Connects to the agent: one started by hand (--agent), one we start on
 * loopback (no HOST, or "local"), or one we start on HOST over SSH.
 */
static int connect_agent(struct compare_opts *o, struct agent_process *proc,
			 struct ssh_target *ssh, struct agent_client *c)
{
	char token[WIRE_TOKEN_HEX + 1], host[256], port[8];
	int rc;

	if (o->agent) {
		if (net_hostport_split(o->agent, host, sizeof(host), port, sizeof(port)) < 0 || !host[0])
			return err_set("--agent '%s': expected ADDR:PORT or [IPV6]:PORT", o->agent);
		if (agent_token_load(o->token_file, token) < 0)
			return -1;
		rc = agent_client_connect(c, host, port, token);
		/* the client keeps the key it derived; the token goes */
		explicit_bzero(token, sizeof(token));
		return rc;
	}
	if (strcmp(o->host, "local")) {
		struct ssh_target_opts so = {
			.conn = { .target = o->host, .config_file = o->ssh_config,
				  .accept_new_hostkey = o->accept_new_hostkey },
			.remote_dir = o->remote_dir,
		};

		if (ssh_target_open(ssh, &so) < 0)
			return -1;
		if ((o->verbose || isatty(2)) && ssh->uploaded)
			fprintf(stderr, "uploaded the agent to %s:%s\n", o->host, ssh->agent_command);
		rc = agent_client_connect_ssh(c, ssh->agent_host, ssh->agent_port, ssh->token, &so.conn,
					     o->agent_via_ssh);
		explicit_bzero(ssh->token, sizeof(ssh->token));
		if (rc < 0)
			return err_wrap("the agent started on '%s' cannot be reached", o->host);
		ssh_target_set_agent_root(ssh, c->root);
		snprintf(c->label, sizeof(c->label), "%s", o->host);
		/* one line: it changes what the raw-TCP strategies measure */
		if (c->direct_failed[0] && !o->quiet)
			fprintf(stderr, "xfercmp: the agent's port on %s cannot be reached directly (%s): "
				"the raw-TCP strategies go through ssh, the cipher in their path\n",
				o->host, c->direct_failed);
		return 0;
	}
	if (agent_launch_local(proc, NULL) < 0)
		return -1;
	running_agent = proc;
	rc = agent_client_connect(c, proc->host, proc->port, proc->token);
	explicit_bzero(proc->token, sizeof(proc->token));
	return rc;
}

/*
 * Runs the probes into s->probes unless --no-probes: the network first, then
 * -P auto is resolved from its sweep (choose_streams), then the rest at the
 * depths the chosen streams use. Returns 0 or -1 (error set).
 */
static int run_probes(struct compare_session *s, const struct strategy *const *list, size_t n)
{
	struct compare_opts *o = &s->o;
	struct probe_plan plan = {
		.agent = &s->agent, .src_root = s->root, .manifest = &s->m,
		.ssh_session = s->ssh.session, .streams = o->streams_auto ? 0 : o->run.strategy.streams,
		.zstd_level = o->run.strategy.zstd_level,
		.zstd_threads = o->run.strategy.zstd_threads, .seconds = o->probe_seconds,
		.disk_bytes = o->disk_probe_bytes, .warm_source = o->run.warm,
	};

	if (o->no_probes) {
		choose_streams(o, &s->m, NULL);
		return 0;
	}
	/*
	 * A workload generated a moment ago is still being written back: the
	 * create probe's syncfs on the same file system (the testbed's, a copy
	 * within one machine) then flushed it too. Seen on 120,000 files just
	 * generated: creates probed at 15,594/s with 16 in flight before the
	 * run, 31,347/s measured again after it, the run itself 25,921/s.
	 */
	if (fs_sync_dir_fs(s->root) < 0)
		return err_wrap("cannot settle the source before the probes");
	/* xfercmp probe names no strategies: the ceilings at every depth the table's strategies use */
	if (!list || n == 0) {
		list = strategy_table;
		n = strategy_count;
	}
	if (probe_all_network(&plan, &s->probes, probe_progress, o) < 0)
		return -1;
	choose_streams(o, &s->m, &s->probes);
	/* a single raw stream sizes its buffers for the swept link over this round trip */
	o->run.strategy.path_bytes_per_s = s->probes.net_link_bps;
	o->run.strategy.path_rtt_s = s->probes.rtt_p50_s;
	verdict_depths(list, n, o->run.strategy.streams, &plan.creates, &plan.opens, &plan.reads);
	plan.one_disk = probe_one_disk(s->root, s->agent.info);
	if (probe_all_rest(&plan, &s->probes, probe_progress, o) < 0)
		return -1;
	o->run.probes = &s->probes;
	o->run.probe_seconds = o->probe_seconds;
	return 0;
}

int compare_open(struct compare_session *s, const struct strategy *const *list, size_t n)
{
	struct compare_opts *o = &s->o;

	s->proc = (struct agent_process){ .pid = -1, .stdin_fd = -1 };
	s->agent = (struct agent_client){ .ctl.fd = -1 };
	s->target = (struct xfer_target){ 0 };
	s->root = NULL;
	keep_stops(list, n);
	/* libssh's own log: to stderr only with -v (transfer/ssh/ssh_log.h) */
	ssh_log_route(o->verbose);
	start_interrupt_watch();
	manifest_init(&s->m);
	memset(&s->ssh, 0, sizeof(s->ssh));
	/* connect first: a refused host key should not wait for a 20 GiB workload */
	if (connect_agent(o, &s->proc, &s->ssh, &s->agent) < 0 || prepare_source(o, &s->m, &s->root) < 0 ||
	    check_destination_space(&s->agent, &s->m, o->host) < 0 ||
	    agent_client_send_manifest(&s->agent, &s->m) < 0)
		return compare_fail();
	s->target.agent = &s->agent;
	s->target.label = o->host;
	s->target.ssh_config = o->ssh_config;
	s->target.accept_new_hostkey = o->accept_new_hostkey;
	s->target.ssh = s->ssh.session ? &s->ssh : NULL;
	if (run_probes(s, list, n) < 0)
		return compare_fail();
	return EXIT_OK;
}

int compare_close(struct compare_session *s)
{
	int code = EXIT_OK;

	leave_exit_to_interrupt();
	/* each cleanup that failed is one line on stderr, and the run fails */
	if (agent_client_close(&s->agent) < 0)
		code = cmd_fail(NULL, EXIT_FAILED);
	if (ssh_target_close(&s->ssh) < 0)
		code = cmd_fail(NULL, EXIT_FAILED);
	running_agent = NULL;
	agent_process_stop(&s->proc);
	manifest_release(&s->m);
	if (temp_source[0]) {
		if (fs_remove_tree(temp_source) < 0) {
			err_wrap("temporary source left behind (remove it with: chmod -R u+rwx '%s' && rm -rf '%s')",
				 temp_source, temp_source);
			code = cmd_fail(NULL, EXIT_FAILED);
		}
		temp_source[0] = '\0';
	}
	return code;
}

/*
 * Prints the report of the strategies' results (rc: runner_run's) and
 * writes the files asked for. Returns the exit code.
 */
/* The command line as one string, each argument that needs it single-quoted for a shell. */
static void command_line(const struct compare_opts *o, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < o->argc && n + 4 < len; i++) {
		const char *a = o->argv[i];
		int plain = *a && !a[strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					      "0123456789-_=+.,/:@%")];

		if (i)
			buf[n++] = ' ';
		if (plain) {
			n += (size_t)snprintf(buf + n, len - n, "%s", i ? a : "xfercmp");
		} else {
			buf[n++] = '\'';
			for (; *a && n + 5 < len; a++) {
				if (*a == '\'') {
					memcpy(buf + n, "'\\''", 4);
					n += 4;
				} else {
					buf[n++] = *a;
				}
			}
			buf[n++] = '\'';
		}
		if (n >= len)
			n = len - 1;
		buf[n] = '\0';
	}
}

static int report_results(struct compare_session *s, struct strategy_result *results, int n, int rc,
			  bool partial)
{
	struct compare_opts *o = &s->o;
	struct report rep;
	struct err_saved error;
	char source_fs[32] = "", command[2048];
	const char *dest_fs = "";
	int code = EXIT_OK;

	command_line(o, command, sizeof(command));
	fs_type_name(s->root, source_fs, sizeof(source_fs));
	for (int i = 0; i < n; i++)
		if (results[i].dest_fs[0])
			dest_fs = results[i].dest_fs;
	rep = (struct report){
		.host = o->host, .workload_name = o->workload_name, .spec = &o->wo.spec,
		.files = s->m.count, .bytes = s->m.total_bytes, .manifest = &s->m, .source_fs = source_fs, .dest_fs = dest_fs,
		.agent_info = s->agent.info, .results = results, .nresults = (size_t)n,
		.repeat = o->run.repeat, .warm = o->run.warm,
		.probes = o->run.probes, .what_if = o->what_if, .nwhat_if = o->nwhat_if,
		.environment = environment_json(s->root, s->agent.addr, s->agent.info),
		.partial = partial, .started_at = o->started_at, .command = command,
		.argc = o->argc, .argv = o->argv, .streams = o->run.strategy.streams,
		.client_lifetime_peak_rss_bytes = rss_lifetime_peak(),
		.explain = partial_explain,
		.streams_auto = o->streams_auto, .streams_why = o->streams_why,
		.agent_via_ssh = s->agent.via_ssh,
	};
	report_recommend(&rep);
	if (rc < 0) {
		err_save(&error);
		rep.error = error.msg;
		code = EXIT_FAILED;
	}
	for (int i = 0; rc == 0 && i < n; i++)
		if (results[i].status == RESULT_FAILED)
			code = EXIT_FAILED;
	if (!o->json || strcmp(o->json, "-"))
		report_table(&rep, stdout, isatty(1) && !no_color());
	/* (the interrupt's thread writes a partial report: it must not wait on itself) */
	if (o->json && report_json_write(&rep, o->json) < 0)
		code = partial ? cmd_fail(NULL, EXIT_FAILED) : compare_fail();
	if (o->html && report_html_write(&rep, o->html) < 0)
		code = partial ? cmd_fail(NULL, EXIT_FAILED) : compare_fail();
	if (o->export_csv && report_export_csv(&rep, o->export_csv) < 0)
		code = partial ? cmd_fail(NULL, EXIT_FAILED) : compare_fail();
	if (o->export_markdown && report_export_markdown(&rep, o->export_markdown) < 0)
		code = partial ? cmd_fail(NULL, EXIT_FAILED) : compare_fail();
	if (rc < 0) {
		/* the report has it on stdout; stderr ends with it, as with every error */
		err_restore(&error);
		compare_fail();
	}
	json_object_put(rep.environment);
	return code;
}

/* Runs the n strategies of list and reports. Returns the exit code. */
static int run_strategies(struct compare_session *s, const struct strategy **list, int n)
{
	struct strategy_result *results = calloc(MAX_STRATEGIES, sizeof(*results));
	int rc, code;

	if (!results) {
		err_set("out of memory for results");
		return compare_fail();
	}
	partial_session = s;
	partial_list = list;
	partial_n = n;
	partial_results = results;
	live_on = !s->o.quiet && isatty(2) && live_start(&live, s->agent.addr) == 0;
	rc = runner_run(&s->o.run, s->root, &s->m, &s->target, list, (size_t)n, results);
	if (live_on)
		live_stop(&live);
	live_on = false;
	if (rc == 0 && s->o.explain) {
		struct explain_report *ex = calloc(1, sizeof(*ex));

		if (ex) {
			/* an interrupt from here on reports the comparison and the removals that finished */
			ex->partial = true;
			partial_explain = ex;
			rc = explain_run(s, results, (size_t)n, ex);
			ex->partial = false;
		}
	}
	/* an interrupted run's report is the interrupt's (report_partial) */
	leave_exit_to_interrupt();
	atomic_store(&reporting, 1);
	code = report_results(s, results, n, rc, false);
	atomic_store(&reporting, 2);
	leave_exit_to_interrupt();
	partial_results = NULL;
	free(partial_explain);
	partial_explain = NULL;
	free(results);
	return code;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_session s;
	const struct strategy *list[MAX_STRATEGIES];
	int n, rc, code;

	if ((rc = compare_parse(argc, argv, &s.o, 0)) != 0)
		return rc;
	n = strategy_parse_list(s.o.strategies, list, MAX_STRATEGIES);
	if (n < 0)
		return cmd_usage_error(NULL, "%s", err_msg());
	code = compare_open(&s, list, (size_t)n);
	if (code == EXIT_OK)
		code = run_strategies(&s, list, n);
	if (compare_close(&s) != EXIT_OK && code == EXIT_OK)
		code = EXIT_FAILED;
	for (int i = 0; i < n; i++)
		strategy_free(list[i]);
	return code;
}
