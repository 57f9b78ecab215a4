/* The SSH probes: what the host's sshd can carry, and what one SFTP request costs. */
#include "probe/probes.h"

#include "clock.h"
#include "err.h"
#include "ssh/ssh_conn.h"
#include "ssh/ssh_exec.h"
#include "sample/procstat.h"

#include <libssh/sftp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SSH_PROBE_CHUNK (1u << 20)
#define SSH_PROBE_MAX_BYTES (4ull << 30)
/*
 * Bytes written before the clock starts: more than OpenSSH's 2 MiB session
 * window, so the last of them waits until the remote command reads. The
 * clock then times the channel, not the start of the host's shell and `cat`.
 * Timed from the exec, a 1 s probe wrote only 2 to 4 chunks (1.7-3.8 MB/s)
 * in three probes of two make check runs on 2026-12-01, where the channel carried
 * 186-241 MB/s by hand: a slow start under load is the likely cause.
 */
#define SSH_PROBE_WARMUP (4u << 20)
#define SFTP_PINGS 200

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * The share of this machine's cores that were busy between a and b (not
 * idle, not waiting on I/O); -1 when /proc/stat did not answer.
 */
static double cores_busy(const struct cpu_times *a, const struct cpu_times *b)
{
	uint64_t total = cpu_times_total(b) - cpu_times_total(a);
	uint64_t idle = (b->idle + b->iowait) - (a->idle + a->iowait);

	return total > 0 && idle <= total ? 1 - (double)idle / (double)total : -1;
}

static int channel_throughput(ssh_session s, double seconds, double *bps, double *busy)
{
	struct ssh_exec x;
	unsigned char *buf = malloc(SSH_PROBE_CHUNK);
	uint64_t sent = 0;
	clock_ns start, end, stop;
	struct cpu_times before, after;
	bool have_before;
	int rc = 0;

	if (!buf)
		return err_set("out of memory for the SSH probe");
	/* random-looking bytes, so a compressing transport could not cheat */
	for (size_t i = 0; i < SSH_PROBE_CHUNK; i++)
		buf[i] = (unsigned char)((i * 2654435761u) >> 13);
	if (ssh_exec_start(s, "cat > /dev/null", &x) < 0) {
		ssh_exec_release(&x);
		free(buf);
		return err_wrap("SSH probe");
	}
	for (uint64_t warm = 0; warm < SSH_PROBE_WARMUP && rc == 0; warm += SSH_PROBE_CHUNK)
		rc = ssh_exec_write(&x, buf, SSH_PROBE_CHUNK);
	have_before = procstat_read_cpu(&before) == 0;
	start = clock_now();
	end = start + (clock_ns)(seconds * 1e9);
	stop = start;
	while (stop < end && sent < SSH_PROBE_MAX_BYTES && rc == 0) {
		rc = ssh_exec_write(&x, buf, SSH_PROBE_CHUNK);
		sent += SSH_PROBE_CHUNK;
		stop = clock_now();
	}
	/* the machine's load beside the rate: a /proc/stat that cannot be read only leaves it unknown */
	*busy = -1;
	if (rc == 0 && have_before) {
		if (procstat_read_cpu(&after) == 0)
			*busy = cores_busy(&before, &after);
		else
			err_clear();
	} else if (rc == 0) {
		err_clear();
	}
	/*
	 * The rate is up to the last write's return: the window's worth still in
	 * flight then (2 MiB) is under 1% of what a second at 200 MB/s sends, and
	 * the command's exit, timed before, is not the channel's.
	 */
	if (rc == 0)
		rc = ssh_exec_finish(&x, NULL);
	ssh_exec_release(&x);
	free(buf);
	if (rc < 0)
		return err_wrap("SSH probe");
	*bps = (double)sent / clock_seconds(start, stop);
	return 0;
}

static int sftp_round_trip(ssh_session s, double *p50)
{
	sftp_session sftp = sftp_new(s);
	double t[SFTP_PINGS];

	if (!sftp || sftp_init(sftp) != SSH_OK) {
		if (sftp)
			sftp_free(sftp);
		return err_set("SFTP probe: cannot start SFTP on the host: %s", ssh_get_error(s));
	}
	for (int i = 0; i < SFTP_PINGS; i++) {
		clock_ns t0 = clock_now();
		sftp_attributes a = sftp_stat(sftp, ".");

		if (!a) {
			sftp_free(sftp);
			return err_set("SFTP probe: stat failed: %s", ssh_get_error(s));
		}
		sftp_attributes_free(a);
		t[i] = clock_seconds(t0, clock_now());
	}
	sftp_free(sftp);
	qsort(t, SFTP_PINGS, sizeof(t[0]), cmp_double);
	*p50 = t[SFTP_PINGS / 2];
	return 0;
}

int probe_ssh(struct ssh_session_struct *session, double seconds, struct probe_results *r)
{
	ssh_session s = session;

	snprintf(r->ssh_cipher, sizeof(r->ssh_cipher), "%s", ssh_conn_cipher(s));
	double busy;

	if (channel_throughput(s, seconds, &r->ssh_bps, &busy) < 0)
		return -1;
	r->ssh_cpu_busy = busy > 0 ? busy : 0;
	return sftp_round_trip(s, &r->sftp_rtt_s);
}
