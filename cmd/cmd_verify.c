/* xfercmp verify: check a directory against a manifest. */
#include "commands.h"
#include "err.h"
#include "exitcode.h"
#include "parallel.h"
#include "text_escape.h"
#include "verify.h"

#include "cli.h"
#include <limits.h>
#include <stdio.h>

static const struct cli_option verify_options[] = {
	CLI_OPTION("manifest", 'm', required_argument, "FILE", "the manifest (default DIR.manifest)"),
	CLI_OPTION("help", 'h', no_argument, NULL, "this text"),
	CLI_END,
};

int cmd_verify(int argc, char **argv)
{
	struct cli_parser p;
	const char *manifest_file = NULL;
	char manifest_buf[PATH_MAX], line[512];
	struct manifest m;
	struct verify_report r;
	int opt;

	cli_parser_init(&p, verify_options);
	while ((opt = cli_next(&p, argc, argv)) != -1) {
		switch (opt) {
		case 'm':
			manifest_file = optarg;
			break;
		case 'h':
			fputs("usage: xfercmp verify [--manifest FILE] DIR\n"
			      "Checks that DIR holds exactly the files of the manifest, with equal sizes and\n"
			      "xxh3 content hashes, and nothing extra. Exit 0 when equal, 1 when not.\n\n",
			      stdout);
			cli_help(stdout, verify_options, 23);
			return EXIT_OK;
		default:
			return cli_bad_option("verify", opt, argv);
		}
	}
	if (optind != argc - 1)
		return cmd_usage_error("verify", "expected one directory, got %d arguments",
				       argc - optind);
	if (!manifest_file) {
		if (manifest_default_path(argv[optind], manifest_buf, sizeof(manifest_buf)) < 0)
			return cmd_fail("verify", EXIT_USAGE);
		manifest_file = manifest_buf;
	}
	if (manifest_load(&m, manifest_file) < 0)
		return cmd_fail("verify", EXIT_USAGE);
	if (verify_tree(argv[optind], &m, 2 * parallel_cpus(), &r) < 0) {
		manifest_release(&m);
		return cmd_fail("verify", EXIT_FAILED);
	}
	manifest_release(&m);
	for (unsigned i = 0; i < r.nexamples; i++) {
		/* the tree's names, as text (text_escape.h) */
		text_escape_inplace(r.examples[i], sizeof(r.examples[i]));
		printf("%s\n", r.examples[i]);
	}
	if (verify_differences(&r) > r.nexamples)
		printf("... and %llu more\n", (unsigned long long)(verify_differences(&r) - r.nexamples));
	verify_summary(&r, line, sizeof(line));
	printf("%s: %s\n", verify_differences(&r) ? "FAILED" : "OK", line);
	return verify_differences(&r) ? EXIT_FAILED : EXIT_OK;
}
