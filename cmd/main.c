/* Entry point: finds the subcommand in one table and hands it argv. */
#include "commands.h"
#include "err.h"
#include "exitcode.h"
#include "report/text_wrap.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const struct command commands[] = {
	{ "gen", "write a workload and its manifest into a directory", cmd_gen },
	{ "verify", "check a directory against a manifest", cmd_verify },
	{ "serve", "run the agent on the destination host", cmd_serve },
	{ "probe", "measure the network, disk, metadata and cpu ceilings only", cmd_probe },
	{ "diff", "compare two --json reports: times, changes beyond the noise, ceilings", cmd_diff },
	{ "clean", "remove what xfercmp left on a host: cached agents, scratch roots", cmd_clean },
};

void commands_list(FILE *f)
{
	fprintf(f, "commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "'xfercmp COMMAND --help' shows a command's options.\n");
}

static void usage(FILE *f)
{
	fprintf(f, "usage: xfercmp [OPTIONS] [HOST]       compare ways of moving data to HOST\n"
		   "       xfercmp COMMAND [OPTIONS] ...\n\n");
	commands_list(f);
}

int main(int argc, char **argv)
{
	/*
	 * Bare xfercmp used to start a 120,000-file local comparison: a
	 * command that takes minutes must be asked for (the mission's names
	 * its workload and host).
	 */
	if (argc < 2) {
		usage(stderr);
		fprintf(stderr, "\nxfercmp: nothing asked: name a workload and a host, for example\n"
				"  xfercmp -w smallfiles -s all HOST     (HOST 'local': this machine)\n");
		return EXIT_USAGE;
	}
	/* the report and --help fit the terminal when it is under 100 columns; a file or a pipe gets 100 */
	text_width_set(isatty(STDOUT_FILENO) ? text_terminal_columns(STDOUT_FILENO) : 0);
	{
		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			if (!strcmp(argv[1], commands[i].name))
				return commands[i].run(argc - 1, argv + 1);
		if (!strcmp(argv[1], "--version")) {
			printf("xfercmp %s\n", XFERCMP_VERSION);
			return EXIT_OK;
		}
		if (!strcmp(argv[1], "help") || !strcmp(argv[1], "commands")) {
			usage(stdout);
			return EXIT_OK;
		}
	}
	return cmd_compare(argc, argv);
}
