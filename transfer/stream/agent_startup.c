/* The agent's token and its "listening" line, for both ends. See agent_startup.h. */
#include "stream/agent_startup.h"

#include "err.h"

#include <string.h>

int agent_token_read(FILE *f, const char *name, char token[WIRE_TOKEN_HEX + 1])
{
	/* longer than a token: a long line is read whole enough to be refused, not cut to fit */
	char line[256];

	if (!fgets(line, sizeof(line), f))
		return err_set("token file '%s' is empty", name);
	line[strcspn(line, "\r\n")] = '\0';
	if (!wire_token_valid(line))
		return err_set("token in '%s' is not 64 hex characters", name);
	memcpy(token, line, WIRE_TOKEN_HEX + 1);
	return 0;
}

int agent_token_load(const char *path, char token[WIRE_TOKEN_HEX + 1])
{
	FILE *f = fopen(path, "r");
	int rc;

	if (!f)
		return err_errno("cannot open token file '%s'", path);
	rc = agent_token_read(f, path, token);
	fclose(f);
	return rc;
}

int agent_listening_parse(const char *line, char *host, size_t host_len, char *port,
			  size_t port_len)
{
	const size_t skip = sizeof(AGENT_LISTENING_PREFIX) - 1;
	const char *colon, *addr = line + skip;
	size_t n, addr_n;

	if (strncmp(line, AGENT_LISTENING_PREFIX, skip) || !(colon = strrchr(addr, ':')))
		return err_set("it said '%.200s'", line);
	addr_n = (size_t)(colon - addr);
	/* an IPv6 address comes in brackets (netaddr.h); the host is held without them */
	if (addr_n >= 2 && addr[0] == '[' && addr[addr_n - 1] == ']') {
		addr++;
		addr_n -= 2;
	}
	if (host && addr_n >= host_len)
		return err_set("it said '%.200s'", line);
	n = strspn(colon + 1, "0123456789");
	if (n == 0 || n >= port_len)
		return err_set("no port in '%.200s'", line);
	memcpy(port, colon + 1, n);
	port[n] = '\0';
	if (host) {
		memcpy(host, addr, addr_n);
		host[addr_n] = '\0';
	}
	return 0;
}
