#ifndef XFERCMP_AGENT_STARTUP_H
#define XFERCMP_AGENT_STARTUP_H

/*
 * The agent's start-up contract with whoever starts it: the session token it
 * reads (a file, or the first line of stdin) and the line it prints once it
 * listens. The agent reads and prints; the client (a token file given with
 * --agent, an agent it launched, one started over SSH) reads the same token
 * files and parses the same line, so both ends share this one module. It uses
 * only common/ and stream/, so the static agent may link it and the client
 * may call it.
 */

#include "stream/wire.h"

#include <stddef.h>

/*
 * The file in every scratch root the agent made, holding the session id
 * (agent/agent_root.h): what is ours to remove. Roots are named PREFIX + 6 random
 * characters.
 */
#define AGENT_ROOT_MARKER ".xfercmp-agent"
#define AGENT_ROOT_PREFIX "xfercmp."
/*
 * A root its agent handed to a remover of its own when the client left
 * (agent/agent_leftover.h) is renamed PREFIX + 6 characters + this: the
 * next agent in that parent finds it, and waits for its remover or, when
 * that is gone, finishes it.
 */
#define AGENT_ROOT_REMOVING ".removing"

/* The agent's first line of output is this prefix, then "ADDR:PORT" ("[IPV6]:PORT"). */
#define AGENT_LISTENING_PREFIX "xfercmp-agent listening "

/*
 * Reads the token from the first line of the file descriptor fd (name is the
 * file's name for messages: "-" for stdin), one byte at a time with read(2):
 * no stdio buffer keeps a copy of the token, and nothing after the line is
 * taken from fd (the agent goes on reading its stdin for the client's end).
 * The line is the 64 hex characters of wire_token_valid, a trailing "\n" or
 * "\r\n" ignored. Every copy but token is wiped. Returns 0 or -1 (error
 * set: "token file 'NAME' is empty", "token in 'NAME' is not 64 hex
 * characters"). Does not close fd.
 */
int agent_token_read_fd(int fd, const char *name, char token[WIRE_TOKEN_HEX + 1]);

/*
 * Opens path (never through a symbolic link) and reads its token as
 * agent_token_read_fd does. A file that others may read or change (any bit
 * of 077: the token is the key to the agent) is refused, naming the chmod
 * to run. Returns 0 or -1 (error set).
 */
int agent_token_load(const char *path, char token[WIRE_TOKEN_HEX + 1]);

/*
 * Parses the agent's first line, AGENT_LISTENING_PREFIX "ADDR:PORT" (no
 * newline), into host (the text before the last ':'; an IPv6 address without
 * its brackets) and port (the digits after it; anything after them is
 * ignored). host may be
 * NULL when only the port is wanted. Returns 0 or -1, with the error set to
 * "it said 'LINE'" or "no port in 'LINE'" for the caller to wrap ("agent did
 * not start: ...").
 */
int agent_listening_parse(const char *line, char *host, size_t host_len, char *port,
			  size_t port_len);

#endif
