/*
 * --explain's runs (explain.h): after the comparison, each chosen strategy
 * again with one resource taken away at a time, through the same runner
 * (cold source unless the removal is the source disk, flush, verification
 * or, for the null sink, the stream's own check). A removal that needs
 * another destination gets its own agent: on tmpfs on the host, or on this
 * machine over loopback; the cipher removal its own SSH connection. Each is
 * started once, for every strategy that needs it, and ended before the
 * report.
 */
#define _GNU_SOURCE
#include "explain_run.h"
#include "explain_plan.h"

#include "err.h"
#include "fsutil.h"
#include "strategy/list.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* Where the "no durable write" agent makes its scratch root: tmpfs on every Linux with systemd or udev. */
#define EXPLAIN_TMPFS_DIR "/dev/shm"

/* Another destination for one kind of removal: its agent (and SSH connection), started once. */
struct alt_target {
	bool tried, ok;
	char why[1024];		/* when !ok: why the removal is skipped */
	struct agent_process proc;
	struct agent_client agent;
	struct ssh_target ssh;
	struct xfer_target target;
};

/* What a removal needs: the destination the strategy runs against, and the runner's options. */
struct explain_ctx {
	struct compare_session *s;
	struct alt_target tmpfs, loopback, cipher;
	char cheap_cipher[64];
	unsigned done, total;	/* runs, for the progress lines */
	bool chatty;
};

int explain_check_list(const char *list)
{
	char copy[512], *save = NULL;

	if (!list)
		return 0;
	if (strlen(list) >= sizeof(copy))
		return err_set("--explain: at most %zu bytes", sizeof(copy) - 1);
	strcpy(copy, list);
	for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save))
		if (!strategy_find(name))
			return err_set("--explain: unknown strategy '%s': name strategies of --strategies, or give --explain alone (the recommended and the slowest)",
				       name);
	return 0;
}

static void skip(struct explain_ablation *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void skip(struct explain_ablation *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->reason, sizeof(a->reason), fmt, ap);
	va_end(ap);
	a->status = EXPLAIN_SKIPPED;
}

/* The cheapest cipher for this CPU: AES-GCM where it has AES-NI, else ChaCha20-Poly1305. */
static void cheapest_cipher(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096];
	bool aes = false;

	while (f && !aes && fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5) && strstr(line, " aes"))
			aes = true;
	if (f)
		fclose(f);
	snprintf(buf, len, "%s", aes ? "aes128-gcm@openssh.com" : "chacha20-poly1305@openssh.com");
}

/*
 * The removals a strategy cannot have here, skipped with the reason before
 * anything runs (so the estimate counts only what will run).
 */
static void pre_skip(struct explain_ctx *c, struct explain_item *it)
{
	const struct compare_session *s = c->s;
	const struct strategy *st = it->result->strategy;
	bool raw = st->flags & STRATEGY_CLEARTEXT, ssh = st->flags & STRATEGY_SSH;
	const char *cipher = s->o.run.probes ? s->o.run.probes->ssh_cipher : "";

	if (!explain_ran_ok(it->result)) {
		for (int k = 0; k < EXPLAIN_REMOVED_COUNT; k++)
			skip(&it->ab[k], "it did not run and verify in the comparison: nothing to compare with");
		return;
	}
	if (!raw)
		skip(&it->ab[EXPLAIN_DEST_DISK],
		     "its data goes to a program on the host, not to the agent's receiver, which the null sink stands in for");
	if (!strcmp(it->result->dest_fs, "tmpfs"))
		skip(&it->ab[EXPLAIN_DURABLE_WRITE], "the destination is tmpfs already");
	else if (s->o.agent)
		skip(&it->ab[EXPLAIN_DURABLE_WRITE],
		     "the agent was started by hand (--agent): xfercmp cannot start a second one on tmpfs there");
	if (s->o.run.warm)
		skip(&it->ab[EXPLAIN_SOURCE_DISK],
		     "the source is read warm already (--warm): there is no source disk to take away");
	if (agent_client_is_local(&s->agent))
		skip(&it->ab[EXPLAIN_NETWORK],
		     "the agent is on this machine already (loopback): there is no network to take away");
	else if (ssh)
		skip(&it->ab[EXPLAIN_NETWORK],
		     "an SSH strategy would need an sshd on this machine's loopback, which xfercmp does not start");
	if (!ssh)
		skip(&it->ab[EXPLAIN_CIPHER], "it sends in clear over TCP: no cipher to take away");
	else if (st->flags & STRATEGY_REFERENCE)
		skip(&it->ab[EXPLAIN_CIPHER],
		     "it runs the system's ssh, whose cipher the ssh configuration chooses, not xfercmp");
	else if (!s->target.ssh)
		skip(&it->ab[EXPLAIN_CIPHER], "no SSH connection");
	else if (cipher[0] && !strcmp(cipher, c->cheap_cipher))
		skip(&it->ab[EXPLAIN_CIPHER], "it ran with %s, the cheapest cipher on this CPU, already",
		     cipher);
}

