/*
 * xfercmp diff A.json B.json: two runs side by side (before and after a
 * tuning, two hosts, two days); the reading and the rendering are
 * report/report_diff.c's.
 */
#include "commands.h"
#include "err.h"
#include "exitcode.h"
#include "report/report_diff.h"

#include <getopt.h>
#include <stdio.h>

static const char diff_help[] =
	"usage: xfercmp diff A.json B.json\n"
	"Compares two --json reports: per strategy, the time in A and in B, the change,\n"
	"and whether it is beyond the runs' noise (Welch's t-test on --repeat runs, or\n"
	"ranges that do not overlap); then the ceilings that changed by more than 10%.\n"
	"Exit 0 when both files were read, 1 when one cannot be, 2 usage error.\n\n"
	"  -h, --help           this text\n";

int cmd_diff(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	json_object *a, *b;
	int opt;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (opt == 'h') {
			fputs(diff_help, stdout);
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
	report_diff(a, argv[optind], b, argv[optind + 1], stdout);
	json_object_put(a);
	json_object_put(b);
	return EXIT_OK;
}
