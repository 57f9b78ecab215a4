#ifndef XFERCMP_PROCSTAT_H
#define XFERCMP_PROCSTAT_H

/*
 * Counters from /proc: machine CPU time (/proc/stat), one process's CPU time
 * (/proc/PID/stat), one block device (/proc/diskstats) and one network
 * interface (/proc/net/dev); and which device or interface a path or an
 * address uses.
 *
 * The procstat_parse_* functions work on text already read (so tests feed them
 * fixtures); the procstat_read_* functions read the live files. Every counter
 * is cumulative since boot: callers take differences. Parsers return 0 when
 * they filled *out, 1 when the named device or interface is not in the text
 * (nothing set, no error) and -1 (error set) when the text is malformed.
 */

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Size for the names below: the kernel's DISK_NAME_LEN is 32, IFNAMSIZ 16. */
#define PROCSTAT_NAME_MAX 32

/* The first line of /proc/stat, in clock ticks (USER_HZ, see procstat_clock_ticks). */
struct cpu_times {
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
};

/* One /proc/diskstats line. Sectors are 512 bytes whatever the device's block size. */
struct disk_counters {
	uint64_t reads_completed;
	uint64_t sectors_read;
	uint64_t writes_completed;
	uint64_t sectors_written;
	uint64_t io_ticks_ms;	/* field 13 of the line: time with at least one I/O in flight */
	uint64_t weighted_ms;	/* field 14: time in flight summed over all I/Os */
};

/* One /proc/net/dev line. */
struct net_counters {
	uint64_t rx_bytes, rx_packets, tx_bytes, tx_packets;
};

#define PROCSTAT_SECTOR 512u

/* Sum of all eight fields: all CPU time of the machine (guest time is inside user). */
uint64_t cpu_times_total(const struct cpu_times *t);

/* Parses the "cpu " line (the first) of /proc/stat text. Returns 0 or -1. */
int procstat_parse_cpu(const char *text, struct cpu_times *out);

/*
 * Parses /proc/PID/stat text: utime + stime (fields 14 and 15) in clock ticks.
 * The command name may hold spaces and parentheses, so fields are counted
 * from the last ')'. Returns 0 or -1.
 */
int procstat_parse_pid_cpu(const char *text, uint64_t *ticks);

/* What the process watcher reads of /proc/PID/stat. */
struct pid_stat {
	char comm[16];		/* the command name, at most 15 bytes (TASK_COMM_LEN) */
	long ppid;
	uint64_t ticks;		/* utime + stime */
	unsigned threads;
	uint64_t start_ticks;	/* since boot: tells a reused pid from the one seen before */
};

/* Parses /proc/PID/stat text into out. Returns 0 or -1. */
int procstat_parse_pid_stat(const char *text, struct pid_stat *out);

/* Finds dev ("vda", "nvme0n1p2") in /proc/diskstats text. Returns 0, 1 (absent) or -1. */
int procstat_parse_disk(const char *text, const char *dev, struct disk_counters *out);

/*
 * Finds the name of the device major:minor in /proc/diskstats text and copies
 * it into dev. Returns 0, 1 (absent) or -1 (malformed text, or name too long).
 */
int procstat_parse_disk_name(const char *text, unsigned major, unsigned minor, char *dev,
			     size_t len);

/* Finds iface ("lo", "eth0") in /proc/net/dev text. Returns 0, 1 (absent) or -1. */
int procstat_parse_net(const char *text, const char *iface, struct net_counters *out);

/*
 * Picks the interface for ipv4 (dotted quad) from /proc/net/route text by
 * longest-prefix match over routes that are up. Returns 0, 1 (no route) or
 * -1 (bad address or malformed text). Policy routing is not looked at.
 */
int procstat_parse_route(const char *text, const char *ipv4, char *iface, size_t len);

/*
 * The same for ipv6 (text form, no brackets) over /proc/net/ipv6_route text
 * (procstat_route6.c): longest prefix, then lowest metric, over routes that
 * are up and not reject routes (unreachable, prohibit). Returns 0, 1 (no
 * route) or -1 (bad address or malformed text).
 */
int procstat_parse_route6(const char *text, const char *ipv6, char *iface, size_t len);

/*
 * Reads all of fd from offset 0 with pread into *buf (grown with realloc as
 * needed; the caller owns it and frees it) and NUL-terminates it. Reading
 * from offset 0 every time lets a sampler keep /proc files open instead of
 * reopening them each tick. Returns the length or -1 (error set naming what).
 */
long procstat_pread_all(int fd, const char *what, char **buf, size_t *cap);

/* The live readers: open, read, parse, close. Same returns as the parsers. */
int procstat_read_cpu(struct cpu_times *out);
int procstat_read_pid_cpu(pid_t pid, uint64_t *ticks);	/* pid 0 = this process */
int procstat_read_disk(const char *dev, struct disk_counters *out);
int procstat_read_net(const char *iface, struct net_counters *out);

/* Clock ticks per second of the CPU counters above (USER_HZ, normally 100). */
long procstat_clock_ticks(void);

/* This boot's id (/proc/sys/kernel/random/boot_id): two processes on one machine read the same; "" if unreadable. */
void procstat_boot_id(char *out, size_t len);

/*
 * The block device behind path, named as in /proc/diskstats: "vda" when the
 * file system is on the whole disk, "vda1" when on a partition, "dm-0" for
 * device-mapper. Found from stat(path).st_dev; when that is an anonymous
 * device (major 0: btrfs, overlay, tmpfs), from the mount's source in
 * /proc/self/mountinfo if that is a block device. Returns 0 (dev set), 1 when
 * there is no block device (tmpfs, overlay, NFS: not an error) or -1 (error
 * set, e.g. path missing).
 */
int procstat_device_for_path(const char *path, char *dev, size_t len);

/*
 * The interface that carries traffic for addr, IPv4 (dotted quad) or IPv6
 * (no brackets; an IPv4-mapped one counts as IPv4): for an address of this
 * host, the interface holding it (what a connection on that address uses
 * with a remote peer; 127.0.0.1 and ::1 give "lo"); for a peer, the
 * interface of the longest-prefix route in /proc/net/route or
 * /proc/net/ipv6_route; any 127.x address gives "lo". Returns 0 (iface set),
 * 1 (no interface or route reaches it) or -1 (error set: bad address,
 * unreadable files).
 */
int procstat_iface_for_addr(const char *addr, char *iface, size_t len);

#endif
