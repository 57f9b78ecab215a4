/*
 * The options of the comparison and of `xfercmp probe` (compare.h), each
 * written once in a table that drives the parsing and --help (cli.h); and
 * what -P auto resolves to once the network probe has swept.
 */
#include "compare.h"
#include "compare_sample.h"

#include "commands.h"
#include "err.h"
#include "fsutil.h"
#include "exitcode.h"
#include "parallel.h"
#include "report/text_wrap.h"
#include "run/explain_run.h"
#include "strategy/list.h"
#include "units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DISK_PROBE_MIN (1ull << 20)

enum {
	OPT_SOURCE_DIR = 2000, OPT_AGENT, OPT_TOKEN, OPT_REPEAT, OPT_WARM, OPT_ZLEVEL,
	OPT_ZTHREADS, OPT_JSON, OPT_VERSION, OPT_ACCEPT_NEW, OPT_REMOTE_DIR, OPT_HTML,
	OPT_PROBE_SECONDS, OPT_NO_PROBES, OPT_DISK_PROBE_SIZE, OPT_LIST_STRATEGIES,
	OPT_EXPORT_CSV, OPT_EXPORT_MARKDOWN, OPT_ALLOW_CLEARTEXT, OPT_WHAT_IF, OPT_EXPLAIN,
	OPT_AGENT_VIA_SSH, OPT_SAMPLE, OPT_CHECK, OPT_CLEANUP,
};

/* The options the comparison and `probe` share, so their help cannot drift apart. */
static const struct cli_option source_dir_option[] = {
	CLI_OPTION("source-dir", OPT_SOURCE_DIR, required_argument, "DIR",
	  "generate the workload here and keep it; reused when DIR\n"
	  "already holds the same workload (default: a temporary\n"
	  "directory under /var/tmp, removed at the end)"),
	CLI_END,
};

static const struct cli_option connect_options[] = {
	CLI_OPTION("ssh-config", 'F', required_argument, "FILE",
	  "ssh configuration file, as ssh -F (default ~/.ssh/config)"),
	CLI_OPTION("accept-new-hostkey", OPT_ACCEPT_NEW, no_argument, NULL,
	  "add an unknown host key to known_hosts (a changed key is\n"
	  "always refused)"),
	CLI_OPTION("remote-dir", OPT_REMOTE_DIR, required_argument, "DIR",
	  "where the agent makes its scratch root on the host, a fresh\n"
	  "DIR/xfercmp.XXXXXX (0700) removed at the end (default /var/tmp)"),
	CLI_OPTION("agent", OPT_AGENT, required_argument, "ADDR:PORT",
	  "use an agent started by hand (xfercmp serve) at ADDR:PORT\n"
	  "([ADDR]:PORT for IPv6)"),
	CLI_OPTION("token-file", OPT_TOKEN, required_argument, "FILE", "the token that agent was given (with --agent)"),
	CLI_OPTION("agent-via-ssh", OPT_AGENT_VIA_SSH, no_argument, NULL,
	  "reach the agent's TCP port through ssh (a direct-tcpip\n"
	  "channel a stream), as is done by itself when the port\n"
	  "cannot be reached directly; the cipher is then in the\n"
	  "raw-TCP strategies' path"),
	CLI_END,
};

static const struct cli_option probe_budget_options[] = {
	CLI_OPTION("probe-seconds", OPT_PROBE_SECONDS, required_argument, "S", "time budget of each probe (default 2)"),
	CLI_OPTION("disk-probe-size", OPT_DISK_PROBE_SIZE, required_argument, "SIZE",
	  "the destination disk probe writes SIZE, whatever the\n"
	  "budget (up to 60 s); give a large file's size to measure\n"
	  "the rate a file that large meets (default: up to 1 GiB\n"
	  "within the budget)"),
	CLI_END,
};

static const struct cli_option common_options[] = {
	CLI_OPTION("verbose", 'v', no_argument, NULL,
	  "progress on stderr even when it is not a terminal; -vv\n"
	  "adds libssh's warnings (\"libssh: ...\"), -vvv its\n"
	  "protocol messages"),
	CLI_OPTION("quiet", 'q', no_argument, NULL, "no progress, not even on a terminal"),
	CLI_OPTION("help", 'h', no_argument, NULL, "this text"),
	CLI_OPTION("version", OPT_VERSION, no_argument, NULL, "print the version"),
	CLI_END,
};

