/*
 * The IPv6 twin of procstat_parse_route: /proc/net/ipv6_route, which the
 * kernel prints one route a line with no header:
 *
 *   DEST(32 hex) PLEN(2 hex) SRC(32 hex) SPLEN(2 hex) NEXTHOP(32 hex)
 *   METRIC REFCNT USE FLAGS(8 hex each) IFACE
 *
 * The addresses are the 16 bytes in network order, so they compare with an
 * in6_addr byte for byte. Every table is listed (main and local); the local
 * table's /128 routes are for this host's own addresses, which
 * procstat_iface_for_addr answers from getifaddrs before it gets here.
 */
#define _GNU_SOURCE
#include "sample/procstat.h"

#include "err.h"

#include <arpa/inet.h>
#include <stdbool.h>
#include <string.h>

#define ROUTE6_FLAG_UP 0x0001u
/* "unreachable" and "prohibit" routes (the kernel's default ::/0 on lo is one): no interface carries them */
#define ROUTE6_FLAG_REJECT 0x0200u

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Reads exactly 2*n hex digits after blanks into out[n] (big-endian). Returns 0 or -1. */
static int hex_bytes(const char **pp, unsigned char *out, size_t n)
{
	const char *p = *pp;

	while (*p == ' ' || *p == '\t')
		p++;
	for (size_t i = 0; i < n; i++) {
		int hi = hex_digit(p[2 * i]), lo = hi < 0 ? -1 : hex_digit(p[2 * i + 1]);

		if (lo < 0)
			return -1;
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	p += 2 * n;
	if (*p != ' ' && *p != '\t')
		return -1;
	*pp = p;
	return 0;
}

static int hex_u32(const char **pp, uint32_t *v)
{
	unsigned char b[4];

	if (hex_bytes(pp, b, sizeof(b)) < 0)
		return -1;
	*v = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
	return 0;
}

struct route6_line {
	unsigned char dst[16], src[16], next_hop[16];
	unsigned char prefix, src_prefix;
	uint32_t metric, flags;
	const char *name;
	size_t name_n;
};

static int parse_route6_line(const char *p, struct route6_line *r)
{
	uint32_t refcnt, use;

	if (hex_bytes(&p, r->dst, 16) < 0 || hex_bytes(&p, &r->prefix, 1) < 0 ||
	    hex_bytes(&p, r->src, 16) < 0 || hex_bytes(&p, &r->src_prefix, 1) < 0 ||
	    hex_bytes(&p, r->next_hop, 16) < 0 || hex_u32(&p, &r->metric) < 0 ||
	    hex_u32(&p, &refcnt) < 0 || hex_u32(&p, &use) < 0 || hex_u32(&p, &r->flags) < 0)
		return -1;
	while (*p == ' ' || *p == '\t')
		p++;
	r->name = p;
	r->name_n = strcspn(p, " \t\n");
	return r->name_n == 0 || r->prefix > 128 ? -1 : 0;
}

/* True if the first prefix bits of a and b agree. */
static bool prefix_matches(const unsigned char *a, const unsigned char *b, unsigned prefix)
{
	unsigned whole = prefix / 8, rest = prefix % 8;

	if (memcmp(a, b, whole))
		return false;
	if (rest == 0)
		return true;
	return ((a[whole] ^ b[whole]) & (0xffu << (8 - rest)) & 0xffu) == 0;
}

int procstat_parse_route6(const char *text, const char *ipv6, char *iface, size_t len)
{
	struct in6_addr addr;
	struct route6_line best = { 0 };

	if (inet_pton(AF_INET6, ipv6, &addr) != 1)
		return err_set("invalid IPv6 address '%s'", ipv6);
	for (const char *line = text; *line;) {
		size_t n = strcspn(line, "\n");
		struct route6_line r;

		if (line[strspn(line, " \t")] != '\n' && line[strspn(line, " \t")] != '\0') {
			if (parse_route6_line(line, &r) < 0)
				return err_set("malformed /proc/net/ipv6_route line '%.*s'", (int)n, line);
			if ((r.flags & ROUTE6_FLAG_UP) && !(r.flags & ROUTE6_FLAG_REJECT) &&
			    prefix_matches(addr.s6_addr, r.dst, r.prefix) &&
			    (!best.name || r.prefix > best.prefix ||
			     (r.prefix == best.prefix && r.metric < best.metric)))
				best = r;
		}
		line += n;
		if (*line == '\n')
			line++;
	}
	if (!best.name)
		return 1;
	if (best.name_n >= len)
		return err_set("interface name '%.*s' too long", (int)best.name_n, best.name);
	memcpy(iface, best.name, best.name_n);
	iface[best.name_n] = '\0';
	return 0;
}
