/*
 * cmd:NAME=COMMAND: parsing, the quoting checks, the substitution of
 * placeholders (the rules are in reference_cmd.h) and the strategy object.
 * One small lexer walks the command the way a POSIX shell tracks quotes,
 * for both jobs: parse walks without output to check, expand walks again
 * writing the result; running it, reference_run_shell, as the reference
 * strategies run their pipelines (reference.h).
 */
#define _GNU_SOURCE
#include "strategy/reference_cmd.h"

#include "err.h"
#include "ssh/ssh_exec.h"
#include "strategy/reference.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *word;
	unsigned bit;
} placeholders[] = {
	{ "src", REFERENCE_CMD_SRC },
	{ "host", REFERENCE_CMD_HOST },
	{ "dst", REFERENCE_CMD_DST },
	{ "rdst", REFERENCE_CMD_RDST },
};
#define NPLACEHOLDERS (sizeof(placeholders) / sizeof(placeholders[0]))

/* A growing NUL-terminated output string (buf malloc'ed). */
struct cmd_out {
	char *buf;
	size_t len, cap;
};

static int cmd_out_put(struct cmd_out *o, const char *s, size_t n)
{
	if (o->len + n + 1 > o->cap) {
		size_t cap = o->cap ? o->cap : 256;
		char *p;

		while (cap < o->len + n + 1)
			cap *= 2;
		p = realloc(o->buf, cap);
		if (!p)
			return err_set("out of memory for the expanded command");
		o->buf = p;
		o->cap = cap;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
	return 0;
}

/* The length of "{word}" at s (word: letters, digits, '_'), or 0 if s holds none. */
static size_t placeholder_len(const char *s)
{
	size_t n = 1;

	while ((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') ||
	       (s[n] >= '0' && s[n] <= '9') || s[n] == '_')
		n++;
	return n > 1 && s[n] == '}' ? n + 1 : 0;
}

static int put_value(struct cmd_out *o, const char *value)
{
	size_t cap = 4 * strlen(value) + 3;
	char *q = malloc(cap);
	int n, rc;

	if (!q)
		return err_set("out of memory for the expanded command");
	n = ssh_shell_quote(value, q, cap);
	rc = n < 0 ? -1 : cmd_out_put(o, q, (size_t)n);
	free(q);
	return rc;
}

/*
 * Walks command like a shell tracking its quotes. Every placeholder must be
 * known and outside quotes; *uses gets the ones seen. With out, writes the
 * command with each placeholder replaced by its value (values[] in the
 * order of placeholders[]). Returns 0 or -1 (error set, naming the strategy).
 */
static int cmd_walk(const char *name, const char *command, const char *const *values,
		    struct cmd_out *out, unsigned *uses)
{
	enum { BARE, SINGLE, DOUBLE } q = BARE;
	size_t i = 0;

	*uses = 0;
	while (command[i]) {
		char ch = command[i];
		size_t n = 1;

		if (ch == '\\' && q != SINGLE && command[i + 1]) {
			/* the next byte is literal: \' \" \{ start nothing */
			n = 2;
		} else if (ch == '$' && q != SINGLE && command[i + 1] == '{') {
			/* ${...} is the shell's parameter expansion */
			n = 2;
		} else if (ch == '\'' && q != DOUBLE) {
			q = q == SINGLE ? BARE : SINGLE;
		} else if (ch == '"' && q != SINGLE) {
			q = q == DOUBLE ? BARE : DOUBLE;
		} else if (ch == '{' && (n = placeholder_len(command + i)) > 0) {
			size_t k;

			for (k = 0; k < NPLACEHOLDERS; k++)
				if (strlen(placeholders[k].word) == n - 2 &&
				    !memcmp(placeholders[k].word, command + i + 1, n - 2))
					break;
			if (k == NPLACEHOLDERS)
				return err_set("cmd strategy '%s': unknown placeholder '%.*s': use {src}, "
					       "{host}, {dst} or {rdst}", name, (int)n, command + i);
			if (q != BARE)
				return err_set("cmd strategy '%s': placeholder %.*s is inside %s quotes: "
					       "write it bare, xfercmp puts the value in single quotes "
					       "itself", name, (int)n, command + i,
					       q == SINGLE ? "'...'" : "\"...\"");
			*uses |= placeholders[k].bit;
			if (out && put_value(out, values[k]) < 0)
				return -1;
			i += n;
			continue;
		} else {
			n = 1;
		}
		if (out && cmd_out_put(out, command + i, n) < 0)
			return -1;
		i += n;
	}
	if (q != BARE)
		return err_set("cmd strategy '%s': the command has an unterminated %s quote", name,
			       q == SINGLE ? "'" : "\"");
	return 0;
}

static int name_valid(const char *name, size_t len)
{
	if (len == 0 || len > REFERENCE_CMD_NAME_MAX)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') ||
		      name[i] == '-'))
			return 0;
	return 1;
}