static const struct cli_option compare_options[] = {
	CLI_GROUP(workload_options),
	CLI_GROUP(source_dir_option),
	CLI_OPTION("strategies", 's', required_argument, "LIST",
	  "comma-separated strategies, or all (default all); real =\n"
	  "the system's own scp, rsync, tar, rclone, fpsync (real-*);\n"
	  "cmd:NAME=COMMAND = your own command with {src}, {host},\n"
	  "{dst}, {rdst} (see README; {rdst}: {dst} quoted for a shell\n"
	  "across ssh)"),
	CLI_OPTION("list-strategies", OPT_LIST_STRATEGIES, no_argument, NULL,
	  "print each strategy: NAME, own or reference, and the\n"
	  "reference strategy it models (or -), tab-separated"),
	CLI_GROUP(connect_options),
	CLI_OPTION("repeat", OPT_REPEAT, required_argument, "N",
	  "runs per strategy (default 1): the median, mean ± σ and each\n"
	  "run; a winner only when its runs beat every other strategy's"),
	CLI_OPTION("sample", OPT_SAMPLE, required_argument, "SIZE|PERCENT|COUNT", COMPARE_SAMPLE_HELP),
	CLI_OPTION("check", OPT_CHECK, no_argument, NULL, COMPARE_CHECK_HELP),
	CLI_OPTION("warm", OPT_WARM, no_argument, NULL,
	  "do not drop the source from the page cache before each run\n"
	  "(and skip the source disk probe, which would)"),
	CLI_OPTION("allow-cleartext", OPT_ALLOW_CLEARTEXT, no_argument, NULL,
	  "let the raw-TCP strategies (splice, zstd, parallel,\n"
	  "real-tar-nc) send a dir: tree to a host off loopback; they\n"
	  "do not encrypt (they measure the link without a cipher), so\n"
	  "without it they are skipped there; the SSH ones encrypt"),
	CLI_OPTION("streams", 'P', required_argument, "N|auto",
	  "parallel, real-rclone, real-fpsync: streams, 1-64; auto\n"
	  "(default): where the network probe's stream sweep\n"
	  "saturates, at least one a core, at most 8 a core and 16,\n"
	  "and no more than the files and ranges to share out"),
	CLI_OPTION("zstd-level", OPT_ZLEVEL, required_argument, "N", "zstd: compression level, negative = fast (default 1)"),
	CLI_OPTION("zstd-threads", OPT_ZTHREADS, required_argument, "N",
	  "zstd: compression threads (default: number of cores, at most\n"
	  "64; 0: none, compression in the sending thread)"),
	CLI_GROUP(probe_budget_options),
	CLI_OPTION("what-if", OPT_WHAT_IF, required_argument, "SCENARIO",
	  "also predict each strategy on another link, e.g.\n"
	  "rate=1gbit,rtt=20ms (repeat it, or separate with ';')"),
	CLI_OPTION("no-probes", OPT_NO_PROBES, no_argument, NULL, "skip the probes (no ceilings, no forecast, no accounting)"),
	CLI_OPTION("explain", OPT_EXPLAIN, optional_argument, "[=LIST]",
	  "then rerun LIST (default: the recommended and the slowest) with\n"
	  "one resource taken away at a time (destination disk, durable\n"
	  "write, source disk, network, cipher) and report what each\n"
	  "saved against a control run with nothing removed, and the\n"
	  "causal verdict (none when the control belies the first run)"),
	CLI_OPTION("cleanup", OPT_CLEANUP, required_argument, "background|wait",
	  "the copies on the host: removed by the agent after xfercmp\n"
	  "exits (the next run there waits for them before it measures)\n"
	  "or before the report; default background on a terminal, wait\n"
	  "otherwise (a script finds the host clean when xfercmp exits)"),
	CLI_OPTION("json", OPT_JSON, required_argument, "FILE", "write the results as JSON (- = stdout; schema in README)"),
	CLI_OPTION("html", OPT_HTML, required_argument, "FILE", "write a self-contained HTML page with a chart"),
	CLI_OPTION("export-csv", OPT_EXPORT_CSV, required_argument, "FILE", "write the results table as CSV (one row a strategy)"),
	CLI_OPTION("export-markdown", OPT_EXPORT_MARKDOWN, required_argument, "FILE", "the same as a Markdown table"),
	CLI_GROUP(common_options),
	CLI_END,
};

/*
 * `xfercmp probe`: the comparison's options that make sense without
 * strategies, some with texts of their own; it refuses the others
 * (refuse_for_probe).
 */
static const struct cli_option probe_options[] = {
	CLI_GROUP(workload_options),
	CLI_GROUP(source_dir_option),
	CLI_GROUP(connect_options),
	CLI_OPTION("warm", OPT_WARM, no_argument, NULL, "skip the source disk probe (it would drop the page cache)"),
	CLI_OPTION("streams", 'P', required_argument, "N|auto",
	  "the streams the ceilings are shown at (default auto: what\n"
	  "-P auto would choose from the network probe's sweep)"),
	CLI_OPTION("zstd-level", OPT_ZLEVEL, required_argument, "N", "the level the compression probe measures (default 1)"),
	CLI_GROUP(probe_budget_options),
	CLI_OPTION("json", OPT_JSON, required_argument, "FILE", "write the ceilings as JSON (- = stdout; schema in README)"),
	CLI_GROUP(common_options),
	CLI_END,
};

/* The column the options' help lines start at. */
#define HELP_COLUMN 27

