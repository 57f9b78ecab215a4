/* The one table of strategies: --strategies all walks it in this order. */
#include "strategy.h"

#include "err.h"

#include <stdio.h>
#include <string.h>

extern const struct strategy strategy_scp, strategy_tar_ssh, strategy_zstd_ssh;
extern const struct strategy strategy_splice, strategy_zstd, strategy_parallel;

const struct strategy *const strategy_table[] = {
	&strategy_scp,
	&strategy_tar_ssh,
	&strategy_zstd_ssh,
	&strategy_splice,
	&strategy_zstd,
	&strategy_parallel,
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

int strategy_parse_list(const char *list, const struct strategy **out, size_t max)
{
	char buf[1024], names[512];
	size_t n = 0;

	if (snprintf(buf, sizeof(buf), "%s", list) >= (int)sizeof(buf))
		return err_set("--strategies: list too long");
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
			return err_set("unknown strategy '%s': choose from all, %s", tok, names);
		}
		if (add(out, &n, max, s) < 0)
			return -1;
	}
	if (n == 0) {
		known_names(names, sizeof(names));
		return err_set("--strategies is empty: choose from all, %s", names);
	}
	return (int)n;
}
