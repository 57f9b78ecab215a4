/* xfercmp verify: check a directory against a manifest. */
#include "commands.h"
#include "err.h"
#include "exitcode.h"
#include "parallel.h"
#include "text_escape.h"
#include "verify.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>

static const char verify_help[] =
	"usage: xfercmp verify [--manifest FILE] DIR\n"
	"Checks that DIR holds exactly the files of the manifest, with equal sizes and\n"
	"xxh3 content hashes, and nothing extra. Exit 0 when equal, 1 when not.\n\n"
	"      --manifest FILE  the manifest (default DIR.manifest)\n"
	"  -h, --help           this text\n";

int cmd_verify(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "manifest", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *manifest_file = NULL;
	char manifest_buf[PATH_MAX], line[512];
	struct manifest m;
	struct verify_report r;
	int opt;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":m:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'm':
			manifest_file = optarg;
			break;
		case 'h':
			fputs(verify_help, stdout);
			return EXIT_OK;
		case ':':
			return cmd_usage_error("verify", "option '%s' needs a value", argv[optind - 1]);
		default:
			return cmd_usage_error("verify", "unknown option '%s'", argv[optind - 1]);
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
