#ifndef XFERCMP_STRATEGY_LIST_H
#define XFERCMP_STRATEGY_LIST_H

/*
 * Choosing strategies from the table (table.c) by name: --strategies, and
 * --list-strategies. The table only lists; this walks it.
 */

#include "strategy/strategy.h"

#include <stddef.h>
#include <stdio.h>

/* The table's strategy named name, or NULL. */
const struct strategy *strategy_find(const char *name);

/*
 * Parses "all", "real" (the reference strategies) or a comma-separated list
 * of names into out[] (at most max, no duplicates), with the cmd: entries
 * last (reference_cmd.h). Returns the count or -1 (error set naming the
 * unknown strategy and listing the known ones; nothing left to free). The
 * caller frees each of out[] with strategy_free.
 */
int strategy_parse_list(const char *list, const struct strategy **out, size_t max);

/*
 * --list-strategies: one line per strategy of the table, in table order,
 * "NAME\town\tMODELS" or "NAME\treference\t-", MODELS being the reference
 * strategy an own one models, or "-". scripts/bench.sh reads the pairs
 * from this: keep the format. Returns 0 or -1 (error set: out failed).
 */
int strategy_list_print(FILE *out);

#endif
