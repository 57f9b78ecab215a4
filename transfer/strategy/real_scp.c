/*
 * real-scp and real-scp-legacy: the system's scp, over SFTP and over the
 * legacy SCP protocol (scp -O), reaching the host as reference.h says. The
 * host's side is its own sftp-server or scp, run by its sshd.
 *
 * What OpenSSH 9.2's scp -r does with each kind of node, read in its scp.c
 * and sftp-client.c (tag V_9_2_P1: upload_dir_internal, do_upload, source,
 * rsource, sink) and seen on the testbed (Debian 12's scp to its sshd, the
 * fixture of tests/integration/trees.t, as root and as a user):
 *
 *                       scp -r (SFTP, the default)   scp -O -r (legacy)
 *   link to a file      followed: its content        followed: its content
 *                       arrives as a regular file    arrives as a regular file
 *   link to a dir       refused: "local X is not a   followed: the directory's
 *                       regular file", exit 1        content is copied again (a
 *                                                    link to / copies the system)
 *   dangling link       refused: "open local X: No   refused: "X: No such file
 *                       such file...", exit 1        or directory", exit 1
 *   fifo, device        skipped with a message       refused, exit 1
 *                       (exit 0)
 *   hard links          each name copied: separate files (both)
 *   empty dirs          made (both)
 *   0555 dir            made writable, filled, then given 0555 (both)
 *   file modes          sent and applied through the host's umask (both):
 *   without -p          0644/0755/0600/0444/0000 arrive as they are, 0664
 *                       arrives 0644 under umask 022; set-id bits dropped
 *   dir modes           exact (mode & 01777; legacy:     exact, without the
 *   without -p          mkdir then setstat)              sticky bit (chmod)
 *   mtimes without -p   not kept: the time of the copy (both)
 *   name with newline   carried                      sent as "\^J": the file
 *                                                    arrives under another name
 *
 * Run "the way a user would" on a real tree: a person who sees scp refuse
 * (or follow) links gives it the tree minus those nodes (scp_cover.h): the
 * directories on the way to them are made with `ssh HOST mkdir -p`, each
 * such directory's other children are copied into it by one scp -r, and
 * the made directories get their modes at the end with `ssh HOST chmod`,
 * all over one shared connection.
 * Left out: links whose target is not a regular file (to a directory,
 * dangling, to a device) and special files. scp -O cannot carry a name
 * holding a newline: a tree with one is skipped with the name (see
 * scp_legacy_available). A tree
 * without any of them is copied by the one command a user types. The links
 * not carried (and the ones that arrived as copies of their targets) are
 * reported by verification as symbolic links not kept.
 *
 * Claims: empty directories only. Modes are reported, not claimed: they
 * arrive through the host's umask. Symbolic links, hard links and mtimes
 * are not kept.
 */
#define _GNU_SOURCE
#include "err.h"
#include "fsutil.h"
#include "strategy/host_programs.h"
#include "strategy/reference.h"
#include "strategy/scp_cover.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The longest command sent to the host's shell at once (mkdir -p, chmod); the rest in more. */
#define REMOTE_CMD_MAX (64 * 1024)

/* Modes that each protocol gives a directory it made (sftp-client.c 01777, scp.c FILEMODEMASK). */
#define SFTP_DIR_MODE 01777u
#define LEGACY_DIR_MODE 06777u

struct scp_plan_ctx {
	const char *src_root;
	int legacy;
};

/* What scp is not given (scp_cover_cut_fn): see the table above. */
static int scp_cut(void *ctx, const char *path, char kind)
{
	const struct scp_plan_ctx *p = ctx;
	const char *name = strrchr(path, '/');
	char full[PATH_MAX];
	struct stat st;

	name = name ? name + 1 : path;
	if (kind == SCP_NODE_SPECIAL)
		return 1;
	if (p->legacy && strchr(name, '\n'))
		return 1;
	if (kind != SCP_NODE_SYMLINK)
		return 0;
	/* scp follows the link: what it finds decides */
	return fs_join(full, sizeof(full), p->src_root, path) < 0 || stat(full, &st) < 0 ||
	       !S_ISREG(st.st_mode);
}