int reference_cmd_parse(const char *spec, struct reference_cmd *c)
{
	const char *eq, *name, *command;
	unsigned uses;

	memset(c, 0, sizeof(*c));
	if (strncmp(spec, "cmd:", 4) || !(eq = strchr(spec + 4, '=')))
		return err_set("cmd strategy '%.200s': expected cmd:NAME=COMMAND", spec);
	name = spec + 4;
	command = eq + 1;
	if (!name_valid(name, (size_t)(eq - name)))
		return err_set("cmd strategy name '%.*s': use 1 to %d of a-z, 0-9 and '-'",
			       (int)(eq - name > 64 ? 64 : eq - name), name, REFERENCE_CMD_NAME_MAX);
	memcpy(c->name, name, (size_t)(eq - name));
	c->name[eq - name] = '\0';
	if (command[strspn(command, " \t")] == '\0') {
		memset(c, 0, sizeof(*c));
		return err_set("cmd strategy '%.*s': the command is empty", (int)(eq - name), name);
	}
	if (cmd_walk(c->name, command, NULL, NULL, &uses) < 0) {
		memset(c, 0, sizeof(*c));
		return -1;
	}
	if (!(uses & REFERENCE_CMD_SRC) || !(uses & (REFERENCE_CMD_DST | REFERENCE_CMD_RDST))) {
		err_set("cmd strategy '%s': the command does not use %s: it must copy {src}'s files "
			"into {dst} (or {rdst})", c->name,
			uses & REFERENCE_CMD_SRC ? "{dst} or {rdst}" : "{src}");
		memset(c, 0, sizeof(*c));
		return -1;
	}
	c->command = strdup(command);
	if (!c->command) {
		memset(c, 0, sizeof(*c));
		return err_set("out of memory for a cmd strategy");
	}
	c->uses = uses;
	return 0;
}

void reference_cmd_release(struct reference_cmd *c)
{
	free(c->command);
	memset(c, 0, sizeof(*c));
}

int reference_cmd_expand(const struct reference_cmd *c, const char *src, const char *host,
			 const char *dst, char **out)
{
	const char *values[NPLACEHOLDERS] = { src, host, dst, NULL };
	struct cmd_out o = { 0 };
	unsigned uses;
	char *remote = NULL;
	int rc;

	*out = NULL;
	/* {rdst}: quoted for the remote shell, then (by cmd_walk) for the local one */
	if (c->uses & REFERENCE_CMD_RDST) {
		size_t cap = 4 * strlen(dst) + 3;

		if (!(remote = malloc(cap)))
			return err_set("out of memory for the expanded command");
		if (ssh_shell_quote(dst, remote, cap) < 0) {
			free(remote);
			return -1;
		}
		values[3] = remote;
	}
	if ((c->uses & REFERENCE_CMD_HOST) && !host)
		return err_set("cmd strategy '%s': the command uses {host}, and there is no SSH host",
			       c->name);
	rc = cmd_walk(c->name, c->command, values, &o, &uses);
	free(remote);
	if (rc < 0) {
		free(o.buf);
		return -1;
	}
	*out = o.buf;
	return 0;
}

/* ---------------------------------------------------------------- running it */

int reference_run_shell(struct xfer_run *run, const char *label, const char *command)
{
	struct pipeline_stage st[1] = { 0 };

	pipeline_arg(&st[0].argv, "sh");
	pipeline_arg(&st[0].argv, "-c");
	pipeline_arg(&st[0].argv, "%s", command);
	st[0].label = label;
	return reference_finish(run, st, 1, -1);
}

/* ---------------------------------------------------------------- the strategy */

/* A cmd: strategy: .strategy.priv points back to it. */
struct cmd_strategy {
	struct strategy strategy;
	struct reference_cmd cmd;
	char *summary;
};

static int cmd_run(struct xfer_run *run)
{
	const struct cmd_strategy *c = run->strategy->priv;
	char *command;
	int rc;

	if (reference_cmd_expand(&c->cmd, run->src_root, run->target->ssh ? run->target->label : NULL,
				 run->dest, &command) < 0)
		return -1;
	rc = reference_run_shell(run, c->strategy.name, command);
	free(command);
	return rc;
}

static void cmd_strategy_free(struct cmd_strategy *c)
{
	reference_cmd_release(&c->cmd);
	free(c->summary);
	free(c);
}

static void cmd_release(const struct strategy *s)
{
	cmd_strategy_free(s->priv);
}

const struct strategy *reference_cmd_strategy(const char *spec)
{
	struct cmd_strategy *c = calloc(1, sizeof(*c));

	if (!c) {
		err_set("out of memory for a cmd strategy");
		return NULL;
	}
	if (reference_cmd_parse(spec, &c->cmd) < 0) {
		free(c);
		return NULL;
	}
	if (!strcmp(c->cmd.name, "all") || !strcmp(c->cmd.name, "real")) {
		err_set("cmd strategy name '%s' is reserved: choose another", c->cmd.name);
		cmd_strategy_free(c);
		return NULL;
	}
	if (asprintf(&c->summary, "your command: %s", c->cmd.command) < 0) {
		c->summary = NULL;
		cmd_strategy_free(c);
		err_set("out of memory for a cmd strategy");
		return NULL;
	}
	c->strategy = (struct strategy){
		.name = c->cmd.name,
		.summary = c->summary,
		.flags = STRATEGY_REFERENCE | STRATEGY_OWN_TRANSPORT |
			 ((c->cmd.uses & REFERENCE_CMD_HOST) ? STRATEGY_SSH : 0),
		.available = (c->cmd.uses & REFERENCE_CMD_HOST) ? strategy_needs_ssh : NULL,
		.run = cmd_run,
		.release = cmd_release,
		.stop = pipeline_stop_running,
		.priv = c,
	};
	return &c->strategy;
}
