/*
 * Parsers for /proc text and the readers around them. The parsers never
 * allocate and never read files; the readers open, pread and close.
 */
#define _GNU_SOURCE
#include "sample/procstat.h"

#include "err.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* Bounds the read loop: no /proc file we read is anywhere near this. */
#define PROC_FILE_MAX (64u << 20)

#define ROUTE_FLAG_UP 0x0001u

/* ---- tokens ---- */

static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* Reads a decimal number after blanks, never crossing a newline. Returns 0 or -1. */
static int next_u64(const char **pp, uint64_t *v)
{
	const char *p = skip_blanks(*pp);
	uint64_t x = 0;

	if (*p < '0' || *p > '9')
		return -1;
	while (*p >= '0' && *p <= '9') {
		unsigned digit = (unsigned)(*p - '0');

		if (x > (UINT64_MAX - digit) / 10)
			return -1;
		x = x * 10 + digit;
		p++;
	}
	*v = x;
	*pp = p;
	return 0;
}

/* Reads a hexadecimal 32-bit number after blanks (as /proc/net/route prints them). */
static int next_hex32(const char **pp, uint32_t *v)
{
	const char *p = skip_blanks(*pp);
	uint32_t x = 0;
	int digits = 0;

	for (;; p++, digits++) {
		unsigned d;

		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (*p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a' + 10);
		else if (*p >= 'A' && *p <= 'F')
			d = (unsigned)(*p - 'A' + 10);
		else
			break;
		if (digits == 8)
			return -1;
		x = x << 4 | d;
	}
	if (digits == 0)
		return -1;
	*v = x;
	*pp = p;
	return 0;
}

/* Skips blanks then one blank-delimited word; returns its start and sets *n. */
static const char *next_word(const char **pp, size_t *n)
{
	const char *p = skip_blanks(*pp), *start = p;

	while (*p && *p != ' ' && *p != '\t' && *p != '\n')
		p++;
	*n = (size_t)(p - start);
	*pp = p;
	return start;
}

static const char *next_line(const char *p)
{
	const char *nl = strchr(p, '\n');

	return nl ? nl + 1 : p + strlen(p);
}

static int word_is(const char *w, size_t n, const char *name)
{
	return n == strlen(name) && memcmp(w, name, n) == 0;
}

static int copy_name(char *dst, size_t len, const char *src, size_t n)
{
	if (n >= len)
		return err_set("name '%.*s' is too long (at most %zu characters)", (int)n, src,
			       len ? len - 1 : 0);
	memcpy(dst, src, n);
	dst[n] = '\0';
	return 0;
}

/* ---- parsers ---- */

uint64_t cpu_times_total(const struct cpu_times *t)
{
	return t->user + t->nice + t->system + t->idle + t->iowait + t->irq + t->softirq +
	       t->steal;
}

int procstat_parse_cpu(const char *text, struct cpu_times *out)
{
	const char *p = text;
	uint64_t v[8];

	if (strncmp(p, "cpu", 3) != 0 || (p[3] != ' ' && p[3] != '\t'))
		return err_set("malformed /proc/stat: the first line is not the 'cpu' total");
	p += 3;
	for (size_t i = 0; i < 8; i++)
		if (next_u64(&p, &v[i]) < 0)
			return err_set("malformed /proc/stat: the 'cpu' line has fewer than 8 numbers");
	out->user = v[0];
	out->nice = v[1];
	out->system = v[2];
	out->idle = v[3];
	out->iowait = v[4];
	out->irq = v[5];
	out->softirq = v[6];
	out->steal = v[7];
	return 0;
}

int procstat_parse_pid_cpu(const char *text, uint64_t *ticks)
{
	const char *p = strrchr(text, ')');
	uint64_t utime, stime;
	size_t n;

	if (!p)
		return err_set("malformed /proc/PID/stat: no ')' after the command name");
	p++;
	/* fields 3 (state) to 13 come first; utime is field 14 */
	for (int field = 3; field <= 13; field++) {
		next_word(&p, &n);
		if (n == 0)
			return err_set("malformed /proc/PID/stat: only %d fields", field - 1);
	}
	if (next_u64(&p, &utime) < 0 || next_u64(&p, &stime) < 0)
		return err_set("malformed /proc/PID/stat: no utime and stime");
	*ticks = utime + stime;
	return 0;
}

/* A field that may be negative (priority, nice): read as 0 when it is. */
static int next_i64_or_u64(const char **pp, uint64_t *v)
{
	const char *p = skip_blanks(*pp);

	if (*p == '-') {
		p++;
		if (next_u64(&p, v) < 0)
			return -1;
		*v = 0;
		*pp = p;
		return 0;
	}
	return next_u64(pp, v);
}

int procstat_parse_pid_stat(const char *text, struct pid_stat *out)
{
	const char *open = strchr(text, '('), *p = strrchr(text, ')');
	uint64_t v;
	size_t n;

	memset(out, 0, sizeof(*out));
	if (!open || !p || p < open)
		return err_set("malformed /proc/PID/stat: no command name in parentheses");
	n = (size_t)(p - open - 1);
	if (n >= sizeof(out->comm))
		n = sizeof(out->comm) - 1;
	memcpy(out->comm, open + 1, n);
	out->comm[n] = '\0';
	p++;
	/* field 3 is the state, 4 the parent, 14 and 15 utime and stime, 20 threads, 22 starttime */
	for (int field = 3; field <= 22; field++) {
		if (field == 3) {
			next_word(&p, &n);
			if (n == 0)
				return err_set("malformed /proc/PID/stat: only %d fields", field - 1);
			continue;
		}
		if (next_i64_or_u64(&p, &v) < 0)
			return err_set("malformed /proc/PID/stat: field %d is not a number", field);
		if (field == 4)
			out->ppid = (long)v;
		else if (field == 14 || field == 15)
			out->ticks += v;
		else if (field == 20)
			out->threads = (unsigned)v;
		else if (field == 22)
			out->start_ticks = v;
	}
	return 0;
}

/* Parses major, minor and name at the start of a diskstats line. */
static int disk_line_head(const char **p, uint64_t *major, uint64_t *minor, const char **name,
			  size_t *n)
{
	if (next_u64(p, major) < 0 || next_u64(p, minor) < 0)
		return -1;
	*name = next_word(p, n);
	return *n ? 0 : -1;
}

int procstat_parse_disk(const char *text, const char *dev, struct disk_counters *out)
{
	for (const char *line = text; *line; line = next_line(line)) {
		const char *p = line, *name;
		uint64_t major, minor, f[11];
		size_t n;

		if (*skip_blanks(p) == '\n')
			continue;
		if (disk_line_head(&p, &major, &minor, &name, &n) < 0)
			return err_set("malformed /proc/diskstats line '%.*s'",
				       (int)strcspn(line, "\n"), line);
		if (!word_is(name, n, dev))
			continue;
		for (size_t i = 0; i < 11; i++)
			if (next_u64(&p, &f[i]) < 0)
				return err_set("malformed /proc/diskstats line for '%s'", dev);
		out->reads_completed = f[0];
		out->sectors_read = f[2];
		out->writes_completed = f[4];
		out->sectors_written = f[6];
		out->io_ticks_ms = f[9];
		out->weighted_ms = f[10];
		return 0;
	}
	return 1;
}

int procstat_parse_disk_name(const char *text, unsigned major, unsigned minor, char *dev,
			     size_t len)
{
	for (const char *line = text; *line; line = next_line(line)) {
		const char *p = line, *name;
		uint64_t maj, min;
		size_t n;

		if (*skip_blanks(p) == '\n')
			continue;
		if (disk_line_head(&p, &maj, &min, &name, &n) < 0)
			return err_set("malformed /proc/diskstats line '%.*s'",
				       (int)strcspn(line, "\n"), line);
		if (maj == major && min == minor)
			return copy_name(dev, len, name, n);
	}
	return 1;
}

int procstat_parse_net(const char *text, const char *iface, struct net_counters *out)
{
	for (const char *line = text; *line; line = next_line(line)) {
		const char *colon = strchr(line, ':'), *nl = strchr(line, '\n');
		const char *name = skip_blanks(line), *p;
		uint64_t f[10];

		/* the two header lines have no ':' */
		if (!colon || (nl && colon > nl))
			continue;
		if (!word_is(name, (size_t)(colon - name), iface))
			continue;
		p = colon + 1;
		for (size_t i = 0; i < 10; i++)
			if (next_u64(&p, &f[i]) < 0)
				return err_set("malformed /proc/net/dev line for '%s'", iface);
		out->rx_bytes = f[0];
		out->rx_packets = f[1];
		out->tx_bytes = f[8];
		out->tx_packets = f[9];
		return 0;
	}
	return 1;
}

/* One /proc/net/route line: Iface Destination Gateway Flags RefCnt Use Metric Mask ... */
struct route_line {
	const char *name;
	size_t name_n;
	uint32_t dst, flags, mask;
	uint64_t metric;
};

static int parse_route_line(const char *p, struct route_line *r)
{
	uint32_t gateway;
	uint64_t refcnt, use;

	r->name = next_word(&p, &r->name_n);
	if (r->name_n == 0 || next_hex32(&p, &r->dst) < 0 || next_hex32(&p, &gateway) < 0 ||
	    next_hex32(&p, &r->flags) < 0 || next_u64(&p, &refcnt) < 0 ||
	    next_u64(&p, &use) < 0 || next_u64(&p, &r->metric) < 0 ||
	    next_hex32(&p, &r->mask) < 0)
		return -1;
	return 0;
}

int procstat_parse_route(const char *text, const char *ipv4, char *iface, size_t len)
{
	struct in_addr addr;
	struct route_line best = { 0 };
	unsigned best_prefix = 0;

	if (inet_pton(AF_INET, ipv4, &addr) != 1)
		return err_set("invalid IPv4 address '%s'", ipv4);
	/* the first line is the header */
	for (const char *line = next_line(text); *line; line = next_line(line)) {
		struct route_line r;
		unsigned prefix;

		if (*skip_blanks(line) == '\n')
			continue;
		if (parse_route_line(line, &r) < 0)
			return err_set("malformed /proc/net/route line '%.*s'",
				       (int)strcspn(line, "\n"), line);
		/*
		 * The file prints each address as the in-memory network-order
		 * word, so it compares with s_addr as it is, on any byte order.
		 */
		if (!(r.flags & ROUTE_FLAG_UP) || (addr.s_addr & r.mask) != r.dst)
			continue;
		prefix = (unsigned)__builtin_popcount(r.mask);
		if (!best.name || prefix > best_prefix ||
		    (prefix == best_prefix && r.metric < best.metric)) {
			best = r;
			best_prefix = prefix;
		}
	}
	if (!best.name)
		return 1;
	return copy_name(iface, len, best.name, best.name_n);
}

/* ---- readers ---- */

long procstat_pread_all(int fd, const char *what, char **buf, size_t *cap)
{
	size_t len = 0;

	for (;;) {
		ssize_t n;

		if (*cap - len < 2 || !*buf) {
			size_t want = *cap ? *cap * 2 : 4096;
			char *grown;

			if (want > PROC_FILE_MAX)
				return err_set("cannot read '%s': larger than %u bytes", what,
					       PROC_FILE_MAX);
			grown = realloc(*buf, want);
			if (!grown)
				return err_set("cannot read '%s': out of memory", what);
			*buf = grown;
			*cap = want;
		}
		n = pread(fd, *buf + len, *cap - len - 1, (off_t)len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return err_errno("cannot read '%s'", what);
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	(*buf)[len] = '\0';
	return (long)len;
}

/* Reads a whole file into a new buffer the caller frees. Returns 0 or -1. */
static int read_text(const char *path, char **text)
{
	size_t cap = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	long n;

	*text = NULL;
	if (fd < 0)
		return err_errno("cannot open '%s'", path);
	n = procstat_pread_all(fd, path, text, &cap);
	close(fd);
	if (n < 0) {
		free(*text);
		*text = NULL;
		return -1;
	}
	return 0;
}

int procstat_read_cpu(struct cpu_times *out)
{
	char *text;
	int rc;

	if (read_text("/proc/stat", &text) < 0)
		return -1;
	rc = procstat_parse_cpu(text, out);
	free(text);
	return rc;
}

int procstat_read_pid_cpu(pid_t pid, uint64_t *ticks)
{
	char path[64], *text;
	int rc;

	if (pid == 0)
		snprintf(path, sizeof(path), "/proc/self/stat");
	else
		snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if (read_text(path, &text) < 0)
		return -1;
	rc = procstat_parse_pid_cpu(text, ticks);
	free(text);
	return rc;
}

int procstat_read_disk(const char *dev, struct disk_counters *out)
{
	char *text;
	int rc;

	if (read_text("/proc/diskstats", &text) < 0)
		return -1;
	rc = procstat_parse_disk(text, dev, out);
	free(text);
	return rc;
}

int procstat_read_net(const char *iface, struct net_counters *out)
{
	char *text;
	int rc;

	if (read_text("/proc/net/dev", &text) < 0)
		return -1;
	rc = procstat_parse_net(text, iface, out);
	free(text);
	return rc;
}

long procstat_clock_ticks(void)
{
	long hz = sysconf(_SC_CLK_TCK);

	return hz > 0 ? hz : 100;
}

/*
 * For an anonymous st_dev (major 0), the mount with that device number in
 * /proc/self/mountinfo names its source; when the source is a block device
 * (btrfs on /dev/sda2) its st_rdev is the device to look for. Returns 0
 * (*devno set), 1 (no block device behind it) or -1.
 */
static int mount_source_devno(dev_t anon, dev_t *devno)
{
	char *text, want[48];
	int rc = 1;

	if (read_text("/proc/self/mountinfo", &text) < 0)
		return -1;
	snprintf(want, sizeof(want), "%u:%u", major(anon), minor(anon));
	for (const char *line = text; *line; line = next_line(line)) {
		const char *p = line, *w, *sep;
		size_t n, line_n = strcspn(line, "\n");
		char source[4096];
		struct stat st;

		next_word(&p, &n);	/* mount id */
		next_word(&p, &n);	/* parent id */
		w = next_word(&p, &n);	/* major:minor */
		if (!word_is(w, n, want))
			continue;
		/* optional fields end at " - ", then file system type and source */
		sep = strstr(p, " - ");
		if (!sep || (size_t)(sep - line) > line_n)
			break;
		p = sep + 3;
		next_word(&p, &n);
		w = next_word(&p, &n);
		if (n == 0 || n >= sizeof(source) || w[0] != '/')
			break;
		memcpy(source, w, n);
		source[n] = '\0';
		if (stat(source, &st) == 0 && S_ISBLK(st.st_mode)) {
			*devno = st.st_rdev;
			rc = 0;
		}
		break;
	}
	free(text);
	return rc;
}

void procstat_boot_id(char *out, size_t len)
{
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, out, len - 1) : -1;

	if (fd >= 0)
		close(fd);
	out[n > 0 ? n : 0] = '\0';
	if (n > 0 && out[n - 1] == '\n')
		out[n - 1] = '\0';
}

int procstat_device_for_path(const char *path, char *dev, size_t len)
{
	struct stat st;
	dev_t devno;
	char *text;
	int rc;

	if (stat(path, &st) < 0)
		return err_errno("cannot stat '%s'", path);
	devno = st.st_dev;
	if (major(devno) == 0) {
		rc = mount_source_devno(devno, &devno);
		if (rc != 0)
			return rc;
	}
	if (read_text("/proc/diskstats", &text) < 0)
		return -1;
	rc = procstat_parse_disk_name(text, major(devno), minor(devno), dev, len);
	free(text);
	if (rc < 0)
		return err_wrap("cannot find the device of '%s'", path);
	return rc;
}

/*
 * The interface holding addr (family AF_INET or AF_INET6, the address in
 * bytes), or the loopback interface for any 127.x address and ::1. Returns
 * 0 (iface set), 1 (not a local address) or -1.
 */
static int local_iface(const char *text, int family, const void *addr, char *iface, size_t len)
{
	struct ifaddrs *list;
	const char *name = NULL, *loopback = "lo";
	int rc;

	if (getifaddrs(&list) < 0)
		return err_errno("cannot list network interfaces for '%s'", text);
	for (const struct ifaddrs *ifa = list; ifa && !name; ifa = ifa->ifa_next) {
		const struct sockaddr *sa = ifa->ifa_addr;

		if (!sa || sa->sa_family != family)
			continue;
		if (ifa->ifa_flags & IFF_LOOPBACK)
			loopback = ifa->ifa_name;
		if (family == AF_INET &&
		    ((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr ==
			    ((const struct in_addr *)addr)->s_addr)
			name = ifa->ifa_name;
		if (family == AF_INET6 &&
		    !memcmp(&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, addr,
			    sizeof(struct in6_addr)))
			name = ifa->ifa_name;
	}
	if (!name && family == AF_INET && (ntohl(((const struct in_addr *)addr)->s_addr) >> 24) == 127)
		name = loopback;
	if (!name && family == AF_INET6 && IN6_IS_ADDR_LOOPBACK((const struct in6_addr *)addr))
		name = loopback;
	/*
	 * An address with a label (ip addr ... label eth0:1, an ifconfig-style
	 * alias) is listed under the label; /proc/net/dev counts it under eth0.
	 */
	rc = name ? copy_name(iface, len, name, strcspn(name, ":")) : 1;
	freeifaddrs(list);
	return rc;
}

/* addr's interface from a route table file with the given parser. */
static int route_iface(const char *path, const char *addr, char *iface, size_t len,
		       int (*parse)(const char *, const char *, char *, size_t))
{
	char *text;
	int rc;

	if (read_text(path, &text) < 0)
		return -1;
	rc = parse(text, addr, iface, len);
	free(text);
	return rc;
}

int procstat_iface_for_addr(const char *addr, char *iface, size_t len)
{
	struct in_addr a4;
	struct in6_addr a6;
	char v6[INET6_ADDRSTRLEN + IF_NAMESIZE + 1], v4[INET_ADDRSTRLEN];
	int rc;

	/* a link-local "fe80::1%eth0" names its interface already; the route lookup ignores the scope */
	snprintf(v6, sizeof(v6), "%s", addr);
	v6[strcspn(v6, "%")] = '\0';
	if (inet_pton(AF_INET6, v6, &a6) == 1 && IN6_IS_ADDR_V4MAPPED(&a6)) {
		inet_ntop(AF_INET, &a6.s6_addr[12], v4, sizeof(v4));
		return procstat_iface_for_addr(v4, iface, len);
	}
	if (inet_pton(AF_INET6, v6, &a6) == 1) {
		rc = local_iface(addr, AF_INET6, &a6, iface, len);
		if (rc != 1)
			return rc;
		return route_iface("/proc/net/ipv6_route", v6, iface, len, procstat_parse_route6);
	}
	if (inet_pton(AF_INET, addr, &a4) != 1)
		return err_set("invalid IPv4 or IPv6 address '%s'", addr);
	rc = local_iface(addr, AF_INET, &a4, iface, len);
	if (rc != 1)
		return rc;
	return route_iface("/proc/net/route", addr, iface, len, procstat_parse_route);
}
