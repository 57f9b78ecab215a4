/* The agent's token and its "listening" line, for both ends. See agent_startup.h. */
#include "stream/agent_startup.h"

#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int agent_token_read_fd(int fd, const char *name, char token[WIRE_TOKEN_HEX + 1])
{
	/* longer than a token: a long line is read whole enough to be refused, not cut to fit */
	char line[256];
	size_t n = 0;
	int rc = 0, any = 0;

	for (;;) {
		char c;
		ssize_t r = read(fd, &c, 1);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = err_errno("cannot read token file '%s'", name);
			break;
		}
		if (r == 0)
			break;
		any = 1;
		if (c == '\n')
			break;
		if (n < sizeof(line) - 1)
			line[n++] = c;
	}
	line[n] = '\0';
	if (rc == 0 && n > 0 && line[n - 1] == '\r')
		line[--n] = '\0';
	if (rc == 0 && !any)
		rc = err_set("token file '%s' is empty", name);
	else if (rc == 0 && !wire_token_valid(line))
		rc = err_set("token in '%s' is not 64 hex characters", name);
	if (rc == 0)
		memcpy(token, line, WIRE_TOKEN_HEX + 1);
	explicit_bzero(line, sizeof(line));
	return rc;
}

int agent_token_load(const char *path, char token[WIRE_TOKEN_HEX + 1])
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), rc;
	struct stat st;

	if (fd < 0)
		return err_errno("cannot open token file '%s'", path);
	if (fstat(fd, &st) < 0) {
		rc = err_errno("cannot open token file '%s'", path);
	} else if (st.st_mode & 077) {
		rc = err_set("token file '%s' may be read or changed by other users (mode %04o): the token is the key to the agent; run: chmod 600 '%s'",
			     path, (unsigned)(st.st_mode & 07777), path);
	} else {
		rc = agent_token_read_fd(fd, path, token);
	}
	close(fd);
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
