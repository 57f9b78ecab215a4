#ifndef XFERCMP_WORKLOAD_OPTS_H
#define XFERCMP_WORKLOAD_OPTS_H

#include "workload.h"

#include <getopt.h>

/*
 * The options that describe a workload, shared by every command that makes
 * or moves one: -w/--workload, --files, --size, --seed, --compressibility.
 */

enum {
	OPT_WORKLOAD_FILES = 1000,
	OPT_WORKLOAD_SIZE,
	OPT_WORKLOAD_SEED,
	OPT_WORKLOAD_COMPRESSIBILITY,
};

#define WORKLOAD_LONG_OPTIONS                                                          \
	{ "workload", required_argument, NULL, 'w' },                                  \
	{ "files", required_argument, NULL, OPT_WORKLOAD_FILES },                      \
	{ "size", required_argument, NULL, OPT_WORKLOAD_SIZE },                        \
	{ "seed", required_argument, NULL, OPT_WORKLOAD_SEED },                        \
	{ "compressibility", required_argument, NULL, OPT_WORKLOAD_COMPRESSIBILITY }

#define WORKLOAD_OPTIONS_HELP                                                                  \
	"  -w, --workload NAME      largefile, smallfiles, mixed or dir:PATH (default smallfiles)\n" \
	"      --files N            small files (default 120000; mixed: 20000)\n"                   \
	"      --size SIZE          largefile size (default 20G); mixed: total of its 4 large\n"    \
	"                           files (default 2G). K/M/G/T suffixes, powers of 1024\n"         \
	"      --seed N             generator seed (default 1): same seed, same bytes\n"           \
	"      --compressibility F  0 = random .. 1 = trivially compressible (default 0.5)\n"

struct workload_opts {
	struct workload_spec spec;
	int have_files, have_size;
};

void workload_opts_init(struct workload_opts *o);

/*
 * Handles opt if it is a workload option. Returns 1 if handled, 0 if not a
 * workload option, -1 (error set) for a bad value.
 */
int workload_opts_parse(struct workload_opts *o, int opt, const char *arg);

/* Applies defaults and checks the combination. Returns 0 or -1 (error set). */
int workload_opts_finish(struct workload_opts *o);

#endif
