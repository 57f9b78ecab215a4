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
#include "run/explain_run.h"
#include "run/explain_plan.h"

#include "err.h"
#include "fsutil.h"
#include "strategy/list.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>

/* Where the "no durable write" agent makes its scratch root: tmpfs on every Linux with systemd or udev. */
#define EXPLAIN_TMPFS_DIR "/dev/shm"

/* Another destination for one kind of removal (destination.h), opened once. */
struct alt_target {
	bool tried, ok;
	char why[1024];		/* when !ok: why the removal is skipped */
	struct destination dest;
};

/* What a removal needs: the destination the strategy runs against, and the runner's options. */
struct explain_ctx {
	const struct explain_setup *e;
	struct alt_target tmpfs, loopback, cipher;
	char cheap_cipher[64];
	unsigned done, total;	/* runs, for the progress lines */
};

/* One progress line, when the setup asks for them. */
static void say(const struct explain_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const struct explain_ctx *c, const char *fmt, ...)
{
	char line[1536];
	va_list ap;

	if (!c->e->progress)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	c->e->progress(c->e->ctx, line);
}

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
	const struct explain_setup *e = c->e;
	const struct strategy *st = it->result->strategy;
	bool raw = st->flags & STRATEGY_CLEARTEXT, ssh = st->flags & STRATEGY_SSH;
	const char *cipher = e->run->probes ? e->run->probes->ssh_cipher : "";

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
	else if (e->dest->o.agent)
		skip(&it->ab[EXPLAIN_DURABLE_WRITE],
		     "the agent was started by hand (--agent): xfercmp cannot start a second one on tmpfs there");
	if (e->run->warm)
		skip(&it->ab[EXPLAIN_SOURCE_DISK],
		     "the source is read warm already (--warm): there is no source disk to take away");
	if (agent_client_is_local(&e->dest->agent))
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
	else if (!e->dest->target.ssh)
		skip(&it->ab[EXPLAIN_CIPHER], "no SSH connection");
	else if (cipher[0] && !strcmp(cipher, c->cheap_cipher))
		skip(&it->ab[EXPLAIN_CIPHER], "it ran with %s, the cheapest cipher on this CPU, already",
		     cipher);
}

/* Marks alt tried, its destination closed until alt_open opens it (alt_close then closes it). */
static void alt_begin(struct alt_target *alt)
{
	destination_init(&alt->dest);
	alt->tried = true;
}

/*
 * Opens alt's destination like the comparison's, but on host ("local": on
 * this machine) with scratch_dir and ciphers (NULL: as the comparison had),
 * and sends the manifest.
 */
static int alt_open(struct explain_ctx *c, struct alt_target *alt, const char *host, const char *scratch_dir,
		    const char *ciphers)
{
	const struct destination_opts *as = &c->e->dest->o;
	const struct destination_opts o = {
		.host = host, .ssh_config = as->ssh_config, .accept_new_hostkey = as->accept_new_hostkey,
		.scratch_dir = scratch_dir ? scratch_dir : strcmp(host, "local") ? as->scratch_dir : NULL,
		.ciphers = ciphers, .agent_via_ssh = as->agent_via_ssh,
	};

	if (destination_open(&alt->dest, &o) < 0)
		return -1;
	return destination_send_manifest(&alt->dest, c->e->m);
}

/* The tmpfs destination: an agent whose root is on /dev/shm, on the host (over SSH) or here. */
static void open_tmpfs(struct explain_ctx *c)
{
	struct alt_target *alt = &c->tmpfs;
	const char *host = c->e->dest->o.host;
	char where[160];
	json_object *v;
	const char *fs;
	uint64_t free_bytes;

	alt_begin(alt);
	if (alt_open(c, alt, c->e->dest->target.ssh ? host : "local", EXPLAIN_TMPFS_DIR, NULL) < 0) {
		snprintf(alt->why, sizeof(alt->why), "no agent could start on %s: %s", EXPLAIN_TMPFS_DIR, err_msg());
		return;
	}
	fs = alt->dest.agent.info && json_object_object_get_ex(alt->dest.agent.info, "root_fs", &v) ?
	     json_object_get_string(v) : "";
	if (strcmp(fs, "tmpfs")) {
		snprintf(alt->why, sizeof(alt->why), "%s on %s is %s, not tmpfs", EXPLAIN_TMPFS_DIR,
			 host, fs[0] ? fs : "of an unknown file system");
		return;
	}
	snprintf(where, sizeof(where), "tmpfs %s on %s", EXPLAIN_TMPFS_DIR, host);
	if (!destination_free_bytes(&alt->dest, &free_bytes))
		free_bytes = 0;
	alt->ok = explain_has_room(c->e->m, free_bytes, where, alt->why, sizeof(alt->why));
}