static uint64_t info_u64(const struct agent_client *a, const char *key)
{
	json_object *v;

	return a->info && json_object_object_get_ex(a->info, key, &v) ? (uint64_t)json_object_get_int64(v) : 0;
}

/* Connects alt's agent client to an agent alt started (local or over alt->ssh) and sends the manifest. */
static int alt_connect(struct explain_ctx *c, struct alt_target *alt, bool over_ssh)
{
	struct compare_session *s = c->s;

	int rc = over_ssh ?
		 agent_client_connect(&alt->agent, alt->ssh.agent_host, alt->ssh.agent_port, alt->ssh.token) :
		 agent_client_connect(&alt->agent, alt->proc.host, alt->proc.port, alt->proc.token);

	/* the client keeps the key it derived; the token goes */
	explicit_bzero(over_ssh ? alt->ssh.token : alt->proc.token, WIRE_TOKEN_HEX + 1);
	if (rc < 0)
		return -1;
	if (over_ssh) {
		ssh_target_set_agent_root(&alt->ssh, alt->agent.root);
		snprintf(alt->agent.label, sizeof(alt->agent.label), "%s", s->o.host);
	}
	if (agent_client_send_manifest(&alt->agent, &s->m) < 0)
		return -1;
	alt->target = (struct xfer_target){
		.agent = &alt->agent, .ssh = over_ssh ? &alt->ssh : NULL,
		.label = over_ssh ? s->o.host : "local", .ssh_config = s->o.ssh_config,
		.accept_new_hostkey = s->o.accept_new_hostkey,
	};
	return 0;
}

/* Opens an SSH target like the comparison's, with remote_dir and ciphers (NULL: as it had). */
static int alt_open_ssh(struct explain_ctx *c, struct alt_target *alt, const char *remote_dir,
			const char *ciphers)
{
	struct compare_session *s = c->s;
	struct ssh_target_opts so = {
		.conn = { .target = s->o.host, .config_file = s->o.ssh_config,
			  .accept_new_hostkey = s->o.accept_new_hostkey, .ciphers = ciphers },
		.remote_dir = remote_dir ? remote_dir : s->o.remote_dir,
	};

	if (ssh_target_open(&alt->ssh, &so) < 0)
		return -1;
	return alt_connect(c, alt, true);
}

static void alt_init(struct alt_target *alt)
{
	memset(alt, 0, sizeof(*alt));
	alt->proc = (struct agent_process){ .pid = -1, .stdin_fd = -1 };
	alt->agent = (struct agent_client){ .ctl.fd = -1 };
}

/* The tmpfs destination: an agent whose root is on /dev/shm, on the host (over SSH) or here. */
static void open_tmpfs(struct explain_ctx *c)
{
	struct alt_target *alt = &c->tmpfs;
	struct compare_session *s = c->s;
	char where[160];
	json_object *v;
	const char *fs;
	int rc;

	alt_init(alt);
	alt->tried = true;
	if (s->target.ssh)
		rc = alt_open_ssh(c, alt, EXPLAIN_TMPFS_DIR, NULL);
	else
		rc = agent_launch_local(&alt->proc, EXPLAIN_TMPFS_DIR) < 0 ? -1 : alt_connect(c, alt, false);
	if (rc < 0) {
		snprintf(alt->why, sizeof(alt->why), "no agent could start on %s: %s", EXPLAIN_TMPFS_DIR, err_msg());
		return;
	}
	fs = alt->agent.info && json_object_object_get_ex(alt->agent.info, "root_fs", &v) ?
	     json_object_get_string(v) : "";
	if (strcmp(fs, "tmpfs")) {
		snprintf(alt->why, sizeof(alt->why), "%s on %s is %s, not tmpfs", EXPLAIN_TMPFS_DIR,
			 s->o.host, fs[0] ? fs : "of an unknown file system");
		return;
	}
	snprintf(where, sizeof(where), "tmpfs %s on %s", EXPLAIN_TMPFS_DIR, s->o.host);
	alt->ok = explain_has_room(&s->m, info_u64(&alt->agent, "root_free_bytes"), where, alt->why,
				   sizeof(alt->why));
}

