#ifndef XFERCMP_NETADDR_H
#define XFERCMP_NETADDR_H

/*
 * Addresses as text, for both families, in one place: the agent's --listen
 * and its "listening" line, the client's --agent and every message or
 * report that names where a connection went. The convention is the URL one
 * (RFC 3986; ssh, scp and rsync use it too): an IPv6 address with a port is
 * written in brackets, "[2001:2::2]:42277"; IPv4 and names are "ADDR:PORT".
 * Hosts are always held without brackets: that is what getaddrinfo and
 * inet_pton take.
 */

#include <stddef.h>
#include <sys/socket.h>

/* Room for any numeric address with its scope, brackets and port: "[v6%scope]:65535". */
#define NET_ADDR_TEXT_MAX 80

/*
 * Splits "HOST:PORT" into host (without brackets) and port (the digits).
 * HOST is "[v6addr]", an IPv4 address, a name, "*" or empty. A bare IPv6
 * address ("2001:2::2:80" is ambiguous) is refused, so is a port that is not
 * 0 to 65535. Returns 0, or -1 with the error set to what is wrong with spec
 * (for the caller to prefix with its option's name).
 */
int net_hostport_split(const char *spec, char *host, size_t host_len, char *port, size_t port_len);

/* "HOST:PORT", with HOST in brackets when it holds a ':' (IPv6). Returns buf. */
const char *net_hostport_format(char *buf, size_t len, const char *host, const char *port);

/*
 * The numeric address of sa (AF_INET or AF_INET6) in addr, without brackets
 * or port; an IPv4-mapped IPv6 address (::ffff:198.18.0.2, what a dual-stack
 * socket reports for an IPv4 peer) as the IPv4 address it is. Returns 0, or
 * -1 (error set) for another family.
 */
int net_sockaddr_addr(const struct sockaddr *sa, char *addr, size_t len);

/* "ADDR:PORT" of sa as net_hostport_format writes it. Returns 0 or -1 (error set). */
int net_sockaddr_format(const struct sockaddr *sa, char *buf, size_t len);

/*
 * Parses a numeric address ("198.18.0.2", "2001:2::2", "fe80::1%eth0"; no
 * brackets) with port into *ss and *sslen. Names are not resolved: the
 * static agent has no NSS. Returns 0, or -1 (error set) when addr is not
 * numeric.
 */
int net_sockaddr_parse(const char *addr, unsigned port, struct sockaddr_storage *ss, socklen_t *sslen);

#endif
