/* Unit tests for common/netaddr.c: [v6]:port parsing and bracketed printing. */
#include "testutil.h"

#include "err.h"
#include "netaddr.h"

#include <arpa/inet.h>
#include <netinet/in.h>

static void expect_split(const char *spec, const char *host, const char *port)
{
	char got_host[64], got_port[8];

	if (net_hostport_split(spec, got_host, sizeof(got_host), got_port, sizeof(got_port)) < 0)
		fail_msg("'%s': %s", spec, err_msg());
	assert_string_equal(got_host, host);
	assert_string_equal(got_port, port);
}

static void expect_refused(const char *spec, const char *why)
{
	char host[64], port[8];

	assert_int_equal(net_hostport_split(spec, host, sizeof(host), port, sizeof(port)), -1);
	assert_contains(err_msg(), why);
}

static void test_split_good(void **state)
{
	(void)state;
	expect_split("198.18.0.2:5210", "198.18.0.2", "5210");
	expect_split("[2001:2::2]:42277", "2001:2::2", "42277");
	expect_split("[::]:0", "::", "0");
	expect_split("[fe80::1%xfercmp1]:22", "fe80::1%xfercmp1", "22");
	expect_split("testbed:65535", "testbed", "65535");
	expect_split(":5210", "", "5210");
	expect_split("*:0", "*", "0");
}

static void test_split_refused(void **state)
{
	char host[4], port[8];

	(void)state;
	/* ambiguous: is 42277 the port or the last group of the address? */
	expect_refused("2001:2::2:42277", "an IPv6 address takes brackets: [ADDR]:PORT");
	expect_refused("[2001:2::2]", "no :PORT after ']'");
	expect_refused("[2001:2::2]42277", "no :PORT after ']'");
	expect_refused("[2001:2::2:42277", "'[' without ']'");
	expect_refused("[]:80", "empty address in brackets");
	expect_refused("198.18.0.2", "no port");
	expect_refused("198.18.0.2:", "port must be 0 to 65535");
	expect_refused("198.18.0.2:65536", "port must be 0 to 65535");
	expect_refused("198.18.0.2:123456", "port must be 0 to 65535");
	expect_refused("198.18.0.2:80x", "port must be 0 to 65535");
	expect_refused("[2001:2::2]:http", "port must be 0 to 65535");
	/* too long for the caller's buffer: refused, not cut */
	assert_int_equal(net_hostport_split("[2001:2::2]:1", host, sizeof(host), port, sizeof(port)), -1);
	assert_contains(err_msg(), "address longer than 3 bytes");
}

static void test_format(void **state)
{
	char buf[NET_ADDR_TEXT_MAX];

	(void)state;
	assert_string_equal(net_hostport_format(buf, sizeof(buf), "2001:2::2", "42277"), "[2001:2::2]:42277");
	assert_string_equal(net_hostport_format(buf, sizeof(buf), "198.18.0.2", "22"), "198.18.0.2:22");
	assert_string_equal(net_hostport_format(buf, sizeof(buf), "testbed6", "22"), "testbed6:22");
}

/* What the agent prints and the client parses is the same text both ways. */
static void test_sockaddr_round_trip(void **state)
{
	static const struct {
		const char *addr;
		unsigned port;
		const char *text;
	} cases[] = {
		{ "198.18.0.2", 5210, "198.18.0.2:5210" },
		{ "2001:2::2", 42277, "[2001:2::2]:42277" },
		{ "::", 0, "[::]:0" },
		{ "::1", 1, "[::1]:1" },
	};
	struct sockaddr_storage ss;
	socklen_t len;
	char buf[NET_ADDR_TEXT_MAX], host[64], port[8];

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		assert_int_equal(net_sockaddr_parse(cases[i].addr, cases[i].port, &ss, &len), 0);
		assert_int_equal(net_sockaddr_format((struct sockaddr *)&ss, buf, sizeof(buf)), 0);
		assert_string_equal(buf, cases[i].text);
		assert_int_equal(net_hostport_split(buf, host, sizeof(host), port, sizeof(port)), 0);
		assert_string_equal(host, cases[i].addr);
	}
	assert_int_equal(net_sockaddr_parse("2001:2::2", 1, &ss, &len), 0);
	assert_int_equal(ss.ss_family, AF_INET6);
	assert_int_equal(len, sizeof(struct sockaddr_in6));
	assert_int_equal(net_sockaddr_parse("testbed", 1, &ss, &len), -1);
	assert_contains(err_msg(), "'testbed' is not an IPv4 or IPv6 address");
	assert_int_equal(net_sockaddr_parse("fe80::1%no-such-if0", 1, &ss, &len), -1);
	assert_contains(err_msg(), "no interface 'no-such-if0'");
}

/* A dual-stack socket reports an IPv4 peer as ::ffff:a.b.c.d: printed as the IPv4 address. */
static void test_v4_mapped_prints_as_v4(void **state)
{
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6, .sin6_port = htons(22) };
	struct sockaddr_in sin = { .sin_family = AF_INET };
	char addr[NET_ADDR_TEXT_MAX], buf[NET_ADDR_TEXT_MAX];

	(void)state;
	assert_int_equal(inet_pton(AF_INET6, "::ffff:198.18.0.2", &sin6.sin6_addr), 1);
	assert_int_equal(net_sockaddr_addr((struct sockaddr *)&sin6, addr, sizeof(addr)), 0);
	assert_string_equal(addr, "198.18.0.2");
	assert_int_equal(net_sockaddr_format((struct sockaddr *)&sin6, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "198.18.0.2:22");
	sin.sin_family = AF_UNIX;
	assert_int_equal(net_sockaddr_addr((struct sockaddr *)&sin, addr, sizeof(addr)), -1);
	assert_contains(err_msg(), "neither IPv4 nor IPv6");
	/* a buffer too small for the address is refused, not cut */
	sin6.sin6_family = AF_INET6;
	assert_int_equal(inet_pton(AF_INET6, "2001:2::2", &sin6.sin6_addr), 1);
	assert_int_equal(net_sockaddr_addr((struct sockaddr *)&sin6, addr, 5), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_good),
		cmocka_unit_test(test_split_refused),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_sockaddr_round_trip),
		cmocka_unit_test(test_v4_mapped_prints_as_v4),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
