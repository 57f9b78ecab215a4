/* One option table per command (cli.h): getopt_long's tables and the --help lines made from it. */
#include "cli.h"

#include "commands.h"

#include <stdlib.h>
#include <string.h>

/* Whether key is also a short option: a letter. */
static int is_short(int key)
{
	return (key >= 'a' && key <= 'z') || (key >= 'A' && key <= 'Z');
}

/*
 * Calls each(o, ctx) for every option of table, its groups' in place, in
 * order; stops at the first that returns non-zero and returns that.
 */
static int each_option(const struct cli_option *table, int (*each)(const struct cli_option *, void *),
		       void *ctx)
{
	for (const struct cli_option *o = table; o->name || o->group; o++) {
		int rc = o->group ? each_option(o->group, each, ctx) : each(o, ctx);

		if (rc)
			return rc;
	}
	return 0;
}

static int add_option(const struct cli_option *o, void *ctx)
{
	struct cli_parser *p = ctx;
	size_t n = 0, len = strlen(p->shortopts);

	while (p->longopts[n].name)
		n++;
	if (n == CLI_MAX_OPTIONS)
		abort();
	p->longopts[n] = (struct option){ .name = o->name, .has_arg = o->arg, .val = o->key };
	if (is_short(o->key)) {
		p->shortopts[len++] = (char)o->key;
		if (o->arg != no_argument)
			p->shortopts[len++] = ':';
		if (o->arg == optional_argument)
			p->shortopts[len++] = ':';
		p->shortopts[len] = '\0';
	}
	return 0;
}

void cli_parser_init(struct cli_parser *p, const struct cli_option *table)
{
	memset(p, 0, sizeof(*p));
	p->table = table;
	/* a leading ':' makes getopt return ':' for a missing value */
	p->shortopts[0] = ':';
	each_option(table, add_option, p);
}

int cli_next(struct cli_parser *p, int argc, char **argv)
{
	opterr = 0;
	return getopt_long(argc, argv, p->shortopts, p->longopts, NULL);
}

struct find {
	int key;
	const char *name;	/* the typed name, without "--" */
	size_t len;		/* up to a '=' */
	const struct cli_option *found;
	int matches;		/* options whose name starts so (for an abbreviation) */
};

static int match(const struct cli_option *o, void *ctx)
{
	struct find *f = ctx;

	if (!f->name) {
		if (o->key != f->key)
			return 0;
		f->found = o;
		return 1;
	}
	if (strncmp(o->name, f->name, f->len))
		return 0;
	f->found = o;
	f->matches++;
	/* a whole name is that option, whatever else starts so */
	if (!o->name[f->len]) {
		f->matches = 1;
		return 1;
	}
	return 0;
}

const struct cli_option *cli_find_key(const struct cli_option *table, int key)
{
	struct find f = { .key = key };

	each_option(table, match, &f);
	return f.found;
}

const struct cli_option *cli_find_name(const struct cli_option *table, const char *typed)
{
	struct find f = { 0 };

	if (strncmp(typed, "--", 2) || !typed[2])
		return NULL;
	f.name = typed + 2;
	f.len = strcspn(f.name, "=");
	each_option(table, match, &f);
	return f.matches == 1 ? f.found : NULL;
}

int cli_bad_option(const char *cmd, int opt, char **argv)
{
	if (opt == ':')
		return cmd_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
	return cmd_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
}

struct help {
	FILE *out;
	int column;
};

static int help_option(const struct cli_option *o, void *ctx)
{
	const struct help *h = ctx;
	const char *line = o->help, *end;
	int n;

	if (is_short(o->key))
		n = fprintf(h->out, "  -%c, --%s", o->key, o->name);
	else
		n = fprintf(h->out, "      --%s", o->name);
	if (o->metavar)
		n += fprintf(h->out, "%s%s", o->metavar[0] == '[' ? "" : " ", o->metavar);
	fprintf(h->out, "%*s", n < h->column ? h->column - n : 2, "");
	for (;;) {
		end = strchr(line, '\n');
		fprintf(h->out, "%.*s\n", end ? (int)(end - line) : (int)strlen(line), line);
		if (!end)
			return 0;
		line = end + 1;
		fprintf(h->out, "%*s", h->column, "");
	}
}

void cli_help(FILE *out, const struct cli_option *table, int column)
{
	struct help h = { .out = out, .column = column };

	each_option(table, help_option, &h);
}