/* The loopback destination: an agent on this machine, its root where the scratch base is. */
static void open_loopback(struct explain_ctx *c)
{
	struct alt_target *alt = &c->loopback;
	struct statvfs sv;
	char where[1024];

	alt_begin(alt);
	if (statvfs(fs_scratch_base(), &sv) < 0) {
		snprintf(alt->why, sizeof(alt->why), "cannot see the free space of %s on this machine",
			 fs_scratch_base());
		return;
	}
	/* the source stays here too: a copy must fit beside it */
	snprintf(where, sizeof(where), "%s on this machine", fs_scratch_base());
	if (!explain_has_room(c->e->m, (uint64_t)sv.f_bavail * sv.f_frsize, where, alt->why, sizeof(alt->why)))
		return;
	if (alt_open(c, alt, "local", NULL, NULL) < 0) {
		snprintf(alt->why, sizeof(alt->why), "no agent could start on this machine: %s", err_msg());
		return;
	}
	alt->ok = true;
}

/* The cipher removal: our own SSH connection with the cheapest cipher, if the host's sshd offers it. */
static void open_cipher(struct explain_ctx *c)
{
	struct alt_target *alt = &c->cipher;

	alt_begin(alt);
	if (alt_open(c, alt, c->e->dest->o.host, NULL, c->cheap_cipher) < 0) {
		snprintf(alt->why, sizeof(alt->why), "the host's sshd does not take %s: %s", c->cheap_cipher,
			 err_msg());
		return;
	}
	alt->ok = true;
}

static void alt_close(const struct explain_ctx *c, struct alt_target *alt)
{
	if (!alt->tried)
		return;
	destination_close(&alt->dest, c->e->cleanup_failed, c->e->ctx);
	alt->tried = false;
}

/* Runs it's strategy once against t with o into it->ab[k]. */
static void run_one(struct explain_ctx *c, struct explain_item *it, enum explain_removed k,
		    const struct runner_opts *o, struct xfer_target *t)
{
	struct explain_ablation a = it->ab[k];
	struct strategy_result r;
	const struct strategy *list[1] = { it->result->strategy };

	c->done++;
	say(c, "explain %u/%u: %s without %s...", c->done, c->total, list[0]->name, explain_removed_text(k));
	if (runner_run(o, c->e->src_root, c->e->m, t, list, 1, &r) < 0 && !r.error[0])
		snprintf(r.error, sizeof(r.error), "%s", err_msg());
	if (r.status == RESULT_OK && r.runs > 0) {
		a.status = EXPLAIN_OK;
		a.seconds = r.median.transfer + r.median.flush;
		a.saved_fraction = explain_reference(it) > 0 ? (explain_reference(it) - a.seconds) / explain_reference(it) : 0;
		a.verified = !o->null_sink && r.verified;
		a.stream_checked = o->null_sink && r.stream_checked;
	} else {
		a.status = r.status == RESULT_SKIPPED ? EXPLAIN_SKIPPED : EXPLAIN_FAILED;
		snprintf(a.reason, sizeof(a.reason), "%s", r.error);
	}
	if (a.status == EXPLAIN_OK)
		say(c, "  %s without %s: %.2f s -> %.2f s (%+.0f%%)", list[0]->name, explain_removed_text(k),
		    explain_reference(it), a.seconds, -100 * a.saved_fraction);
	else
		say(c, "  %s without %s: %s: %s", list[0]->name, explain_removed_text(k),
		    explain_status_name(a.status), a.reason);
	/* whole, so an interrupt's report sees it done or not run */
	it->ab[k] = a;
}

/*
 * The control: it's strategy once more with nothing removed, against the
 * comparison's destination, cold like the baseline, before its removals.
 */
