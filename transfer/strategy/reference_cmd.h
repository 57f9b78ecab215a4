#ifndef XFERCMP_REFERENCE_CMD_H
#define XFERCMP_REFERENCE_CMD_H

/*
 * The reference strategies run the system's own programs (scp, rsync, tar,
 * ssh, zstd) and are measured like xfercmp's own: reference.h.
 * `--strategies 'cmd:NAME=COMMAND'` adds the user's own command, run the same
 * way; this header is its interface.
 *
 * COMMAND is run by /bin/sh -c, once per run, with stdin from /dev/null and
 * stdout discarded; a non-zero exit fails the strategy with the first line
 * of its stderr. It must put the source tree's files directly in the
 * destination directory (which exists and is empty); the runner then
 * flushes and verifies it like any other strategy's.
 *
 * Placeholders, and the quoting rules:
 *   {src}   the source directory (absolute; copy its contents, e.g. {src}/.)
 *   {dst}   the destination directory on the host (absolute, exists, empty)
 *   {rdst}  the same, quoted once more for a remote shell: what to write
 *           where the path goes through ssh (ssh {host} tar -xf - -C {rdst})
 *   {host}  HOST exactly as given on the command line (the strategy is
 *           skipped without an SSH host); the command passes its own ssh
 *           options (-F FILE, and -p for a HOST:PORT, which ssh cannot take)
 * - {src} and one of {dst} and {rdst} are required.
 * - Each placeholder is replaced by its value quoted for the shell in single
 *   quotes ('/var/tmp/my dir' stays one word): write placeholders bare,
 *   never inside quotes. A placeholder inside '...' or "..." is refused,
 *   since the substituted quotes would end the user's own quotes.
 * - A placeholder is `{` + letters, digits or `_` + `}`. Any other such
 *   word ({SRC}, {dest}, {print}) is refused as unknown, wherever it is.
 *   Not placeholders: `${...}` (the shell's own), a `{` escaped with a
 *   backslash outside quotes, and braces around anything else ({a,b},
 *   `{ cmd; }`, awk's `'{ print $1 }'`).
 * - Quotes must be balanced.
 * - The values are quoted once, for the local shell. A value that travels
 *   through ssh to a remote shell is parsed a second time there: {dst}
 *   would be split or expanded by it (a --remote-dir holding spaces or
 *   shell metacharacters), {rdst} arrives as the one path.
 * - NAME is 1 to 32 of a-z, 0-9 and '-', and not the name of a built-in
 *   strategy, "all" or "real"; it names the strategy in the report.
 * - In a --strategies list the built-in names come first: a cmd: entry runs
 *   up to the next ",cmd:" or the end, so COMMAND may hold commas.
 */

#include "strategy/strategy.h"

#include <stddef.h>

#define REFERENCE_CMD_NAME_MAX 32

enum reference_cmd_uses {
	REFERENCE_CMD_SRC = 1 << 0,
	REFERENCE_CMD_HOST = 1 << 1,
	REFERENCE_CMD_DST = 1 << 2,
	REFERENCE_CMD_RDST = 1 << 3,
};

/* A parsed cmd: spec. */
struct reference_cmd {
	char name[REFERENCE_CMD_NAME_MAX + 1];
	char *command;		/* COMMAND as given, owned */
	unsigned uses;		/* enum reference_cmd_uses: the placeholders it holds */
};

/*
 * Parses "cmd:NAME=COMMAND" into c, applying every rule above except the
 * built-in names (reference_cmd_strategy checks those). Returns 0, or -1
 * (error set saying which rule the spec breaks; c left empty).
 */
int reference_cmd_parse(const char *spec, struct reference_cmd *c);

/* Frees what parse allocated; safe on a zeroed or released c. */
void reference_cmd_release(struct reference_cmd *c);

/*
 * The command with each placeholder replaced by its value, shell-quoted;
 * host may be NULL when the command has no {host}. *out is malloc'ed, the
 * caller frees it. Returns 0 or -1 (error set).
 */
int reference_cmd_expand(const struct reference_cmd *c, const char *src, const char *host,
			 const char *dst, char **out);

/*
 * The strategy for a cmd: entry of --strategies, for strategy_parse_list
 * (list.c, which also refuses a NAME taken by a built-in strategy).
 * Returns a heap-allocated strategy named NAME, flagged
 * STRATEGY_REFERENCE (and STRATEGY_SSH when the command uses {host}), with
 * the parsed command as its priv and a release, to be freed with
 * strategy_free; or NULL (error set) for a bad spec, or the NAME "all" or
 * "real".
 */
const struct strategy *reference_cmd_strategy(const char *spec);

/*
 * Runs command with /bin/sh -c as the reference strategies run their
 * programs (pipeline.h): stdin /dev/null, stdout discarded, its own
 * process group, stderr collected. On success, accounts run's whole
 * manifest as sent. Returns 0, or -1 with the error "LABEL failed (exit N):
 * first line of stderr" (or "LABEL killed by signal S").
 */
int reference_run_shell(struct xfer_run *run, const char *label, const char *command);

#endif
