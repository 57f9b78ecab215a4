/*
 * delayer: holds every packet of one NFQUEUE queue for a fixed time D, then
 * accepts it. scripts/testbed.sh runs it inside the testbed's namespace behind
 * an "OUTPUT -j NFQUEUE" rule, so everything the host sends back (replies and
 * ACKs) leaves D late and a round trip through the link grows by D. It stands
 * in for netem, which this kernel lacks (not installed, not part of xfercmp).
 *
 *   delayer --queue N --delay-us US [--pidfile PATH]
 *
 * The pid file is written once the queue is bound and configured, so a caller
 * that waits for it knows packets sent to the queue from then on are held, not
 * dropped. SIGTERM or SIGINT: every held packet is accepted at once, the pid
 * file removed, exit 0. Exit status 1 with a one-line error on stderr; 2 on a
 * usage error.
 *
 * One delay for all packets means release order is arrival order: a FIFO of
 * (packet id, due time) holds them, and the loop sleeps in ppoll until the
 * head is due or a packet arrives. Only metadata is copied to us (no payload),
 * and GSO packets come whole (NFQA_CFG_F_GSO), so a 64 KiB TSO segment costs
 * one message, not 45: that is what keeps the CPU small at full rate (seen:
 * iperf3 at 10-12 Gbit/s through 2 ms with the delayer at 21-27% of a core).
 */
#define _GNU_SOURCE /* ppoll */

#include "clock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <linux/netfilter.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <libnetfilter_queue/libnetfilter_queue.h>

/*
 * Packets held at once, in the kernel's queue and in ours (the same bound for
 * both, so ours never overflows while the kernel's does not). At 20 ms and the
 * 2.6 Gbit/s seen through this path, 6.6 MB are in flight: about 100 GSO
 * packets or 4,400 MTU-sized ones, plus ACKs; 65,536 leaves room for 50 ms of
 * small packets. Past it the kernel drops, as a full router queue would.
 */
#define HELD_MAX 65536u
/*
 * The netlink socket's receive buffer: messages wait here between our wakes.
 * One metadata-only message takes about 1 KiB of buffer (skb truesize), so
 * 16 MiB holds a burst of more than HELD_MAX of them.
 */
#define RCVBUF_BYTES (16 * 1024 * 1024)
/* Messages read per wake before due packets are released again. */
#define DRAIN_MAX 256
/* Longest delay accepted: 10 s (a typo such as 20000ms should fail loudly). */
#define DELAY_US_MAX 10000000L

struct held_packet {
	uint32_t id;
	clock_ns due;
};

/* FIFO of held packets: a ring of HELD_MAX slots. */
struct held_fifo {
	struct held_packet *slots;
	uint32_t head;
	uint32_t count;
};

struct delayer {
	struct nfq_handle *handle;
	struct nfq_q_handle *queue;
	struct held_fifo fifo;
	clock_ns delay_ns;
	/* packets dropped because our FIFO was full (should stay 0, see HELD_MAX) */
	unsigned long overflow_drops;
	/* recv() said ENOBUFS: the socket buffer overflowed, the kernel dropped some */
	unsigned long enobufs;
	/* the first verdict that failed, kept for the error message */
	int verdict_errno;
};

static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static int usage(void)
{
	fprintf(stderr, "usage: delayer --queue N --delay-us US [--pidfile PATH]\n");
	return 2;
}

/* Parses a decimal in [min, max] into *value; returns 0, or -1 if it is not one. */
static int parse_long(const char *text, long min, long max, long *value)
{
	char *end;
	long parsed;

	errno = 0;
	parsed = strtol(text, &end, 10);
	if (errno != 0 || end == text || *end != '\0' || parsed < min || parsed > max)
		return -1;
	*value = parsed;
	return 0;
}

/*
 * The callback nfq_handle_packet calls for each queued packet: appends it to
 * the FIFO, due D from now. Returns 0, or -1 when a verdict failed.
 */
