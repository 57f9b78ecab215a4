/*
 * real-tar-ssh, real-tar-zstd-ssh and real-tar-nc: GNU tar's stream
 * through ssh into the host's own tar (with zstd on both sides for the
 * second), or straight into one of the agent's data connections, whose
 * libarchive extraction (tar_extract.c) is then the mirror.
 *
 * What they keep: GNU tar's defaults archive symbolic links as links (their
 * text), every further name of an inode as a hard link to the first,
 * every directory (empty ones too), modes and mtimes (also of
 * directories; a 0555 one is given its mode after its files are in), and
 * fifos. On extraction, mtimes are set by default (-m would not), but
 * modes are exact only as root: as a user GNU tar applies the umask
 * (0664 arrives 0644 under umask 022) unless given -p. The host's side
 * runs `tar -xpf -`, as the usual "tar cf - . | ssh host 'tar xpf -'"
 * of a migration is typed, so modes are kept for root and users alike,
 * and all five kinds are claimed. real-tar-nc claims the same of the
 * agent's extraction.
 *
 * real-tar-nc's `nc` is a relay thread here: it reads what tar writes into
 * a pipe and sends it into the data connection in authenticated segments
 * (stream/seal_stream.h), as every data connection to the agent carries:
 * nc's own work (a read and a write a block) plus a tag a segment.
 */
#define _GNU_SOURCE
#include "err.h"
#include "client/raw_stream.h"
#include "strategy/host_programs.h"
#include "strategy/reference.h"
#include "stream/seal_stream.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void tar_create(struct pipeline_argv *a, const char *src)
{
	pipeline_arg(a, "tar");
	pipeline_arg(a, "-cf");
	pipeline_arg(a, "-");
	pipeline_arg(a, "-C");
	pipeline_arg(a, "%s", src);
	pipeline_arg(a, ".");
}

/*
 * tar -cf - -C SRC . | [zstd -L -Tn |] ssh HOST '[zstd -d |] tar -xpf - -C DEST'.
 * zstd at --zstd-level and --zstd-threads, as the zstd-ssh model.
 */
static int tar_ssh_pipeline(struct xfer_run *run, int compress)
{
	struct pipeline_stage st[3] = { 0 };
	struct reference_host h;
	char *dest, remote[PATH_MAX * 4 + 64];
	unsigned n = 0;
	int level = run->opts->zstd_level;

	if (reference_host_parse(run->target, &h) < 0 || !(dest = reference_shell_quote(run->dest)))
		return -1;
	snprintf(remote, sizeof(remote), "%star -xpf - -C %s", compress ? "zstd -dc | " : "", dest);
	free(dest);
	tar_create(&st[n++].argv, run->src_root);
	if (compress) {
		struct pipeline_argv *a = &st[n++].argv;

		pipeline_arg(a, "zstd");
		pipeline_arg(a, "-q");
		if (level < 0)
			pipeline_arg(a, "--fast=%d", -level);
		else if (level > 19)
			pipeline_arg(a, "--ultra");
		if (level >= 0)
			pipeline_arg(a, "-%d", level ? level : 3);
		/* the model's 0 workers compresses in the writer's thread: for zstd(1), -T0 is every core */
		if (run->opts->zstd_threads == 0)
			pipeline_arg(a, "--single-thread");
		else
			pipeline_arg(a, "-T%u", run->opts->zstd_threads);
		pipeline_arg(a, "-c");
	}
	reference_ssh_stage(&st[n++].argv, run->target, &h, remote);
	return reference_finish(run, st, n, -1);
}

static int tar_ssh_run(struct xfer_run *run)
{
	return tar_ssh_pipeline(run, 0);
}

static int tar_zstd_ssh_run(struct xfer_run *run)
{
	return tar_ssh_pipeline(run, 1);
}

#define RELAY_BLOCK (1u << 20)

/* nc's part: what tar writes into `in` goes into the data connection, sealed. */
struct seal_relay {
	int in;			/* the pipe's read end; the relay closes it */
	struct seal_sink *out;
	int rc;
	struct err_saved error;
	pthread_t tid;
};

static void *relay_main(void *p)
{
	struct seal_relay *r = p;
	char *buf = malloc(RELAY_BLOCK);

	r->rc = buf ? 0 : err_set("out of memory for the relay");
	while (r->rc == 0) {
		ssize_t n = read(r->in, buf, RELAY_BLOCK);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			r->rc = err_errno("cannot read what tar wrote");
		else if (n == 0)
			break;
		else if (seal_sink_as_sink(r->out)->write(r->out, buf, (size_t)n) < 0)
			r->rc = -1;
	}
	/* its end: the sealed end segment, and the write side shut */
	if (r->rc == 0)
		r->rc = seal_sink_as_sink(r->out)->close(r->out);
	if (r->rc < 0)
		err_save(&r->error);
	/* a relay that stopped early must not leave tar blocked on a full pipe: it gets EPIPE */
	close(r->in);
	free(buf);
	return NULL;
}