/* The loopback destination: an agent on this machine, its root where the scratch base is. */
static void open_loopback(struct explain_ctx *c)
{
	struct alt_target *alt = &c->loopback;
	struct compare_session *s = c->s;
	struct statvfs sv;
	char where[1024];

	alt_init(alt);
	alt->tried = true;
	if (statvfs(fs_scratch_base(), &sv) < 0) {
		snprintf(alt->why, sizeof(alt->why), "cannot see the free space of %s on this machine",
			 fs_scratch_base());
		return;
	}
	/* the source stays here too: a copy must fit beside it */
	snprintf(where, sizeof(where), "%s on this machine", fs_scratch_base());
	if (!explain_has_room(&s->m, (uint64_t)sv.f_bavail * sv.f_frsize, where, alt->why, sizeof(alt->why)))
		return;
	if (agent_launch_local(&alt->proc, NULL) < 0 || alt_connect(c, alt, false) < 0) {
		snprintf(alt->why, sizeof(alt->why), "no agent could start on this machine: %s", err_msg());
		return;
	}
	alt->ok = true;
}

/* The cipher removal: our own SSH connection with the cheapest cipher, if the host's sshd offers it. */
static void open_cipher(struct explain_ctx *c)
{
	struct alt_target *alt = &c->cipher;

	alt_init(alt);
	alt->tried = true;
	if (alt_open_ssh(c, alt, NULL, c->cheap_cipher) < 0) {
		snprintf(alt->why, sizeof(alt->why), "the host's sshd does not take %s: %s", c->cheap_cipher,
			 err_msg());
		return;
	}
	alt->ok = true;
}

static void alt_close(struct alt_target *alt)
{
	if (!alt->tried)
		return;
	if (agent_client_close(&alt->agent) < 0 || ssh_target_close(&alt->ssh) < 0)
		fprintf(stderr, "xfercmp: --explain: %s\n", err_msg());
	agent_process_stop(&alt->proc);
	alt->tried = false;
}

/* Runs it's strategy once against t with o into it->ab[k]. */
static void run_one(struct explain_ctx *c, struct explain_item *it, enum explain_removed k,
		    const struct runner_opts *o, struct xfer_target *t)
{
	struct explain_ablation a = it->ab[k];
	struct strategy_result r;
	const struct strategy *list[1] = { it->result->strategy };
	struct compare_session *s = c->s;

	c->done++;
	if (c->chatty)
		fprintf(stderr, "explain %u/%u: %s without %s...\n", c->done, c->total, list[0]->name,
			explain_removed_text(k));
	if (runner_run(o, s->root, &s->m, t, list, 1, &r) < 0 && !r.error[0])
		snprintf(r.error, sizeof(r.error), "%s", err_msg());
	if (r.status == RESULT_OK && r.runs > 0) {
		a.status = EXPLAIN_OK;
		a.seconds = r.median.transfer + r.median.flush;
		a.saved_fraction = it->baseline_seconds > 0 ? (it->baseline_seconds - a.seconds) / it->baseline_seconds : 0;
		a.verified = !o->null_sink && r.verified;
		a.stream_checked = o->null_sink && r.stream_checked;
	} else {
		a.status = r.status == RESULT_SKIPPED ? EXPLAIN_SKIPPED : EXPLAIN_FAILED;
		snprintf(a.reason, sizeof(a.reason), "%s", r.error);
	}
	if (c->chatty && a.status == EXPLAIN_OK)
		fprintf(stderr, "  %s without %s: %.2f s -> %.2f s (%+.0f%%)\n", list[0]->name,
			explain_removed_text(k), it->baseline_seconds, a.seconds, -100 * a.saved_fraction);
	else if (c->chatty)
		fprintf(stderr, "  %s without %s: %s: %s\n", list[0]->name, explain_removed_text(k),
			explain_status_name(a.status), a.reason);
	/* whole, so an interrupt's report sees it done or not run */
	it->ab[k] = a;
}

