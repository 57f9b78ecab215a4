/* Addresses as text, both families. See netaddr.h. */
#define _GNU_SOURCE
#include "netaddr.h"

#include "err.h"

#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int copy_text(char *dst, size_t cap, const char *src, size_t n, const char *what,
		     const char *spec)
{
	if (n >= cap)
		return err_set("'%s': %s longer than %zu bytes", spec, what, cap - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
	return 0;
}

int net_hostport_split(const char *spec, char *host, size_t host_len, char *port, size_t port_len)
{
	const char *colon, *host_start = spec, *host_end;
	size_t digits;

	if (spec[0] == '[') {
		host_end = strchr(spec, ']');
		if (!host_end)
			return err_set("'%s': '[' without ']'", spec);
		if (host_end[1] != ':')
			return err_set("'%s': no :PORT after ']'", spec);
		host_start = spec + 1;
		colon = host_end + 1;
		if (host_end == host_start)
			return err_set("'%s': empty address in brackets", spec);
	} else {
		colon = strrchr(spec, ':');
		if (!colon)
			return err_set("'%s': no port (use ADDR:PORT, or [IPV6]:PORT)", spec);
		host_end = colon;
		if (memchr(spec, ':', (size_t)(colon - spec)))
			return err_set("'%s': an IPv6 address takes brackets: [ADDR]:PORT", spec);
	}
	digits = strspn(colon + 1, "0123456789");
	if (digits == 0 || colon[1 + digits] != '\0' || digits > 5 || atoi(colon + 1) > 65535)
		return err_set("'%s': port must be 0 to 65535", spec);
	if (copy_text(host, host_len, host_start, (size_t)(host_end - host_start), "address", spec) < 0 ||
	    copy_text(port, port_len, colon + 1, digits, "port", spec) < 0)
		return -1;
	return 0;
}

const char *net_hostport_format(char *buf, size_t len, const char *host, const char *port)
{
	snprintf(buf, len, strchr(host, ':') ? "[%s]:%s" : "%s:%s", host, port);
	return buf;
}

/* Port of an AF_INET or AF_INET6 address, in host order. */
static unsigned sockaddr_port(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)(const void *)sa)->sin6_port);
	return ntohs(((const struct sockaddr_in *)(const void *)sa)->sin_port);
}

int net_sockaddr_addr(const struct sockaddr *sa, char *addr, size_t len)
{
	char text[INET6_ADDRSTRLEN + IF_NAMESIZE + 1], scope[IF_NAMESIZE];

	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *sin = (const void *)sa;

		inet_ntop(AF_INET, &sin->sin_addr, text, sizeof(text));
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const void *)sa;

		if (IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr)) {
			inet_ntop(AF_INET, &sin6->sin6_addr.s6_addr[12], text, sizeof(text));
		} else {
			inet_ntop(AF_INET6, &sin6->sin6_addr, text, sizeof(text));
			/* a link-local address is only usable with its interface */
			if (sin6->sin6_scope_id && if_indextoname(sin6->sin6_scope_id, scope))
				snprintf(text + strlen(text), sizeof(text) - strlen(text), "%%%s", scope);
		}
	} else {
		return err_set("address family %d is neither IPv4 nor IPv6", sa->sa_family);
	}
	if (strlen(text) >= len)
		return err_set("address '%s' too long for its buffer", text);
	strcpy(addr, text);
	return 0;
}

int net_sockaddr_format(const struct sockaddr *sa, char *buf, size_t len)
{
	char addr[INET6_ADDRSTRLEN + IF_NAMESIZE + 1], port[8];

	if (net_sockaddr_addr(sa, addr, sizeof(addr)) < 0)
		return -1;
	snprintf(port, sizeof(port), "%u", sockaddr_port(sa));
	net_hostport_format(buf, len, addr, port);
	return 0;
}

int net_sockaddr_parse(const char *addr, unsigned port, struct sockaddr_storage *ss, socklen_t *sslen)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	char text[INET6_ADDRSTRLEN + IF_NAMESIZE + 1];
	char *pct;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)port);
		*sslen = sizeof(*sin);
		return 0;
	}
	if (strlen(addr) >= sizeof(text))
		return err_set("'%s' is not an IPv4 or IPv6 address", addr);
	strcpy(text, addr);
	pct = strchr(text, '%');
	if (pct)
		*pct = '\0';
	if (inet_pton(AF_INET6, text, &sin6->sin6_addr) != 1)
		return err_set("'%s' is not an IPv4 or IPv6 address", addr);
	if (pct) {
		sin6->sin6_scope_id = if_nametoindex(pct + 1);
		if (!sin6->sin6_scope_id)
			return err_set("'%s': no interface '%s' on this host", addr, pct + 1);
	}
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons((uint16_t)port);
	*sslen = sizeof(*sin6);
	return 0;
}