/* --help: the usage, the options, then the strategies in their order, names padded to the longest. */
static void print_help(int probe_only)
{
	int width = 0;

	if (probe_only) {
		fputs("usage: xfercmp probe [OPTIONS] [HOST]\n"
		      "Measures the ceilings of this pair of machines (network, SSH, disk, file creation,\n"
		      "compression) and reports them; no strategy runs. The workload options choose the\n"
		      "data the source-side and compression probes read.\n\n", stdout);
		cli_help(stdout, probe_options, HELP_COLUMN);
		fputs("\nExit status: 0 every probe ran, 1 a probe or the connection failed, 2 usage error.\n", stdout);
		return;
	}
	fputs("usage: xfercmp [OPTIONS] [HOST]\n"
	      "Moves a workload to HOST through several strategies, verifies every byte arrived,\n"
	      "and reports each strategy's time. Without HOST (or with HOST 'local') it starts an\n"
	      "agent on this machine and compares against it over loopback.\n\n", stdout);
	cli_help(stdout, compare_options, HELP_COLUMN);
	fputs("\nExit status: 0 every strategy ran and verified (skipped ones aside), 1 a strategy\n"
	      "or a verification failed, 2 usage error, 130 interrupted.\n", stdout);
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
		text_wrap(stdout, lead, (size_t)width + 4, strategy_table[i]->summary, text_width());
	}
}

/* -P auto (the default): chosen once the network probe swept, from the sweep and the workload. */
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

void compare_choose_streams(struct compare_opts *o, const struct manifest *m, struct probe_results *p)
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
		if (what_if_parse(one, &o->what_if[o->nwhat_if]) < 0)
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

/*
 * The files the reports go to, checked before anything runs: a report
 * that cannot be written must not cost the whole comparison first.
 */
static int check_outputs(const struct compare_opts *o)
{
	const struct {
		const char *option, *path;
	} out[] = {
		{ "--json", o->json }, { "--html", o->html },
		{ "--export-csv", o->export_csv }, { "--export-markdown", o->export_markdown },
	};

	for (size_t i = 0; i < sizeof(out) / sizeof(out[0]); i++)
		if (out[i].path && fs_check_writable(out[i].path) < 0)
			return cmd_usage_error(NULL, "%s: %s", out[i].option, err_msg());
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
	return check_outputs(o);
}

/*
 * The usage error for an option `probe` does not take (opt: what cli_next
 * returned): one of the comparison's is named as such, not taken and
 * ignored; any other is unknown. Returns EXIT_USAGE.
 */
static int refuse_for_probe(int opt, char **argv)
{
	const struct cli_option *o = optopt && optopt != opt ? cli_find_key(compare_options, optopt) :
				     cli_find_name(compare_options, argv[optind - 1]);

	if (opt == '?' && o)
		return cmd_usage_error("probe", "unknown option '--%s': it is the comparison's, not probe's",
				       o->name);
	return cli_bad_option(NULL, opt, argv);
}

int compare_parse(int argc, char **argv, struct compare_opts *o, int probe_only)
{
	struct cli_parser p;
	int opt, rc;

	set_defaults(o, probe_only);
	o->started_ns = clock_now();
	o->argc = argc;
	o->argv = argv;
	{
		time_t now = time(NULL);
		struct tm tm;

		if (gmtime_r(&now, &tm))
			strftime(o->started_at, sizeof(o->started_at), "%Y-%m-%dT%H:%M:%SZ", &tm);
	}
	cli_parser_init(&p, probe_only ? probe_options : compare_options);
	while ((opt = cli_next(&p, argc, argv)) != -1) {
		int handled = workload_opts_parse(&o->wo, opt, optarg, argc, argv);

		if (handled < 0)
			return cmd_usage_error(NULL, "%s", err_msg());
		if (handled) {
			if (opt == 'w')
				o->workload_name = optarg;
			continue;
		}
		if (probe_only && (opt == '?' || opt == ':'))
			return refuse_for_probe(opt, argv);
		switch (opt) {
		case OPT_SOURCE_DIR: o->source_dir = optarg; break;
		case 's': o->strategies = optarg; break;
		case OPT_AGENT: o->agent = optarg; break;
		case 'F': o->ssh_config = optarg; break;
		case OPT_ACCEPT_NEW: o->accept_new_hostkey = 1; break;
		case OPT_REMOTE_DIR: o->remote_dir = optarg; break;
		case OPT_ALLOW_CLEARTEXT: o->run.allow_cleartext = true; break;
		case OPT_CLEANUP:
			if (!strcmp(optarg, "background"))
				o->cleanup = COMPARE_CLEANUP_BACKGROUND;
			else if (!strcmp(optarg, "wait"))
				o->cleanup = COMPARE_CLEANUP_WAIT;
			else
				return cmd_usage_error(NULL, "--cleanup: expected background or wait, got '%s'", optarg);
			break;
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
		case OPT_SAMPLE:
			if ((rc = compare_sample_option(o, optarg)) != 0)
				return rc;
			break;
		case OPT_CHECK: o->sample_check = 1; break;
		case 'v': o->verbose++; break;
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
		default:
			return cli_bad_option(NULL, opt, argv);
		}
	}
	if ((rc = check_opts(o, argc, argv)) != 0 || (rc = compare_sample_check_opts(o)) != 0)
		return rc;
	o->run.user_tree = o->wo.spec.kind == WORKLOAD_DIR;
	o->run.sample = true;
	return 0;
}