/*
 * The commands of one run share one SSH connection, as a person running
 * several would set up (ControlMaster): without it each scp and ssh pays
 * its own handshake and login: on the testbed, the fixture of trees.t
 * (plus a fifo and a link to a directory deeper down: 7 commands) took
 * 4.7-5.2 s so and 1.3 s over one connection. The master is ended with
 * ssh -O exit when the run ends, and its socket lives in a private 0700
 * directory under /tmp. The master is a daemon of ssh's, out of reach of
 * pipeline_stop_running: should xfercmp die mid-run, it ends by itself
 * MUX_IDLE_SECONDS after its last command (the commands of a run follow
 * one another within milliseconds).
 */
#define MUX_IDLE_SECONDS 10
struct scp_mux {
	char dir[64];		/* private directory of the control socket; "" without one */
	char path[96];
};

static void mux_options(struct pipeline_argv *a, const struct scp_mux *mux)
{
	if (!mux->dir[0])
		return;
	pipeline_arg(a, "-o");
	pipeline_arg(a, "ControlMaster=auto");
	pipeline_arg(a, "-o");
	pipeline_arg(a, "ControlPath=%s", mux->path);
	pipeline_arg(a, "-o");
	pipeline_arg(a, "ControlPersist=%d", MUX_IDLE_SECONDS);
}

/* Ends the shared connection (ssh -O exit) and removes its directory; errors are not the run's. */
static void mux_close(struct xfer_run *run, const struct reference_host *h, struct scp_mux *mux)
{
	struct pipeline_stage st[1] = { 0 };
	struct stat sb;

	if (!mux->dir[0])
		return;
	if (stat(mux->path, &sb) == 0) {
		pipeline_arg(&st[0].argv, "ssh");
		pipeline_arg(&st[0].argv, "-o");
		pipeline_arg(&st[0].argv, "ControlPath=%s", mux->path);
		reference_ssh_options(&st[0].argv, run->target, h);
		pipeline_arg(&st[0].argv, "-O");
		pipeline_arg(&st[0].argv, "exit");
		pipeline_arg(&st[0].argv, "--");
		pipeline_arg(&st[0].argv, "%s", h->parts.host);
		(void)pipeline_run(st, 1, -1);
		pipeline_stages_free(st, 1);
	}
	unlink(mux->path);
	rmdir(mux->dir);
	mux->dir[0] = '\0';
}

/* Runs one command line on the host through ssh. Returns 0 or -1 (error set). */
static int run_remote(struct xfer_run *run, const struct reference_host *h,
		      const struct scp_mux *mux, const char *cmd)
{
	struct pipeline_stage st[1] = { 0 };
	int rc;

	pipeline_arg(&st[0].argv, "ssh");
	mux_options(&st[0].argv, mux);
	reference_ssh_options(&st[0].argv, run->target, h);
	pipeline_arg(&st[0].argv, "--");
	pipeline_arg(&st[0].argv, "%s", h->parts.host);
	pipeline_arg(&st[0].argv, "%s", cmd);
	rc = pipeline_run(st, 1, -1);
	pipeline_stages_free(st, 1);
	return rc;
}

/*
 * On the host: `mkdir -p -- DIRS` (parents first) or, with modes,
 * `chmod MODE -- DIR && ...` (children first, so that a read-only parent
 * is closed last), in commands of at most REMOTE_CMD_MAX bytes.
 */
static int remote_dirs(struct xfer_run *run, const struct reference_host *h,
		       const struct scp_mux *mux, const struct scp_cover *c, int chmod, unsigned mask)
{
	char *cmd = NULL, *q, path[PATH_MAX];
	size_t len = 0, words = 0;
	FILE *f = NULL;
	int rc = 0;

	for (size_t k = 0; k < c->nmade && rc == 0; k++) {
		const struct scp_made_dir *d = &c->made[chmod ? c->nmade - 1 - k : k];

		if (!f && !(f = open_memstream(&cmd, &len)))
			return err_set("out of memory for a command line");
		if (fs_join(path, sizeof(path), run->dest, d->path) < 0 ||
		    !(q = reference_shell_quote(path))) {
			rc = -1;
			break;
		}
		if (chmod)
			fprintf(f, "%schmod %04o -- %s", words ? " && " : "", d->mode & mask, q);
		else
			fprintf(f, "%s%s", words ? " " : "mkdir -p -- ", q);
		free(q);
		words++;
		fflush(f);
		if (len >= REMOTE_CMD_MAX || k + 1 == c->nmade) {
			fclose(f);
			f = NULL;
			rc = run_remote(run, h, mux, cmd);
			free(cmd);
			cmd = NULL;
			words = 0;
		}
	}
	if (f)
		fclose(f);
	free(cmd);
	return rc;
}