/* GNU tar's stream into one of the agent's data connections, through the relay. */
static int tar_nc_run(struct xfer_run *run)
{
	struct pipeline_stage st[1] = { 0 };
	unsigned char key[WIRE_KEY_BYTES];
	struct byte_sink fd_sink;
	struct seal_sink sealed;
	struct seal_relay relay = { .in = -1 };
	int fd, rc, p[2] = { -1, -1 };

	tar_create(&st[0].argv, run->src_root);
	if (raw_stream_open(run->target->agent, run->job, "tar", 1, &fd,
			    (unsigned char (*)[WIRE_KEY_BYTES])key) < 0) {
		pipeline_stages_free(st, 1);
		return -1;
	}
	byte_sink_fd(&fd_sink, &fd);
	rc = seal_sink_init(&sealed, &fd_sink, key);
	explicit_bzero(key, sizeof(key));
	if (rc == 0 && pipe2(p, O_CLOEXEC) < 0)
		rc = err_errno("cannot make a pipe for tar");
	if (rc == 0) {
		relay = (struct seal_relay){ .in = p[0], .out = &sealed };
		if (pthread_create(&relay.tid, NULL, relay_main, &relay) != 0) {
			close(p[0]);
			relay.tid = 0;
			rc = err_set("cannot start the relay to the agent");
		}
	}
	if (rc == 0) {
		rc = reference_finish(run, st, 1, p[1]);
		close(p[1]);
		pthread_join(relay.tid, NULL);
		if (relay.rc < 0 && rc == 0)
			rc = err_restore(&relay.error);
	} else {
		pipeline_stages_free(st, 1);
		if (p[1] >= 0)
			close(p[1]);
	}
	if (sealed.buf)
		seal_sink_release(&sealed);
	rc = raw_stream_finish(run->target->agent, &fd, 1, rc, &run->received);
	/* every byte tar wrote went through the one connection the agent counted */
	if (rc == 0)
		run->sent.wire_bytes = run->received.wire_bytes;
	return rc;
}

static int tar_ssh_available(const struct xfer_target *t, char *why, size_t len)
{
	static const char *const local[] = { "tar", "ssh", NULL };

	return strategy_needs_ssh(t, why, len) || host_programs_need_local(local, why, len) ||
	       host_programs_need(t, "tar", why, len);
}

static int tar_zstd_ssh_available(const struct xfer_target *t, char *why, size_t len)
{
	static const char *const local[] = { "zstd", NULL };

	return tar_ssh_available(t, why, len) || host_programs_need_local(local, why, len) ||
	       host_programs_need(t, "zstd", why, len);
}

static int tar_nc_available(const struct xfer_target *t, char *why, size_t len)
{
	static const char *const local[] = { "tar", NULL };

	(void)t;
	return host_programs_need_local(local, why, len);
}

const struct strategy strategy_real_tar_ssh = {
	.name = "real-tar-ssh",
	.summary = "tar -cf - | ssh HOST tar -xpf -: GNU tar and OpenSSH on both sides",
	.flags = STRATEGY_REFERENCE | STRATEGY_SSH,
	.preserves = PRESERVE_ALL,
	.available = tar_ssh_available,
	.traits = STRATEGY_TRAITS_TAR_SSH,
	.real_command = "tar -cf - -C DIR . | ssh HOST 'tar -xf - -C DST'",
	.run = tar_ssh_run,
	.stop = pipeline_stop_running,
};

const struct strategy strategy_real_tar_zstd_ssh = {
	.name = "real-tar-zstd-ssh",
	.summary = "tar -cf - | zstd -T | ssh HOST 'zstd -d | tar -xpf -', at --zstd-level",
	.flags = STRATEGY_REFERENCE | STRATEGY_SSH | STRATEGY_COMPRESSED,
	.preserves = PRESERVE_ALL,
	.available = tar_zstd_ssh_available,
	.traits = STRATEGY_TRAITS_TAR_SSH,
	.real_command = "tar -cf - -C DIR . | zstd -T0 | ssh HOST 'zstd -d | tar -xf - -C DST'",
	.run = tar_zstd_ssh_run,
	.stop = pipeline_stop_running,
};

const struct strategy strategy_real_tar_nc = {
	.name = "real-tar-nc",
	.summary = "GNU tar -cf - into one TCP stream, no ssh (the agent extracts with libarchive)",
	.flags = STRATEGY_REFERENCE | STRATEGY_CLEARTEXT,
	.preserves = PRESERVE_ALL,
	.available = tar_nc_available,
	.traits = STRATEGY_TRAITS_TAR_TO_AGENT,
	.real_command = "tar -cf - -C DIR . | nc -N ADDR PORT, on HOST: nc -l PORT | tar -xf - -C DST",
	.run = tar_nc_run,
	.stop = pipeline_stop_running,
};
