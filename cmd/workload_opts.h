#ifndef XFERCMP_WORKLOAD_OPTS_H
#define XFERCMP_WORKLOAD_OPTS_H

#include "workload.h"

#include <getopt.h>

/*
 * The options that describe a workload, shared by every command that makes
 * or moves one: -w/--workload, --files, --size, --seed, --compressibility,
 * --tree-features.
 */

enum {
	OPT_WORKLOAD_FILES = 1000,
	OPT_WORKLOAD_SIZE,
	OPT_WORKLOAD_SEED,
	OPT_WORKLOAD_COMPRESSIBILITY,
	OPT_WORKLOAD_TREE_FEATURES,
};

#define WORKLOAD_LONG_OPTIONS                                                          \
	{ "workload", required_argument, NULL, 'w' },                                  \
	{ "files", required_argument, NULL, OPT_WORKLOAD_FILES },                      \
	{ "size", required_argument, NULL, OPT_WORKLOAD_SIZE },                        \
	{ "seed", required_argument, NULL, OPT_WORKLOAD_SEED },                        \
	{ "compressibility", required_argument, NULL, OPT_WORKLOAD_COMPRESSIBILITY },       \
	{ "tree-features", optional_argument, NULL, OPT_WORKLOAD_TREE_FEATURES }

#define WORKLOAD_OPTIONS_HELP                                                                  \
	"  -w, --workload NAME      largefile, smallfiles, mixed, realistic (smallfiles with\n"     \
	"                           --tree-features) or dir:PATH (default smallfiles)\n"          \
	"      --files N            small files (default 120000; mixed: 20000)\n"                   \
	"      --size SIZE          largefile size (default 20G); mixed: total of its 4 large\n"    \
	"                           files (default 2G). K/M/G/T suffixes, powers of 1024\n"         \
	"      --seed N             generator seed (default 1): same seed, same bytes\n"           \
	"      --compressibility F  0 = random .. 1 = trivially compressible (default 0.5)\n"     \
	"      --tree-features[=LIST]  add what real trees hold to the small files: symbolic\n"  \
	"                           links (relative, absolute, dangling, to directories), hard\n" \
	"                           links, empty and 0555 directories, 0755/0444/0600 files,\n"  \
	"                           mtimes; LIST overrides shares of the files, default\n"       \
	"                           symlinks=5%,hardlinks=1%,emptydirs=2%,rodirs=1%,modes=4%\n"

struct workload_opts {
	struct workload_spec spec;
	int have_files, have_size;
	int have_features;			/* --tree-features given: overrides realistic's */
	struct workload_features features;
};

void workload_opts_init(struct workload_opts *o);

/*
 * Handles opt if it is a workload option. Returns 1 if handled, 0 if not a
 * workload option, -1 (error set) for a bad value. argc and argv are
 * getopt's: --tree-features takes its LIST as "--tree-features=LIST" or,
 * as people write it, as the next word when that word is NAME=... (holds
 * a '=' and no '/', which neither a host nor a directory given here does):
 * optind then steps over it.
 */
int workload_opts_parse(struct workload_opts *o, int opt, const char *arg, int argc,
			char **argv);

/* Applies defaults and checks the combination. Returns 0 or -1 (error set). */
int workload_opts_finish(struct workload_opts *o);

#endif
