#ifndef XFERCMP_COMMANDS_H
#define XFERCMP_COMMANDS_H

#include <stdio.h>

#include "version.h"

/* A subcommand: argv[0] is the command's name; returns an exit code from exitcode.h. */
struct command {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
};

int cmd_compare(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_clean(int argc, char **argv);

/* Prints the subcommands, one a line with its summary, for the help texts. */
void commands_list(FILE *f);

/* Prints "xfercmp: <msg>" (or "xfercmp <cmd>: <msg>") for the current error; returns code. */
int cmd_fail(const char *cmd, int code);

/* Prints a usage error with a hint to --help; returns EXIT_USAGE. */
int cmd_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
