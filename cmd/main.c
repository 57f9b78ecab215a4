/* Entry point: finds the subcommand in one table and hands it argv. */
#include "commands.h"
#include "err.h"
#include "exitcode.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const struct command commands[] = {
	{ "gen", "write a workload and its manifest into a directory", cmd_gen },
	{ "verify", "check a directory against a manifest", cmd_verify },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: xfercmp [OPTIONS] [HOST]       compare ways of moving data to HOST\n"
		   "       xfercmp COMMAND [OPTIONS] ...\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'xfercmp COMMAND --help' shows a command's options.\n");
}

int cmd_fail(const char *cmd, int code)
{
	if (cmd)
		fprintf(stderr, "xfercmp %s: %s\n", cmd, err_msg());
	else
		fprintf(stderr, "xfercmp: %s\n", err_msg());
	return code;
}

int cmd_usage_error(const char *cmd, const char *fmt, ...)
{
	char msg[ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "xfercmp%s%s: %s (see 'xfercmp%s%s --help')\n", cmd ? " " : "",
		cmd ? cmd : "", msg, cmd ? " " : "", cmd ? cmd : "");
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	if (argc >= 2) {
		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			if (!strcmp(argv[1], commands[i].name))
				return commands[i].run(argc - 1, argv + 1);
		if (!strcmp(argv[1], "--version")) {
			printf("xfercmp %s\n", XFERCMP_VERSION);
			return EXIT_OK;
		}
		if (!strcmp(argv[1], "help")) {
			usage(stdout);
			return EXIT_OK;
		}
	}
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return EXIT_OK;
	}
	usage(stderr);
	return EXIT_USAGE;
}