static int on_packet(struct nfq_q_handle *queue, struct nfgenmsg *msg, struct nfq_data *data,
		     void *opaque)
{
	struct delayer *delayer = opaque;
	struct nfqnl_msg_packet_hdr *hdr;
	struct held_fifo *fifo = &delayer->fifo;
	uint32_t id;

	(void)msg;
	hdr = nfq_get_msg_packet_hdr(data);
	if (hdr == NULL)
		return 0;
	id = ntohl(hdr->packet_id);
	if (fifo->count == HELD_MAX) {
		delayer->overflow_drops++;
		if (nfq_set_verdict(queue, id, NF_DROP, 0, NULL) < 0) {
			delayer->verdict_errno = errno;
			return -1;
		}
		return 0;
	}
	fifo->slots[(fifo->head + fifo->count) % HELD_MAX] =
		(struct held_packet){ .id = id, .due = clock_now() + delayer->delay_ns };
	fifo->count++;
	return 0;
}

/*
 * Accepts every held packet due by NOW (all of them when NOW is UINT64_MAX).
 * The kernel numbers a queue's packets in arrival order and we hold them in
 * that order, so the due ones are a prefix: one batch verdict on the last id
 * accepts them all. Returns 0, or -1 with errno set.
 */
static int release_due(struct delayer *delayer, clock_ns now)
{
	struct held_fifo *fifo = &delayer->fifo;
	uint32_t due = 0, last_id = 0;
	int rc;

	while (due < fifo->count) {
		const struct held_packet *packet = &fifo->slots[(fifo->head + due) % HELD_MAX];

		if (packet->due > now)
			break;
		last_id = packet->id;
		due++;
	}
	if (due == 0)
		return 0;
	if (due == 1)
		rc = nfq_set_verdict(delayer->queue, last_id, NF_ACCEPT, 0, NULL);
	else
		rc = nfq_set_verdict_batch(delayer->queue, last_id, NF_ACCEPT);
	if (rc < 0)
		return -1;
	fifo->head = (fifo->head + due) % HELD_MAX;
	fifo->count -= due;
	return 0;
}

/*
 * Reads what the socket holds (at most DRAIN_MAX messages) and hands each to
 * on_packet. Returns 0, or -1 with a message on stderr.
 */
static int drain_socket(struct delayer *delayer, int fd, char *buf, size_t buf_size)
{
	int i;

	for (i = 0; i < DRAIN_MAX; i++) {
		ssize_t len = recv(fd, buf, buf_size, MSG_DONTWAIT);

		if (len < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
				return 0;
			if (errno == ENOBUFS) {
				delayer->enobufs++;
				continue;
			}
			fprintf(stderr, "delayer: cannot read the queue: %s\n", strerror(errno));
			return -1;
		}
		if (nfq_handle_packet(delayer->handle, buf, (int)len) < 0 && delayer->verdict_errno != 0) {
			fprintf(stderr, "delayer: cannot drop a packet past the queue's bound: %s\n",
				strerror(delayer->verdict_errno));
			return -1;
		}
	}
	return 0;
}

