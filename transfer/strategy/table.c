/* The one table of strategies: --strategies all walks it in this order. */
#include "strategy/strategy.h"

#include "err.h"
#include "strategy/reference_cmd.h"

#include <stdio.h>
#include <string.h>

extern const struct strategy strategy_scp, strategy_tar_ssh, strategy_zstd_ssh;
extern const struct strategy strategy_splice, strategy_zstd, strategy_parallel;
extern const struct strategy strategy_real_scp, strategy_real_scp_legacy, strategy_real_rsync;
extern const struct strategy strategy_real_tar_ssh, strategy_real_tar_zstd_ssh, strategy_real_tar_nc;

const struct strategy *const strategy_table[] = {
	&strategy_scp,
	&strategy_tar_ssh,
	&strategy_zstd_ssh,
	&strategy_splice,
	&strategy_zstd,
	&strategy_parallel,
	&strategy_real_scp,
	&strategy_real_scp_legacy,
	&strategy_real_rsync,
	&strategy_real_tar_ssh,
	&strategy_real_tar_zstd_ssh,
	&strategy_real_tar_nc,
};
const size_t strategy_count = sizeof(strategy_table) / sizeof(strategy_table[0]);

const struct strategy *strategy_find(const char *name)
{
	for (size_t i = 0; i < strategy_count; i++)
		if (!strcmp(strategy_table[i]->name, name))
			return strategy_table[i];
	return NULL;
}

int strategy_needs_ssh(const struct xfer_target *target, char *why, size_t len)
{
	if (target->ssh)
		return 0;
	snprintf(why, len, "needs an SSH host (xfercmp [OPTIONS] HOST)");
	return 1;
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
		reference_cmd_strategy_free(out[i]);
	return -1;
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
		if (!(s = reference_cmd_strategy(one)))
			return -1;
		for (size_t i = 0; i < *n; i++)
			if (!strcmp(out[i]->name, s->name)) {
				reference_cmd_strategy_free(s);
				return err_set("--strategies: two strategies named '%s'", out[i]->name);
			}
		if (add(out, n, max, s) < 0) {
			reference_cmd_strategy_free(s);
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
