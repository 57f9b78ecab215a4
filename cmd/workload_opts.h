#ifndef XFERCMP_WORKLOAD_OPTS_H
#define XFERCMP_WORKLOAD_OPTS_H

#include "cli.h"
#include "workload.h"

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

/* The workload options, a group for a command's table (cli.h). */
extern const struct cli_option workload_options[];

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
