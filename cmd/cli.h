#ifndef XFERCMP_CLI_H
#define XFERCMP_CLI_H

/*
 * A command's options, written once: one table per command drives the
 * parsing (getopt_long's long options and short letters), the option lines
 * of its --help, and through --help what scripts/gen-docs.sh makes of it
 * (the man page, the bash and zsh completions). Options that several
 * commands share are a group of their own (workload_options[], ...), taken
 * into a table in place with CLI_GROUP.
 */

#include <getopt.h>
#include <stdio.h>

struct cli_option {
	const char *name;	/* the long name, without "--" */
	/*
	 * What the parser returns for it: a letter is also its short form
	 * (-KEY, shown in --help as "-K, --name"); any other option has an id
	 * of 256 or more, unique among the command's options.
	 */
	int key;
	int arg;		/* no_argument, required_argument or optional_argument */
	const char *metavar;	/* after the name in --help: "DIR", or "[=LIST]" for an optional one; NULL: none */
	const char *help;	/* its lines in --help, '\n' between them, no '\n' at the end */
	const struct cli_option *group;	/* instead of all the above: the options of group, in place */
};

/* One option of a table: CLI_OPTION("name", key, arg, metavar, help). */
#define CLI_OPTION(n, k, a, m, h) { .name = (n), .key = (k), .arg = (a), .metavar = (m), .help = (h) }
/* The options of group, in place, in a table. */
#define CLI_GROUP(g) { .group = (g) }
/* A table's (and a group's) end. */
#define CLI_END { .name = NULL }

/* The most options one command has, its groups' included. */
#define CLI_MAX_OPTIONS 64

/* The parser a table makes: getopt_long's tables, filled by cli_parser_init. */
struct cli_parser {
	const struct cli_option *table;
	struct option longopts[CLI_MAX_OPTIONS + 1];
	char shortopts[3 * CLI_MAX_OPTIONS + 2];
};

/*
 * Makes p parse table's options, getopt's own messages off (the command
 * says what was wrong: cli_bad_option). Aborts on a table with more than
 * CLI_MAX_OPTIONS options: a programming error, never a user's.
 */
void cli_parser_init(struct cli_parser *p, const struct cli_option *table);

/*
 * The next option of argv, as getopt_long returns it: its key; ':' for one
 * that lacks its value, '?' for one the table has not; -1 at the first
 * argument that is no option. optarg and optind as getopt sets them.
 */
int cli_next(struct cli_parser *p, int argc, char **argv);

/*
 * The option of table with that key, or the one that long name names (the
 * name as typed: "--NAME", "--NAME=VALUE", or an unambiguous start of a
 * NAME); NULL when none does.
 */
const struct cli_option *cli_find_key(const struct cli_option *table, int key);
const struct cli_option *cli_find_name(const struct cli_option *table, const char *typed);

/*
 * The usage error for what cli_next returned for argv's option (':' or
 * '?'): "option '--x' needs a value" or "unknown option '--x'", for command
 * cmd (NULL: the comparison). Returns EXIT_USAGE.
 */
int cli_bad_option(const char *cmd, int opt, char **argv);

/*
 * The option lines of table's --help to out: "  -K, --name METAVAR" (or
 * six spaces without a short form), the first help line at column (at
 * least two spaces after the name), each further line indented to it.
 */
void cli_help(FILE *out, const struct cli_option *table, int column);

#endif
