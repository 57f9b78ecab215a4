#include "workload_opts.h"

#include "err.h"
#include "fsutil.h"
#include "tree_features.h"
#include "units.h"

#include <string.h>

const struct cli_option workload_options[] = {
	CLI_OPTION("workload", 'w', required_argument, "NAME",
	  "largefile, smallfiles, mixed, realistic (smallfiles with\n"
	  "--tree-features) or dir:PATH (default smallfiles)"),
	CLI_OPTION("files", OPT_WORKLOAD_FILES, required_argument, "N", "small files (default 120000; mixed: 20000)"),
	CLI_OPTION("size", OPT_WORKLOAD_SIZE, required_argument, "SIZE",
	  "largefile size (default 20G); mixed: total of its 4 large\n"
	  "files (default 2G). K/M/G/T suffixes, powers of 1024"),
	CLI_OPTION("seed", OPT_WORKLOAD_SEED, required_argument, "N", "generator seed (default 1): same seed, same bytes"),
	CLI_OPTION("compressibility", OPT_WORKLOAD_COMPRESSIBILITY, required_argument, "F",
	  "0 = random .. 1 = trivially compressible (default 0.5)"),
	CLI_OPTION("tree-features", OPT_WORKLOAD_TREE_FEATURES, optional_argument, "[=LIST]",
	  "add what real trees hold to the small files: symbolic\n"
	  "links (relative, absolute, dangling, to directories), hard\n"
	  "links, empty and 0555 directories, 0755/0444/0600 files,\n"
	  "mtimes; LIST overrides shares of the files, default\n"
	  "symlinks=5%,hardlinks=1%,emptydirs=2%,rodirs=1%,modes=4%"),
	CLI_END,
};

void workload_opts_init(struct workload_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->spec.kind = WORKLOAD_SMALLFILES;
	o->spec.seed = 1;
	o->spec.compressibility = 0.5;
}

/* The next word is --tree-features' list: NAME=SHARE..., not an option, a host or a directory. */
static const char *feature_list_word(int argc, char **argv)
{
	const char *w = optind < argc ? argv[optind] : NULL;

	if (!w || w[0] == '-' || !strchr(w, '=') || strchr(w, '/'))
		return NULL;
	optind++;
	return w;
}

int workload_opts_parse(struct workload_opts *o, int opt, const char *arg, int argc,
			char **argv)
{
	switch (opt) {
	case 'w':
		return workload_parse_name(arg, &o->spec) < 0 ? -1 : 1;
	case OPT_WORKLOAD_FILES:
		if (units_parse_count(arg, WORKLOAD_MAX_FILES, &o->spec.files) < 0)
			return err_wrap("--files");
		if (o->spec.files == 0)
			return err_set("--files: must be at least 1");
		o->have_files = 1;
		return 1;
	case OPT_WORKLOAD_SIZE:
		if (units_parse_size(arg, &o->spec.size) < 0)
			return err_wrap("--size");
		if (o->spec.size == 0)
			return err_set("--size: must be at least 1 byte");
		o->have_size = 1;
		return 1;
	case OPT_WORKLOAD_SEED:
		return units_parse_count(arg, UINT64_MAX, &o->spec.seed) < 0 ? err_wrap("--seed") : 1;
	case OPT_WORKLOAD_COMPRESSIBILITY:
		return units_parse_double(arg, 0.0, 1.0, &o->spec.compressibility) < 0
			       ? err_wrap("--compressibility")
			       : 1;
	case OPT_WORKLOAD_TREE_FEATURES:
		if (!arg)
			arg = feature_list_word(argc, argv);
		if (tree_features_parse(arg, &o->features) < 0)
			return err_wrap("--tree-features");
		o->have_features = 1;
		return 1;
	default:
		return 0;
	}
}

int workload_opts_finish(struct workload_opts *o)
{
	if (o->spec.kind == WORKLOAD_LARGEFILE && o->have_files)
		return err_set("--files does not apply to the largefile workload: use --size");
	if (o->spec.kind == WORKLOAD_SMALLFILES && o->have_size)
		return err_set("--size does not apply to the smallfiles workload: use --files");
	if (o->spec.kind == WORKLOAD_DIR && (o->have_files || o->have_size))
		return err_set("--files and --size do not apply to dir: workloads");
	if (o->have_features && o->spec.kind == WORKLOAD_LARGEFILE)
		return err_set("--tree-features does not apply to the largefile workload: use smallfiles or mixed");
	if (o->have_features && o->spec.kind == WORKLOAD_DIR)
		return err_set("--tree-features does not apply to dir: workloads, which are your own tree");
	if (o->spec.kind == WORKLOAD_DIR && fs_check_readable_dir(o->spec.dir) < 0) {
		char why[512];

		snprintf(why, sizeof(why), "%s", err_msg());
		return err_set("-w dir:%s", why);
	}
	if (o->have_features)
		o->spec.features = o->features;
	workload_apply_defaults(&o->spec);
	return 0;
}
