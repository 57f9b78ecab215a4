/* Choosing strategies: the table's by name, the cmd: entries made here (list.h). */
#include "strategy/list.h"

#include "err.h"
#include "strategy/reference_cmd.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

const struct strategy *strategy_find(const char *name)
{
	for (size_t i = 0; i < strategy_count; i++)
		if (!strcmp(strategy_table[i]->name, name))
			return strategy_table[i];
	return NULL;
}

static int add(const struct strategy **out, size_t *n, size_t max, const struct strategy *s)
{
	for (size_t i = 0; i < *n; i++)
		if (out[i] == s)
			return 0;
	if (*n == max)
		return err_set("too many strategies");
	out[(*n)++] = s;
	return 0;
}

static void known_names(char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < strategy_count && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
					strategy_table[i]->name);
}

/* Undoes a failed parse: frees the cmd: strategies already made. Returns -1. */
static int parse_failed(const struct strategy **out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		strategy_free(out[i]);
	return -1;
}

/*
 * The cmd: strategy for one entry, refused (NULL, error set) when its NAME
 * is a built-in strategy's or one already in out[].
 */
static const struct strategy *command_strategy(const char *spec, const struct strategy **out,
					       size_t n)
{
	const struct strategy *s = reference_cmd_strategy(spec);

	if (!s)
		return NULL;
	if (strategy_find(s->name)) {
		err_set("cmd strategy name '%s' is a built-in strategy's: choose another", s->name);
		strategy_free(s);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		if (!strcmp(out[i]->name, s->name)) {
			strategy_free(s);
			err_set("--strategies: two strategies named '%s'", out[i]->name);
			return NULL;
		}
	return s;
}

/* Adds the cmd: entries at cmds (",cmd:..." or "cmd:..."), each running up to the next ",cmd:". */
static int add_commands(const char *cmds, const struct strategy **out, size_t *n, size_t max)
{
	while (cmds) {
		const char *spec = cmds[0] == ',' ? cmds + 1 : cmds;
		const char *next = strstr(spec, ",cmd:");
		size_t len = next ? (size_t)(next - spec) : strlen(spec);
		const struct strategy *s;
		char one[1024];

		if (len >= sizeof(one))
			return err_set("--strategies: the entry '%.40s...' is too long", spec);
		memcpy(one, spec, len);
		one[len] = '\0';
		if (!(s = command_strategy(one, out, *n)))
			return -1;
		if (add(out, n, max, s) < 0) {
			strategy_free(s);
			return -1;
		}
		cmds = next;
	}
	return 0;
}

int strategy_parse_list(const char *list, const struct strategy **out, size_t max)
{
	/* built-in names first; a cmd: entry's COMMAND may hold commas, so it runs up to the next ",cmd:" */
	const char *cmds = !strncmp(list, "cmd:", 4) ? list : strstr(list, ",cmd:");
	size_t head = cmds ? (size_t)(cmds - list) : strlen(list);
	char buf[1024], names[512];
	size_t n = 0;

	if (head >= sizeof(buf))
		return err_set("--strategies: list too long");
	memcpy(buf, list, head);
	buf[head] = '\0';
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct strategy *s;

		if (!strcmp(tok, "all") || !strcmp(tok, "real")) {
			unsigned want = !strcmp(tok, "real") ? STRATEGY_REFERENCE : 0;

			for (size_t i = 0; i < strategy_count; i++)
				if ((strategy_table[i]->flags & STRATEGY_REFERENCE) == want &&
				    add(out, &n, max, strategy_table[i]) < 0)
					return -1;
			continue;
		}
		if (!(s = strategy_find(tok))) {
			known_names(names, sizeof(names));
			return err_set("unknown strategy '%s': choose from all, real, cmd:NAME=COMMAND, %s",
				       tok, names);
		}
		if (add(out, &n, max, s) < 0)
			return -1;
	}
	if (add_commands(cmds, out, &n, max) < 0)
		return parse_failed(out, n);
	if (n == 0) {
		known_names(names, sizeof(names));
		return err_set("--strategies is empty: choose from all, real, cmd:NAME=COMMAND, %s", names);
	}
	return (int)n;
}

int strategy_list_print(FILE *out)
{
	for (size_t i = 0; i < strategy_count; i++) {
		const struct strategy *s = strategy_table[i];

		fprintf(out, "%s\t%s\t%s\n", s->name,
			(s->flags & STRATEGY_REFERENCE) ? "reference" : "own",
			s->models ? s->models : "-");
	}
	if (fflush(out) != 0 || ferror(out))
		return err_errno("cannot write the list of strategies");
	return 0;
}