static void run_control(struct explain_ctx *c, struct explain_item *it)
{
	struct runner_opts o = *c->e->run;
	struct strategy_result r;
	const struct strategy *list[1] = { it->result->strategy };

	o.repeat = 1;
	o.sample = false;
	o.probes = NULL;
	o.progress = NULL;
	o.phase = NULL;
	c->done++;
	say(c, "explain %u/%u: %s with nothing removed (the control)...", c->done, c->total, list[0]->name);
	if (runner_run(&o, c->e->src_root, c->e->m, &c->e->dest->target, list, 1, &r) < 0 && !r.error[0])
		snprintf(r.error, sizeof(r.error), "%s", err_msg());
	if (r.status == RESULT_OK && r.runs > 0) {
		it->control_seconds = r.median.transfer + r.median.flush;
		it->control_status = EXPLAIN_OK;
		explain_check_baseline(it);
		say(c, "  %s, the control: %.2f s (the comparison's %.2f s%s)", list[0]->name,
		    it->control_seconds, it->baseline_seconds,
		    it->baseline_outlier ? ", an outlier: the removals are measured against the control" : "");
	} else {
		it->control_status = r.status == RESULT_SKIPPED ? EXPLAIN_SKIPPED : EXPLAIN_FAILED;
		snprintf(it->control_reason, sizeof(it->control_reason), "%s", r.error);
		say(c, "  %s, the control: %s: %s", list[0]->name, explain_status_name(it->control_status),
		    it->control_reason);
	}
}

/* The destination and options for removal k; NULL (alt's reason in *why) when it cannot be had. */
static struct xfer_target *removal_target(struct explain_ctx *c, enum explain_removed k,
					  struct runner_opts *o, const char **why)
{
	struct alt_target *alt = NULL;

	*o = *c->e->run;
	o->repeat = 1;
	o->sample = false;
	o->probes = NULL;
	o->progress = NULL;
	o->phase = NULL;
	*why = NULL;
	switch (k) {
	case EXPLAIN_DEST_DISK:
		o->null_sink = true;
		return &c->e->dest->target;
	case EXPLAIN_SOURCE_DISK:
		o->warm = o->strategy.keep_cached = true;
		return &c->e->dest->target;
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
	return &alt->dest.target;
}

/* Decides it's causal verdict from its ablations so far, at the workload's ceilings. */
static void decide(const struct explain_ctx *c, struct explain_item *it)
{
	const struct probe_results *p = c->e->run->probes;

	explain_decide(it, c->e->m->count, c->e->m->total_bytes, p ? p->create_per_s : 0,
		       p ? p->disk_write_bps : 0, p ? p->src_open_per_s : 0, p ? p->disk_read_bps : 0);
}

int explain_run(const struct explain_setup *e, const struct strategy_result *results, size_t n,
		struct explain_report *ex)
{
	struct explain_ctx c = { .e = e };
	double each = 0;

	cheapest_cipher(c.cheap_cipher, sizeof(c.cheap_cipher));
	explain_choose(e->list, results, n, e->recommended, ex);
	for (size_t i = 0; i < ex->n; i++) {
		pre_skip(&c, &ex->items[i]);
		c.total++;	/* the control */
		each += ex->items[i].baseline_seconds;
		for (int k = 0; k < EXPLAIN_REMOVED_COUNT; k++)
			if (ex->items[i].ab[k].status == EXPLAIN_NOT_RUN) {
				c.total++;
				each += ex->items[i].baseline_seconds;
			}
	}
	if (c.total)
		say(&c, "--explain will run %u more transfer%s of about %.0f s each (about %.0f s in all, and each removal's agent to start)",
		    c.total, c.total == 1 ? "" : "s", each / c.total, each);
	/* each strategy's control first: its removals are measured against it */
	for (size_t i = 0; i < ex->n; i++) {
		run_control(&c, &ex->items[i]);
		if (e->dest->agent.lost)
			goto out;
	}
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
			if (k == EXPLAIN_SOURCE_DISK && runner_load_source_cache(e->src_root, e->m) < 0) {
				c.done++;
				it->ab[k].status = EXPLAIN_FAILED;
				snprintf(it->ab[k].reason, sizeof(it->ab[k].reason), "cannot load the source: %s", err_msg());
				continue;
			}
			run_one(&c, it, (enum explain_removed)k, &o, t);
			/* so far, for an interrupt's report */
			decide(&c, it);
			if (e->dest->agent.lost)
				goto out;
		}
	}
out:
	alt_close(&c, &c.tmpfs);
	alt_close(&c, &c.loopback);
	alt_close(&c, &c.cipher);
	for (size_t i = 0; i < ex->n; i++)
		decide(&c, &ex->items[i]);
	return e->dest->agent.lost ? -1 : 0;
}