/* The words every scp command starts with. */
static void scp_head(struct pipeline_argv *a, const struct xfer_run *run,
		     const struct reference_host *h, const struct scp_mux *mux, int legacy)
{
	pipeline_arg(a, "scp");
	if (legacy)
		pipeline_arg(a, "-O");
	pipeline_arg(a, "-r");
	pipeline_arg(a, "-q");
	mux_options(a, mux);
	reference_ssh_options(a, run->target, h);
	pipeline_arg(a, "--");
}

/*
 * scp [-O] -r SRC/s1 SRC/s2 ... HOST:DEST/dir for one batch, in as many
 * commands as its sources need to stay within a quarter of ARG_MAX. The
 * legacy protocol hands the target to the host's shell: quoted here (scp
 * itself cannot take a ' in it).
 */
static int scp_batch(struct xfer_run *run, const struct reference_host *h,
		     const struct scp_mux *mux, const struct scp_cover *c, const struct scp_batch *b,
		     int legacy)
{
	long arg_max = sysconf(_SC_ARG_MAX);
	size_t budget = arg_max > 0 ? (size_t)arg_max / 4 : 32768;
	char target[PATH_MAX], *quoted = NULL;
	int rc = 0;

	if (fs_join(target, sizeof(target), run->dest, b->dir) < 0)
		return -1;
	if (legacy) {
		if (strchr(target, '\''))
			return err_set("scp -O cannot write to '%s': its target goes through the host's "
				       "shell and scp cannot take a quote in it", target);
		if (!(quoted = reference_shell_quote(target)))
			return -1;
	}
	for (size_t i = 0; i < b->n && rc == 0;) {
		struct pipeline_stage st[1] = { 0 };
		size_t used = 0;

		scp_head(&st[0].argv, run, h, mux, legacy);
		do {
			const char *s = c->sources[b->first + i];

			pipeline_arg(&st[0].argv, "%s/%s", run->src_root, s);
			used += strlen(run->src_root) + strlen(s) + 2 + sizeof(char *);
			i++;
		} while (i < b->n && used < budget);
		pipeline_arg(&st[0].argv, "%s:%s", h->scp_host, quoted ? quoted : target);
		rc = pipeline_run(st, 1, -1);
		pipeline_stages_free(st, 1);
	}
	free(quoted);
	return rc;
}

