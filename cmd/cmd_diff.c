/*
 * xfercmp diff A.json B.json: two runs side by side (before and after a
 * tuning, two hosts, two days); the reading and the rendering are
 * report/report_diff.c's.
 */
#include "commands.h"
#include "err.h"
#include "exitcode.h"
#include "report/report_diff.h"
#include "report/text_wrap.h"

#include "cli.h"
#include <stdio.h>

static const struct cli_option diff_options[] = {
	CLI_OPTION("help", 'h', no_argument, NULL, "this text"),
	CLI_END,
};

struct diff_args {
	json_object *a;
	const char *a_path;
	json_object *b;
	const char *b_path;
};

static void diff_written(const void *ctx, FILE *out)
{
	const struct diff_args *d = ctx;

	report_diff(d->a, d->a_path, d->b, d->b_path, out);
}

int cmd_diff(int argc, char **argv)
{
	struct cli_parser p;
	json_object *a, *b;
	int opt;

	cli_parser_init(&p, diff_options);
	while ((opt = cli_next(&p, argc, argv)) != -1) {
		if (opt == 'h') {
			fputs("usage: xfercmp diff A.json B.json\n"
			      "Compares two --json reports: per strategy, the time in A and in B, the change,\n"
			      "and whether it is beyond the runs' noise (Welch's t-test on --repeat runs, or\n"
			      "ranges that do not overlap); then the ceilings that changed by more than 10%.\n"
			      "Exit 0 when both files were read, 1 when one cannot be, 2 usage error.\n\n",
			      stdout);
			cli_help(stdout, diff_options, 23);
			return EXIT_OK;
		}
		return cmd_usage_error("diff", "unknown option '%s'", argv[optind - 1]);
	}
	if (argc - optind != 2)
		return cmd_usage_error("diff", "expected two JSON reports, got %d", argc - optind);
	if (!(a = report_diff_load(argv[optind])))
		return cmd_fail("diff", EXIT_FAILED);
	if (!(b = report_diff_load(argv[optind + 1]))) {
		json_object_put(a);
		return cmd_fail("diff", EXIT_FAILED);
	}
	{
		struct diff_args d = { a, argv[optind], b, argv[optind + 1] };

		text_wrap_written(stdout, -1, diff_written, &d);
	}
	json_object_put(a);
	json_object_put(b);
	return EXIT_OK;
}