/* The destination and options for removal k; NULL (alt's reason in *why) when it cannot be had. */
static struct xfer_target *removal_target(struct explain_ctx *c, enum explain_removed k,
					  struct runner_opts *o, const char **why)
{
	struct alt_target *alt = NULL;

	*o = c->s->o.run;
	o->repeat = 1;
	o->sample = false;
	o->probes = NULL;
	o->progress = NULL;
	*why = NULL;
	switch (k) {
	case EXPLAIN_DEST_DISK:
		o->null_sink = true;
		return &c->s->target;
	case EXPLAIN_SOURCE_DISK:
		o->warm = o->strategy.keep_cached = true;
		return &c->s->target;
	case EXPLAIN_DURABLE_WRITE:
		if (!c->tmpfs.tried)
			open_tmpfs(c);
		alt = &c->tmpfs;
		break;
	case EXPLAIN_NETWORK:
		if (!c->loopback.tried)
			open_loopback(c);
		alt = &c->loopback;
		break;
	default:
		if (!c->cipher.tried)
			open_cipher(c);
		alt = &c->cipher;
		break;
	}
	if (!alt->ok) {
		*why = alt->why;
		return NULL;
	}
	return &alt->target;
}

int explain_run(struct compare_session *s, const struct strategy_result *results, size_t n,
		struct explain_report *ex)
{
	struct explain_ctx c = { .s = s };
	const struct probe_results *p = s->o.run.probes;
	/* what report_recommended reads: the recommendation the report will give */
	const struct report rep = { .results = results, .nresults = n, .probes = p,
				    .what_if = s->o.what_if, .nwhat_if = s->o.nwhat_if };
	double each = 0;

	c.chatty = s->o.verbose || (!s->o.quiet && isatty(2));
	cheapest_cipher(c.cheap_cipher, sizeof(c.cheap_cipher));
	explain_choose(s->o.explain_list, &rep, ex);
	for (size_t i = 0; i < ex->n; i++) {
		pre_skip(&c, &ex->items[i]);
		for (int k = 0; k < EXPLAIN_REMOVED_COUNT; k++)
			if (ex->items[i].ab[k].status == EXPLAIN_NOT_RUN) {
				c.total++;
				each += ex->items[i].baseline_seconds;
			}
	}
	if (c.total && c.chatty)
		fprintf(stderr, "--explain will run %u more transfer%s of about %.0f s each (about %.0f s in all, and each removal's agent to start)\n",
			c.total, c.total == 1 ? "" : "s", each / c.total, each);
	/* removal by removal, so each extra agent starts once */
	for (int k = 0; k < EXPLAIN_REMOVED_COUNT; k++) {
		for (size_t i = 0; i < ex->n; i++) {
			struct explain_item *it = &ex->items[i];
			struct runner_opts o;
			struct xfer_target *t;
			const char *why;

			if (it->ab[k].status != EXPLAIN_NOT_RUN)
				continue;
			t = removal_target(&c, (enum explain_removed)k, &o, &why);
			if (!t) {
				c.done++;
				skip(&it->ab[k], "%s", why);
				continue;
			}
			if (k == EXPLAIN_SOURCE_DISK && runner_load_source_cache(s->root, &s->m) < 0) {
				c.done++;
				it->ab[k].status = EXPLAIN_FAILED;
				snprintf(it->ab[k].reason, sizeof(it->ab[k].reason), "cannot load the source: %s", err_msg());
				continue;
			}
			run_one(&c, it, (enum explain_removed)k, &o, t);
			/* so far, for an interrupt's report */
			explain_decide(it, s->m.count, s->m.total_bytes, p ? p->create_per_s : 0,
				       p ? p->disk_write_bps : 0, p ? p->src_open_per_s : 0,
				       p ? p->disk_read_bps : 0);
			if (s->agent.lost)
				goto out;
		}
	}
out:
	alt_close(&c.tmpfs);
	alt_close(&c.loopback);
	alt_close(&c.cipher);
	for (size_t i = 0; i < ex->n; i++)
		explain_decide(&ex->items[i], s->m.count, s->m.total_bytes, p ? p->create_per_s : 0,
			       p ? p->disk_write_bps : 0, p ? p->src_open_per_s : 0, p ? p->disk_read_bps : 0);
	return s->agent.lost ? -1 : 0;
}