static int scp_tree_run(struct xfer_run *run, int legacy)
{
	struct scp_plan_ctx ctx = { .src_root = run->src_root, .legacy = legacy };
	struct reference_host h;
	struct scp_mux mux = { .dir = "" };
	struct scp_cover c;
	int rc = -1;

	if (reference_host_parse(run->target, &h) < 0)
		return -1;
	if (scp_cover_plan(run->manifest, scp_cut, &ctx, &c) < 0)
		goto out;
	if (c.nmade || c.nbatches > 1) {
		snprintf(mux.dir, sizeof(mux.dir), "/tmp/xfercmp-scp.XXXXXX");
		if (!mkdtemp(mux.dir)) {
			rc = err_errno("cannot make a directory for the ssh control socket");
			mux.dir[0] = '\0';
			goto out;
		}
		snprintf(mux.path, sizeof(mux.path), "%s/mux", mux.dir);
	}
	if (!legacy && c.cut == 0) {
		/* the command a user types: scp -r SRC/. HOST:DEST (OpenSSH 9 copies the contents) */
		struct pipeline_stage st[1] = { 0 };

		scp_head(&st[0].argv, run, &h, &mux, 0);
		pipeline_arg(&st[0].argv, "%s/.", run->src_root);
		pipeline_arg(&st[0].argv, "%s:%s", h.scp_host, run->dest);
		rc = pipeline_run(st, 1, -1);
		pipeline_stages_free(st, 1);
		goto out;
	}
	/*
	 * Otherwise each batch's sources are named; for scp -O also without
	 * cuts, since its sink refuses "." as a name: each top-level entry, as a shell glob of SRC would.
	 */
	if (c.nmade && remote_dirs(run, &h, &mux, &c, 0, 0) < 0)
		goto out;
	for (size_t i = 0; i < c.nbatches; i++)
		if (c.batches[i].n && scp_batch(run, &h, &mux, &c, &c.batches[i], legacy) < 0)
			goto out;
	if (c.nmade &&
	    remote_dirs(run, &h, &mux, &c, 1, legacy ? LEGACY_DIR_MODE : SFTP_DIR_MODE) < 0)
		goto out;
	rc = 0;
out:
	mux_close(run, &h, &mux);
	scp_cover_release(&c);
	if (rc == 0) {
		run->sent.files = run->manifest->count;
		run->sent.bytes_read = run->manifest->total_bytes;
	}
	return rc;
}

static int scp_run(struct xfer_run *run)
{
	return scp_tree_run(run, 0);
}

static int scp_legacy_run(struct xfer_run *run)
{
	return scp_tree_run(run, 1);
}

static int scp_available(const struct xfer_target *t, char *why, size_t len)
{
	static const char *const local[] = { "scp", "ssh", NULL };

	return strategy_needs_ssh(t, why, len) || host_programs_need_local(local, why, len);
}

/*
 * scp -O sends a name holding a newline as "\^J": that file would arrive
 * under another name and fail verification by no fault of the link. Such a
 * tree is what scp -O cannot carry at all: skipped, with the name, where
 * real-scp (SFTP) runs.
 */
static int scp_legacy_available(const struct xfer_target *t, char *why, size_t len)
{
	char shown[256];

	if (scp_available(t, why, len) || host_programs_need(t, "scp", why, len))
		return 1;
	if (reference_newline_name(t->manifest, shown, sizeof(shown))) {
		snprintf(why, len, "scp -O cannot carry a name holding a newline ('%s' would arrive "
			 "as another name); real-scp can", shown);
		return 1;
	}
	return 0;
}

const struct strategy strategy_real_scp = {
	.name = "real-scp",
	.summary = "the system's scp -r (SFTP protocol): SRC/. to HOST:DEST, less the links it refuses",
	.flags = STRATEGY_REFERENCE | STRATEGY_SSH,
	.preserves = PRESERVE_EMPTY_DIRS,
	.available = scp_available,
	.traits = STRATEGY_TRAITS_SCP,
	.real_command = "scp -r DIR/. HOST:DST",
	.run = scp_run,
	.stop = pipeline_stop_running,
};

const struct strategy strategy_real_scp_legacy = {
	.name = "real-scp-legacy",
	.summary = "the system's scp -O -r (legacy SCP protocol), each top-level entry to HOST:DEST",
	.flags = STRATEGY_REFERENCE | STRATEGY_SSH,
	.preserves = PRESERVE_EMPTY_DIRS,
	.available = scp_legacy_available,
	/* the SCP protocol: a C (or D and E) line, then its data, each acknowledged */
	.traits = {
		.path = PATH_SSH_CHANNEL,
		.serial = true,
		.requests_per_file = 2,
		.requests_per_dir = 2,
		.creator = CREATOR_HOST_PROGRAM,
		.header_bytes = SCP_LINE_BYTES,
		.setup_round_trips = STRATEGY_SETUP_ROUND_TRIPS,
	},
	/*
	 * Each top-level entry, as the run names them: DIR/. is refused by the
	 * sink, and a shell glob of DIR leaves out the names that start with a dot.
	 */
	.real_command = "find DIR -mindepth 1 -maxdepth 1 -exec scp -O -r {} HOST:DST \\;",
	.run = scp_legacy_run,
	.stop = pipeline_stop_running,
};