/* Opens, binds and configures queue QUEUE_NUM. Returns 0, or -1 with a message on stderr. */
static int delayer_open(struct delayer *delayer, uint16_t queue_num)
{
	int fd, rcvbuf = RCVBUF_BYTES;

	delayer->handle = nfq_open();
	if (delayer->handle == NULL) {
		fprintf(stderr, "delayer: cannot open a netfilter queue socket: %s\n", strerror(errno));
		return -1;
	}
	/* A no-op since Linux 3.8; older kernels needed it before a queue would bind. */
	if (nfq_bind_pf(delayer->handle, AF_INET) < 0) {
		fprintf(stderr, "delayer: cannot bind the IPv4 family: %s\n", strerror(errno));
		return -1;
	}
	delayer->queue = nfq_create_queue(delayer->handle, queue_num, on_packet, delayer);
	if (delayer->queue == NULL) {
		fprintf(stderr, "delayer: cannot bind queue %u: %s (does another program hold it?)\n",
			queue_num, strerror(errno));
		return -1;
	}
	/* Metadata only: we never look at the payload, copying it would cost a copy per byte. */
	if (nfq_set_mode(delayer->queue, NFQNL_COPY_META, 0) < 0) {
		fprintf(stderr, "delayer: cannot set queue %u to copy metadata only: %s\n", queue_num,
			strerror(errno));
		return -1;
	}
	if (nfq_set_queue_maxlen(delayer->queue, HELD_MAX) < 0) {
		fprintf(stderr, "delayer: cannot set queue %u's length to %u: %s\n", queue_num, HELD_MAX,
			strerror(errno));
		return -1;
	}
	/*
	 * GSO packets whole: without it the kernel segments each one before
	 * queueing. Not fail-open: a full queue drops, it never lets a packet
	 * through undelayed (which would reorder and shorten round trips).
	 */
	if (nfq_set_queue_flags(delayer->queue, NFQA_CFG_F_GSO, NFQA_CFG_F_GSO) < 0) {
		fprintf(stderr, "delayer: cannot let queue %u take GSO packets whole: %s\n", queue_num,
			strerror(errno));
		return -1;
	}
	fd = nfq_fd(delayer->handle);
	/* FORCE passes net.core.rmem_max (we run as root); plain SO_RCVBUF is capped by it. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) < 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)) < 0) {
		fprintf(stderr, "delayer: cannot size the queue socket's buffer: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static void delayer_close(struct delayer *delayer)
{
	if (delayer->queue != NULL)
		nfq_destroy_queue(delayer->queue);
	if (delayer->handle != NULL)
		nfq_close(delayer->handle);
	free(delayer->fifo.slots);
}

/* Writes our pid to PATH through a temporary file, so a reader never sees half of it. */
static int write_pidfile(const char *path)
{
	char tmp_path[PATH_MAX];
	FILE *file;
	int n;

	n = snprintf(tmp_path, sizeof(tmp_path), "%s.tmp", path);
	if (n < 0 || (size_t)n >= sizeof(tmp_path)) {
		fprintf(stderr, "delayer: pid file path too long: '%s'\n", path);
		return -1;
	}
	file = fopen(tmp_path, "w");
	if (file == NULL) {
		fprintf(stderr, "delayer: cannot create '%s': %s\n", tmp_path, strerror(errno));
		return -1;
	}
	fprintf(file, "%ld\n", (long)getpid());
	if (fclose(file) != 0 || rename(tmp_path, path) != 0) {
		fprintf(stderr, "delayer: cannot write '%s': %s\n", path, strerror(errno));
		unlink(tmp_path);
		return -1;
	}
	return 0;
}

/*
 * Blocks SIGTERM and SIGINT, which then arrive only inside ppoll (through
 * *WAIT_MASK): a stop can never fall between the flag test and the sleep.
 */
static int setup_signals(sigset_t *wait_mask)
{
	struct sigaction action = { .sa_handler = on_stop_signal };
	sigset_t stop_set;

	sigemptyset(&action.sa_mask);
	sigemptyset(&stop_set);
	sigaddset(&stop_set, SIGTERM);
	sigaddset(&stop_set, SIGINT);
	if (sigprocmask(SIG_BLOCK, &stop_set, wait_mask) != 0 ||
	    sigaction(SIGTERM, &action, NULL) != 0 || sigaction(SIGINT, &action, NULL) != 0) {
		fprintf(stderr, "delayer: cannot set up signal handling: %s\n", strerror(errno));
		return -1;
	}
	sigdelset(wait_mask, SIGTERM);
	sigdelset(wait_mask, SIGINT);
	return 0;
}

/* Runs until a stop signal or an error. Returns 0, or -1 with a message on stderr. */
static int delayer_run(struct delayer *delayer, const sigset_t *wait_mask)
{
	/* One metadata message is a few hundred bytes; 64 KiB is ample. */
	static char buf[65536];
	struct pollfd pfd = { .fd = nfq_fd(delayer->handle), .events = POLLIN };

	while (!stop_requested) {
		struct timespec timeout, *timeout_ptr = NULL;
		clock_ns now = clock_now();

		if (release_due(delayer, now) < 0) {
			fprintf(stderr, "delayer: cannot accept a held packet: %s\n", strerror(errno));
			return -1;
		}
		if (delayer->fifo.count > 0) {
			clock_ns wait = delayer->fifo.slots[delayer->fifo.head].due - now;

			timeout.tv_sec = (time_t)(wait / 1000000000u);
			timeout.tv_nsec = (long)(wait % 1000000000u);
			timeout_ptr = &timeout;
		}
		if (ppoll(&pfd, 1, timeout_ptr, wait_mask) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "delayer: poll failed: %s\n", strerror(errno));
			return -1;
		}
		if ((pfd.revents & POLLIN) != 0 && drain_socket(delayer, pfd.fd, buf, sizeof(buf)) < 0)
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "queue", required_argument, NULL, 'q' },
		{ "delay-us", required_argument, NULL, 'd' },
		{ "pidfile", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	struct delayer delayer = { 0 };
	const char *pidfile = NULL;
	long queue_num = -1, delay_us = -1;
	sigset_t wait_mask;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (opt) {
		case 'q':
			if (parse_long(optarg, 0, 65535, &queue_num) < 0)
				return usage();
			break;
		case 'd':
			if (parse_long(optarg, 1, DELAY_US_MAX, &delay_us) < 0)
				return usage();
			break;
		case 'p':
			pidfile = optarg;
			break;
		default:
			return usage();
		}
	}
	if (optind != argc || queue_num < 0 || delay_us < 0)
		return usage();
	delayer.delay_ns = (clock_ns)delay_us * 1000u;
	/*
	 * We outlive the script that starts us: an inherited descriptor would stay
	 * open as long, such as the testbed lock that `flock LOCK bash test.t`
	 * hands down, which no one could then take.
	 */
	if (close_range(3, ~0U, 0) != 0) {
		fprintf(stderr, "delayer: cannot close inherited descriptors: %s\n", strerror(errno));
		return 1;
	}

	/*
	 * Timer slack 1 ns: the default 50 us would let each wake come up to 50 us
	 * late, 10% of a 0.5 ms delay.
	 */
	if (prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL) != 0) {
		fprintf(stderr, "delayer: cannot set timer slack: %s\n", strerror(errno));
		return 1;
	}
	/*
	 * Real-time priority: on this 2-vCPU machine, busy with compilers, a
	 * normal-priority wake came 50-170 us late on average (up to 3.7 ms);
	 * SCHED_FIFO brought it to 10-15 us. Not fatal when refused: the delay
	 * is then only less exact under load.
	 */
	if (sched_setscheduler(0, SCHED_FIFO, &(struct sched_param){ .sched_priority = 10 }) != 0)
		fprintf(stderr, "delayer: warning: no real-time priority (%s): wakes may come late under load\n",
			strerror(errno));
	if (setup_signals(&wait_mask) < 0)
		return 1;
	delayer.fifo.slots = calloc(HELD_MAX, sizeof(*delayer.fifo.slots));
	if (delayer.fifo.slots == NULL) {
		fprintf(stderr, "delayer: out of memory\n");
		return 1;
	}
	if (delayer_open(&delayer, (uint16_t)queue_num) < 0 ||
	    (pidfile != NULL && write_pidfile(pidfile) < 0)) {
		delayer_close(&delayer);
		return 1;
	}
	rc = delayer_run(&delayer, &wait_mask);
	/* Let what we hold go now rather than have the kernel drop it when the queue closes. */
	if (release_due(&delayer, UINT64_MAX) < 0 && rc == 0) {
		fprintf(stderr, "delayer: cannot accept the held packets: %s\n", strerror(errno));
		rc = -1;
	}
	if (delayer.overflow_drops > 0 || delayer.enobufs > 0)
		fprintf(stderr, "delayer: dropped %lu packets past %u held; socket overflowed %lu times\n",
			delayer.overflow_drops, HELD_MAX, delayer.enobufs);
	if (pidfile != NULL)
		unlink(pidfile);
	delayer_close(&delayer);
	return rc < 0 ? 1 : 0;
}
