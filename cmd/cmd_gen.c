/* xfercmp gen: write a workload and its manifest. */
#include "commands.h"
#include "err.h"
#include "exitcode.h"
#include "generate.h"
#include "parallel.h"
#include "units.h"
#include "workload_opts.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { OPT_MANIFEST = 256 };

static const struct cli_option gen_options[] = {
	CLI_GROUP(workload_options),
	CLI_OPTION("manifest", OPT_MANIFEST, required_argument, "FILE", "where to write the manifest (default DIR.manifest)"),
	CLI_OPTION("threads", 'j', required_argument, "N", "files created at once (default 2 per core)"),
	CLI_OPTION("quiet", 'q', no_argument, NULL, "no progress line"),
	CLI_OPTION("help", 'h', no_argument, NULL, "this text"),
	CLI_END,
};

static void print_help(void)
{
	fputs("usage: xfercmp gen [OPTIONS] DIR\n"
	      "Writes the workload into DIR (created; refused unless empty) and its manifest\n"
	      "(path, size, mode, xxh3 of every file; with --tree-features also every directory,\n"
	      "link and mtime) into DIR.manifest.\n\n", stdout);
	cli_help(stdout, gen_options, 27);
}

static volatile sig_atomic_t gen_interrupted;

/* Ctrl-C, SIGTERM, SIGHUP while generating: the generator stops and removes what it wrote. */
static void on_interrupt(int sig)
{
	(void)sig;
	gen_interrupted = 1;
	workload_generate_cancel(true);
}

static void catch_interrupts(void (*handler)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* Whether the directory that is to hold the manifest file exists and takes files. */
static int manifest_dir_writable(const char *file)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(file, '/');

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == file)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - file), file);
	if (access(dir, W_OK) < 0)
		return err_errno("cannot create manifest '%s' in '%s'", file, dir);
	return 0;
}

int cmd_gen(int argc, char **argv)
{
	struct cli_parser p;
	struct workload_opts wo;
	const char *manifest_file = NULL;
	char manifest_buf[PATH_MAX], bytes[32];
	uint64_t threads = 2ull * parallel_cpus();
	int quiet = 0, opt;
	struct manifest m;
	struct generate_stats st;

	workload_opts_init(&wo);
	cli_parser_init(&p, gen_options);
	while ((opt = cli_next(&p, argc, argv)) != -1) {
		int handled = workload_opts_parse(&wo, opt, optarg, argc, argv);

		if (handled < 0)
			return cmd_usage_error("gen", "%s", err_msg());
		if (handled)
			continue;
		switch (opt) {
		case OPT_MANIFEST:
			manifest_file = optarg;
			break;
		case 'j':
			if (units_parse_count(optarg, 1024, &threads) < 0 || threads == 0)
				return cmd_usage_error("gen", "--threads: expected 1 to 1024, got '%s'",
						       optarg);
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			print_help();
			return EXIT_OK;
		default:
			return cli_bad_option("gen", opt, argv);
		}
	}
	if (optind != argc - 1)
		return cmd_usage_error("gen", "expected one directory, got %d arguments", argc - optind);
	if (workload_opts_finish(&wo) < 0)
		return cmd_usage_error("gen", "%s", err_msg());
	if (wo.spec.kind == WORKLOAD_DIR)
		return cmd_usage_error("gen", "dir: workloads are your own data; there is nothing to generate");
	if (!manifest_file) {
		if (manifest_default_path(argv[optind], manifest_buf, sizeof(manifest_buf)) < 0)
			return cmd_fail("gen", EXIT_USAGE);
		manifest_file = manifest_buf;
	}
	/* before hours of generating: a manifest that cannot be written would leave a tree without one */
	if (manifest_dir_writable(manifest_file) < 0)
		return cmd_fail("gen", EXIT_FAILED);
	/*
	 * Interrupted, the generator removes the partial tree itself: with
	 * tree features it holds 0555 directories, which a plain rm -r as
	 * their owner cannot empty.
	 */
	catch_interrupts(on_interrupt);
	if (workload_generate(&wo.spec, argv[optind], (unsigned)threads, !quiet && isatty(2), &m, &st) < 0) {
		if (gen_interrupted) {
			fprintf(stderr, "xfercmp gen: interrupted; removed what was written to '%s'\n",
				argv[optind]);
			return EXIT_INTERRUPTED;
		}
		return cmd_fail("gen", EXIT_FAILED);
	}
	catch_interrupts(SIG_DFL);
	{
		char desc[256];

		workload_describe(&wo.spec, desc, sizeof(desc));
		m.description = strdup(desc);
	}
	if (manifest_save(&m, manifest_file) < 0) {
		manifest_release(&m);
		return cmd_fail("gen", EXIT_FAILED);
	}
	printf("generated %llu files (%s) in %llu directories in %.2f s: %.0f files/s, %.1f MB/s\n"
	       "manifest: %s\n",
	       (unsigned long long)st.files, units_format_bytes(st.bytes, bytes, sizeof(bytes)),
	       (unsigned long long)st.dirs, st.seconds, st.seconds > 0 ? st.files / st.seconds : 0.0,
	       st.seconds > 0 ? st.bytes / st.seconds / 1e6 : 0.0, manifest_file);
	if (wo.spec.features.on)
		printf("tree features: %llu symbolic links, %llu hard links, %llu directories (empty and 0555 ones among them)\n",
		       (unsigned long long)st.symlinks, (unsigned long long)st.hardlinks,
		       (unsigned long long)st.dirs);
	manifest_release(&m);
	return EXIT_OK;
}
