/* xfercmp clean HOST: removes what xfercmp left on HOST (client/host_clean.h). */
#include "cli.h"
#include "client/host_clean.h"
#include "commands.h"
#include "exitcode.h"
#include "ssh/ssh_log.h"
#include "units.h"

#include <stdio.h>

enum { OPT_ACCEPT_NEW = 256, OPT_REMOTE_DIR };

static const struct cli_option clean_options[] = {
	CLI_OPTION("ssh-config", 'F', required_argument, "FILE",
	  "ssh configuration file, as ssh -F (default ~/.ssh/config)"),
	CLI_OPTION("accept-new-hostkey", OPT_ACCEPT_NEW, no_argument, NULL,
	  "add an unknown host key to known_hosts (a changed key is\n"
	  "always refused)"),
	CLI_OPTION("remote-dir", OPT_REMOTE_DIR, required_argument, "DIR",
	  "look for scratch roots in DIR too (a run's --remote-dir;\n"
	  "up to 8 times)"),
	CLI_OPTION("help", 'h', no_argument, NULL, "this text"),
	CLI_END,
};

static void print_item(void *ctx, const struct host_clean_item *it)
{
	char line[2600];

	(void)ctx;
	host_clean_item_text(it, line, sizeof(line));
	printf("%s\n", line);
	fflush(stdout);
}

int cmd_clean(int argc, char **argv)
{
	struct cli_parser p;
	struct host_clean_opts o = { 0 };
	struct host_clean_counts c;
	char size[32];
	int opt;

	cli_parser_init(&p, clean_options);
	while ((opt = cli_next(&p, argc, argv)) != -1) {
		switch (opt) {
		case 'F': o.conn.config_file = optarg; break;
		case OPT_ACCEPT_NEW: o.conn.accept_new_hostkey = 1; break;
		case OPT_REMOTE_DIR:
			if (o.nparents == HOST_CLEAN_MAX_PARENTS)
				return cmd_usage_error("clean", "more than %d --remote-dir",
						       HOST_CLEAN_MAX_PARENTS);
			if (optarg[0] != '/')
				return cmd_usage_error("clean", "--remote-dir '%s' is not an absolute path",
						       optarg);
			o.parents[o.nparents++] = optarg;
			break;
		case 'h':
			fputs("usage: xfercmp clean [OPTIONS] HOST\n"
			      "Removes what xfercmp left on HOST: the agents uploaded to ~/.cache/xfercmp, and\n"
			      "the scratch roots (xfercmp.XXXXXX) of runs that did not end well, in /var/tmp and\n"
			      "each --remote-dir. Only what is the user's and carries xfercmp's marker goes;\n"
			      "what a running xfercmp holds stays. Prints what it removed; exit 1 when something\n"
			      "of xfercmp's could not be removed. HOST 'local': this machine.\n\n",
			      stdout);
			cli_help(stdout, clean_options, 27);
			return EXIT_OK;
		default:
			return cli_bad_option("clean", opt, argv);
		}
	}
	if (optind != argc - 1)
		return cmd_usage_error("clean", "expected one HOST, got %d arguments", argc - optind);
	o.conn.target = argv[optind];
	ssh_log_route(0);
	if (host_clean_run(&o, print_item, NULL, &c) < 0)
		return cmd_fail("clean", EXIT_FAILED);
	if (c.removed)
		printf("%s: removed %u (%s)\n", o.conn.target, c.removed,
		       units_format_bytes(c.bytes, size, sizeof(size)));
	else if (!c.left_ours)
		printf("%s: nothing of xfercmp's left\n", o.conn.target);
	return c.left_ours ? EXIT_FAILED : EXIT_OK;
}
