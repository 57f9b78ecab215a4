/* A target as ssh(1) takes it, "[user@]host[:port]", and libssh's error text (ssh_conn.h). */
#include "ssh/ssh_conn.h"

#include "err.h"

#include <stdio.h>
#include <string.h>

static int copy_part(char *dst, size_t cap, const char *src, size_t len, const char *what,
		     const char *target)
{
	if (len == 0)
		return err_set("bad ssh target '%s': empty %s", target, what);
	if (len >= cap)
		return err_set("bad ssh target '%s': %s longer than %zu bytes", target, what, cap - 1);
	memcpy(dst, src, len);
	dst[len] = '\0';
	return 0;
}

static int parse_port(const char *p, const char *target, unsigned *port)
{
	unsigned long v = 0;

	if (*p == '\0')
		return err_set("bad ssh target '%s': empty port", target);
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return err_set("bad ssh target '%s': port is not a number", target);
		v = v * 10 + (unsigned long)(*p - '0');
		if (v > 65535)
			break;
	}
	if (v < 1 || v > 65535)
		return err_set("bad ssh target '%s': port must be 1 to 65535", target);
	*port = (unsigned)v;
	return 0;
}

int ssh_conn_parse_target(const char *target, struct ssh_conn_target *t)
{
	const char *at, *hp, *end, *colon;

	memset(t, 0, sizeof(*t));
	if (!target || !*target)
		return err_set("empty ssh target");
	hp = target;
	/* The last '@', as scp does: a host name never contains one. */
	at = strrchr(target, '@');
	if (at) {
		if (copy_part(t->user, sizeof(t->user), target, (size_t)(at - target), "user name",
			      target) < 0)
			return -1;
		hp = at + 1;
	}
	if (*hp == '[') {
		end = strchr(hp, ']');
		if (!end)
			return err_set("bad ssh target '%s': '[' without ']'", target);
		if (copy_part(t->host, sizeof(t->host), hp + 1, (size_t)(end - hp - 1), "host",
			      target) < 0)
			return -1;
		if (end[1] == '\0')
			return 0;
		if (end[1] != ':')
			return err_set("bad ssh target '%s': unexpected text after ']'", target);
		return parse_port(end + 2, target, &t->port);
	}
	colon = strchr(hp, ':');
	/* Two colons or more: a bare IPv6 address, which cannot carry a port. */
	if (colon && strchr(colon + 1, ':'))
		colon = NULL;
	if (copy_part(t->host, sizeof(t->host), hp, colon ? (size_t)(colon - hp) : strlen(hp),
		      "host", target) < 0)
		return -1;
	return colon ? parse_port(colon + 1, target, &t->port) : 0;
}

const char *ssh_conn_error_text(ssh_session s, char *buf, size_t len, const char *if_empty)
{
	size_t n;

	snprintf(buf, len, "%s", s ? ssh_get_error(s) : "");
	n = strlen(buf);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '.'))
		buf[--n] = '\0';
	if (n == 0)
		snprintf(buf, len, "%s", if_empty);
	return buf;
}
