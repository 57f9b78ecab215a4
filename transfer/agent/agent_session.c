/* The agent's request handlers for one control session. See agent.h and wire.h. */
#define _GNU_SOURCE
#include "agent/agent.h"

#include "clock.h"
#include "err.h"
#include "fsutil.h"
#include "parallel.h"
#include "agent/agent_cleanup.h"
#include "agent/agent_probes.h"
#include "agent/agent_open_up.h"
#include "agent/agent_root.h"
#include "sample/procstat.h"
#include "sample/dirty_limit.h"
#include "sample/rss.h"
#include "stream/beneath.h"
#include "stream/wire_auth.h"
#include "verify.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <unistd.h>

/*
 * The job's directory, opened beneath the root's descriptor with no link
 * followed (agent_root_open_dir), and its /proc/self/fd name in proc: what
 * is read or written through that name starts at this very directory,
 * never at a path someone may have swapped. Returns the fd (the caller
 * closes it) or -1 (error set).
 */
static int open_job_dir(struct agent_session *s, const struct agent_job *job, char proc[32])
{
	int fd = agent_root_open_dir(s->scratch, job->name);

	if (fd < 0)
		return err_wrap("destination of job %llu", (unsigned long long)job->id);
	beneath_proc_name(fd, proc);
	return fd;
}

typedef int (*agent_op_fn)(struct agent_session *s, json_object *req, json_object *reply);

static struct agent_job *find_job(struct agent_session *s, json_object *req)
{
	uint64_t id;

	if (wire_get_u64(req, "job", &id) < 0)
		return NULL;
	for (unsigned i = 0; i < s->njobs; i++)
		if (s->jobs[i].id == id && !s->jobs[i].removed && !s->jobs[i].parked)
			return &s->jobs[i];
	err_set("no destination with job id %llu", (unsigned long long)id);
	return NULL;
}

static int op_info(struct agent_session *s, json_object *req, json_object *reply)
{
	struct utsname u;
	char host[256] = "", fstype[32] = "", boot[40], dev[PROCSTAT_NAME_MAX];

	(void)req;
	uname(&u);
	gethostname(host, sizeof(host) - 1);
	fs_type_name_fd(s->scratch->fd, s->root, fstype, sizeof(fstype));
	json_object_object_add(reply, "hostname", json_object_new_string(host));
	json_object_object_add(reply, "kernel", json_object_new_string(u.release));
	json_object_object_add(reply, "machine", json_object_new_string(u.machine));
	json_object_object_add(reply, "cores", json_object_new_int((int)parallel_cpus()));
	/* what the page cache holds before writing back: the model's flush (docs/MODEL.md) */
	json_object_object_add(reply, "dirty_background_bytes",
			       json_object_new_int64((int64_t)dirty_limit_read()));
	json_object_object_add(reply, "root", json_object_new_string(s->root));
	/* null, as in the report, for what could not be read */
	json_object_object_add(reply, "root_fs", fstype[0] ? json_object_new_string(fstype) : NULL);
	/* the client compares these with its own: one disk under source and destination */
	procstat_boot_id(boot, sizeof(boot));
	json_object_object_add(reply, "boot_id", boot[0] ? json_object_new_string(boot) : NULL);
	json_object_object_add(reply, "root_device", procstat_device_for_path(s->root, dev, sizeof(dev)) == 0 ?
			       json_object_new_string(dev) : NULL);
	{
		struct statvfs v;

		json_object_object_add(reply, "root_free_bytes", fstatvfs(s->scratch->fd, &v) == 0 ?
				       json_object_new_int64((int64_t)((uint64_t)v.f_bavail * v.f_frsize)) :
				       NULL);
		/* null where the file system counts no inodes (btrfs) */
		json_object_object_add(reply, "root_free_inodes", fstatvfs(s->scratch->fd, &v) == 0 &&
				       v.f_files != 0 ? json_object_new_int64((int64_t)v.f_favail) : NULL);
	}
	{
		char cc[64] = "";
		FILE *f = fopen("/proc/sys/net/ipv4/tcp_congestion_control", "r");

		if (f) {
			if (fgets(cc, sizeof(cc), f))
				cc[strcspn(cc, "\n")] = '\0';
			fclose(f);
		}
		json_object_object_add(reply, "congestion_control",
				       cc[0] ? json_object_new_string(cc) : NULL);
	}
	return 0;
}

static int remove_job(struct agent_session *s, struct agent_job *job);

/*
 * A slot for a new destination: a removed job's, a never used one, or else
 * the oldest parked job's, which goes now. `--repeat 100` over three
 * strategies makes 300 destinations in one session; all slots live at once
 * only under --keep. NULL (error set) when none can be had.
 */
static struct agent_job *free_job_slot(struct agent_session *s)
{
	struct agent_job *oldest = NULL;

	for (unsigned i = 0; i < s->njobs; i++) {
		struct agent_job *j = &s->jobs[i];

		if (j->removed)
			return j;
		if (j->parked && (!oldest || j->id < oldest->id))
			oldest = j;
	}
	if (s->njobs < AGENT_MAX_JOBS)
		return &s->jobs[s->njobs++];
	if (!oldest) {
		err_set("too many destinations in one session (%d)%s", AGENT_MAX_JOBS,
			s->keep ? ": --keep keeps every one" : "");
		return NULL;
	}
	if (remove_job(s, oldest) < 0)
		return NULL;
	return oldest;
}

static int op_prepare(struct agent_session *s, json_object *req, json_object *reply)
{
	struct agent_job *job;
	const char *strategy;
	char fstype[32], proc[32];
	static uint64_t next_id = 1;
	int fd;

	if (wire_get_str(req, "strategy", &strategy) < 0)
		return -1;
	if (strlen(strategy) >= sizeof(((struct agent_job *)0)->strategy))
		return err_set("strategy name '%.64s...' is too long", strategy);
	for (const char *p = strategy; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '_'))
			return err_set("strategy name '%s' has characters not allowed in a directory name",
				       strategy);
	if (!(job = free_job_slot(s)))
		return -1;
	memset(job, 0, sizeof(*job));
	/* free until its directory exists */
	job->removed = 1;
	job->id = next_id++;
	snprintf(job->strategy, sizeof(job->strategy), "%.63s", strategy);
	snprintf(job->name, sizeof(job->name), "%llu-%s", (unsigned long long)job->id, job->strategy);
	if (snprintf(job->dest, sizeof(job->dest), "%s/%s", s->root, job->name) >= (int)sizeof(job->dest))
		return err_set("destination path too long under '%s'", s->root);
	/* the client computes the same path (agent_client_prepare) */
	if (agent_root_mkdir(s->scratch, job->name) < 0)
		return -1;
	job->removed = 0;
	/* the strategy's memory peak is measured from here to its verify (rss.h) */
	(void)rss_window_start();
	fd = open_job_dir(s, job, proc);
	if (fd < 0)
		return -1;
	fs_type_name(proc, fstype, sizeof(fstype));
	close(fd);
	json_object_object_add(reply, "job", json_object_new_int64((int64_t)job->id));
	json_object_object_add(reply, "dest", json_object_new_string(job->dest));
	json_object_object_add(reply, "dest_fs", json_object_new_string(fstype));
	return 0;
}

static int op_receive(struct agent_session *s, json_object *req, json_object *reply)
{
	struct agent_job *job = find_job(s, req);

	if (!job)
		return -1;
	return agent_receive(s, job, req, reply);
}

/* syncfs on the destination's file system: the run is not done until it is durable. */
static int op_flush(struct agent_session *s, json_object *req, json_object *reply)
{
	struct agent_job *job = find_job(s, req);
	clock_ns start;
	int fd;

	if (!job)
		return -1;
	fd = agent_root_open_dir(s->scratch, job->name);
	if (fd < 0)
		return err_wrap("destination of job %llu", (unsigned long long)job->id);
	start = clock_now();
	if (syncfs(fd) < 0) {
		err_errno("cannot flush '%s' to disk", job->dest);
		close(fd);
		return -1;
	}
	close(fd);
	json_object_object_add(reply, "seconds",
			       json_object_new_double(clock_seconds(start, clock_now())));
	return 0;
}

/*
 * Test hook, never set in normal use: XFERCMP_TEST_CORRUPT=1 in the agent's
 * environment flips one byte of the first non-empty file before verifying,
 * so the tests can prove that verification catches a corrupted transfer.
 */
static void test_corrupt(struct agent_session *s, int destfd)
{
	const char *env = getenv("XFERCMP_TEST_CORRUPT");

	if (!env || strcmp(env, "1"))
		return;
	for (size_t i = 0; i < s->manifest.count; i++) {
		const struct manifest_entry *e = &s->manifest.entries[i];
		unsigned char b;
		int fd;

		if (e->size == 0)
			continue;
		fd = beneath_open(destfd, e->path, O_RDWR | O_CLOEXEC, 0);
		if (fd < 0)
			return;
		if (pread(fd, &b, 1, (off_t)(e->size / 2)) == 1) {
			b ^= 0x5a;
			if (pwrite(fd, &b, 1, (off_t)(e->size / 2)) != 1)
				b = 0;
		}
		close(fd);
		return;
	}
}

/*
 * The agent's memory peak since the job's prepare (receiving, flushing and
 * verifying it) and since the agent began, in bytes; absent when /proc
 * cannot tell (the client then reports null).
 */
static void add_peak_rss(json_object *reply)
{
	uint64_t window = rss_window_peak(), life = rss_lifetime_peak();

	if (window)
		json_object_object_add(reply, "peak_rss_bytes", json_object_new_uint64(window));
	if (life)
		json_object_object_add(reply, "lifetime_peak_rss_bytes", json_object_new_uint64(life));
}

static int op_verify(struct agent_session *s, json_object *req, json_object *reply)
{
	struct agent_job *job = find_job(s, req);
	struct verify_report r;
	json_object *examples, *v;
	char summary[512], proc[32], mac_hex[2 * WIRE_MAC_BYTES + 1];
	unsigned char mac[WIRE_MAC_BYTES];
	clock_ns start;
	unsigned claims = 0, present, kept;
	struct opened_dirs opened;
	int fd, rc, verified;

	if (!job)
		return -1;
	/* what the strategy claims to carry beyond content: absent, nothing */
	if (json_object_object_get_ex(req, "claims", &v))
		claims = (unsigned)json_object_get_int64(v) & PRESERVE_ALL;
	if (!s->have_manifest)
		return err_set("no manifest was sent before verify");
	fd = open_job_dir(s, job, proc);
	if (fd < 0)
		return -1;
	test_corrupt(s, fd);
	start = clock_now();
	/* read from the directory the receivers wrote, by its descriptor */
	rc = agent_open_up(fd, &opened);
	if (rc == 0 && job->raw_content)
		rc = agent_content_verify(s, proc, opened.v, opened.n, 2 * parallel_cpus(), &r);
	else if (rc == 0)
		rc = verify_tree_noted(proc, &s->manifest, 2 * parallel_cpus(), opened.v, opened.n, &r);
	if (agent_open_up_restore(fd, &opened) < 0 && rc == 0)
		rc = -1;
	close(fd);
	if (rc < 0)
		return err_wrap("destination '%s'", job->dest);
	verify_summary(&r, summary, sizeof(summary));
	kept = verify_preserved(&s->manifest, &r, &present);
	examples = json_object_new_array();
	for (unsigned i = 0; i < r.nexamples; i++)
		json_object_array_add(examples, json_object_new_string(r.examples[i]));
	verified = verify_failures(&r, claims) == 0;
	if (wire_verdict_mac(s->key, job->id, verified, s->manifest_sha256, mac) < 0)
		return -1;
	wire_hex(mac, sizeof(mac), mac_hex);
	json_object_object_add(reply, "verified", json_object_new_boolean(verified));
	json_object_object_add(reply, "verdict_mac", json_object_new_string(mac_hex));
	json_object_object_add(reply, "present", json_object_new_int64(present));
	json_object_object_add(reply, "kept", json_object_new_int64(kept));
	json_object_object_add(reply, "files_ok", json_object_new_int64((int64_t)r.files_ok));
	json_object_object_add(reply, "differences",
			       json_object_new_int64((int64_t)verify_differences(&r)));
	json_object_object_add(reply, "summary", json_object_new_string(summary));
	json_object_object_add(reply, "examples", examples);
	json_object_object_add(reply, "seconds",
			       json_object_new_double(clock_seconds(start, clock_now())));
	add_peak_rss(reply);
	return 0;
}

static int remove_job(struct agent_session *s, struct agent_job *job)
{
	if (job->removed || s->keep)
		return 0;
	if (agent_root_remove(s->scratch, job->name) < 0)
		return -1;
	job->removed = 1;
	return 0;
}

/*
 * Whether a finished destination may wait for the session's end rather than go now. It waits
 * so that no run pays for the removal of the one before it: on ext4 without a journal (the
 * testbed's disk) an inode freed in the last 60 s is not handed out again while its
 * inode-table block is cached, so creates just after a mass removal scan past every freed
 * inode. Seen here: 30,000 creates took 18.7 s right after 30,000 removals, 2.6 s with the
 * cache dropped first. It waits only while the disk keeps room for two more copies of the
 * workload plus 1 GiB, and as many inodes; a full disk gets its space back at once.
 */
static int room_to_park(const struct agent_session *s)
{
	const uint64_t margin = 1ull << 30;
	uint64_t need_bytes, need_inodes;
	struct statvfs v;

	if (!s->have_manifest || fstatvfs(s->scratch->fd, &v) < 0)
		return 0;
	need_bytes = 2 * s->manifest.total_bytes + margin;
	need_inodes = 2 * (uint64_t)s->manifest.count + 10000;
	if ((uint64_t)v.f_bavail * v.f_frsize < need_bytes)
		return 0;
	/* file systems that do not count inodes (btrfs) report none in all */
	return v.f_files == 0 || (uint64_t)v.f_favail >= need_inodes;
}

static int op_cleanup(struct agent_session *s, json_object *req, json_object *reply)
{
	struct agent_job *job = find_job(s, req);

	if (!job)
		return -1;
	if (!s->keep && room_to_park(s)) {
		job->parked = 1;
		/* its files, directories, links and its own directory: what "remove" will count */
		job->entries = manifest_nodes(&s->manifest) + 1;
		json_object_object_add(reply, "parked", json_object_new_boolean(1));
		return 0;
	}
	return remove_job(s, job);
}

static int remove_jobs(struct agent_session *s)
{
	int rc = 0;

	for (unsigned i = 0; i < s->njobs; i++)
		if (remove_job(s, &s->jobs[i]) < 0)
			rc = -1;
	return rc;
}

static const struct {
	const char *name;
	agent_op_fn fn;
} ops[] = {
	{ "info", op_info },
	{ "prepare", op_prepare },
	{ "receive", op_receive },
	{ "flush", op_flush },
	{ "verify", op_verify },
	{ "cleanup", op_cleanup },
	{ "sample_start", agent_op_sample_start },
	{ "sample_stop", agent_op_sample_stop },
	{ "probe_disk", agent_op_probe_disk },
	{ "probe_create", agent_op_probe_create },
	{ "content_macs", agent_op_content_macs },
	{ "remove", agent_op_remove },
	{ "remove_status", agent_op_remove_status },
	{ "leftovers", agent_op_leftovers },
};

/*
 * One MANIFEST frame: its (authenticated) piece is added to the text so far,
 * held within the session's cap: the pieces themselves and, once parsed, as
 * much again for the entries (agent.h). The last piece (no WIRE_FLAG_MORE)
 * parses the whole. *whole: set when it did, so the caller answers once for
 * the whole manifest. Returns 0 or -1 (error set; what came is dropped).
 */
static int take_manifest(struct agent_session *s, const char *payload, uint32_t len, int more,
			 int *whole)
{
	uint64_t total = s->pending_len + len;
	int rc = 0;

	*whole = !more;
	if (s->pending_len == 0 && s->have_manifest) {
		agent_content_release(s);
		manifest_release(&s->manifest);
		s->have_manifest = 0;
		s->manifest_bytes = 0;
	}
	if (total > WIRE_MAX_MANIFEST || 2 * total > AGENT_SESSION_MEM_MAX) {
		rc = err_set("a manifest of more than %llu bytes is over the agent's cap (%u MiB, and %llu MiB of memory a session)",
			     (unsigned long long)(total - 1), WIRE_MAX_MANIFEST >> 20,
			     (unsigned long long)(AGENT_SESSION_MEM_MAX >> 20));
	} else if (total > s->pending_cap) {
		size_t cap = s->pending_cap ? s->pending_cap : WIRE_MAX_FRAME;
		char *grown;

		while (cap < total)
			cap = cap * 2 < WIRE_MAX_MANIFEST ? cap * 2 : WIRE_MAX_MANIFEST;
		grown = realloc(s->pending, cap);
		if (!grown)
			rc = err_set("out of memory for a manifest of %llu bytes", (unsigned long long)total);
		else {
			s->pending = grown;
			s->pending_cap = cap;
		}
	}
	if (rc == 0 && len > 0) {
		memcpy(s->pending + s->pending_len, payload, len);
		s->pending_len = total;
	}
	/* (an empty manifest has no buffer: parse "", which manifest_parse refuses) */
	if (rc == 0 && !more) {
		const char *text = s->pending ? s->pending : "";

		if (manifest_parse(&s->manifest, text, s->pending_len) < 0 ||
		    wire_sha256(text, s->pending_len, s->manifest_sha256) < 0)
			rc = -1;
		else {
			s->have_manifest = 1;
			s->manifest_bytes = s->pending_len;
		}
	}
	if (rc < 0 || !more) {
		/* a failed piece ends this manifest: its answer is the error */
		*whole = 1;
		free(s->pending);
		s->pending = NULL;
		s->pending_len = s->pending_cap = 0;
	}
	return rc;
}

static int dispatch(struct agent_session *s, json_object *req, json_object *reply, int *bye)
{
	const char *op;

	if (wire_get_str(req, "op", &op) < 0)
		return -1;
	if (!strcmp(op, "bye")) {
		/* before the reply, so the client waits for the parked destinations to go */
		json_object *bg;

		*bye = 1;
		agent_remove_wait(s);
		if (json_object_object_get_ex(req, "background", &bg) && json_object_get_boolean(bg) &&
		    agent_bye_background(s, reply) == 0)
			return 0;
		return remove_jobs(s);
	}
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(op, ops[i].name))
			return ops[i].fn(s, req, reply);
	return err_set("unknown request '%s'", op);
}

/* Whether a destination is in use: prepared, and not yet removed or parked. */
static int job_in_use(const struct agent_session *s)
{
	for (unsigned i = 0; i < s->njobs; i++)
		if (!s->jobs[i].removed && !s->jobs[i].parked)
			return 1;
	return 0;
}

void agent_session_run(struct agent_session *s)
{
	int bye = 0;

	while (!bye) {
		enum wire_type type;
		char *payload;
		uint32_t len;
		json_object *req = NULL, *reply = json_object_new_object();
		int rc;

		/* the client owns the pace, within the idle limits of agent.h */
		int idle_s = job_in_use(s) ? AGENT_SESSION_BUSY_S : s->session_idle_s;

		if (wire_chan_recv(&s->ctl, idle_s * 1000, &type, &payload, &len) < 0) {
			/*
			 * A header refused for what it says (a frame over its
			 * type's cap, an unknown type) is answered with why
			 * before the session ends, the stream being lost; a
			 * connection that failed or a frame that failed its MAC
			 * is not answered.
			 */
			if (wire_last_fault() == WIRE_FAULT_NONE)
				wire_chan_send_error(&s->ctl, err_msg());
			json_object_put(reply);
			break;
		}
		if (type == WIRE_MANIFEST) {
			int whole;

			rc = take_manifest(s, payload, len, s->ctl.more, &whole);
			if (!whole) {
				/* more of it comes: the answer is for the whole */
				free(payload);
				json_object_put(reply);
				continue;
			}
		} else if (s->pending_len) {
			rc = err_set("protocol error: a request in the middle of a manifest");
			free(s->pending);
			s->pending = NULL;
			s->pending_len = s->pending_cap = 0;
		} else if (type != WIRE_REQUEST) {
			rc = err_set("protocol error: expected a request");
		} else if ((rc = wire_parse_json(payload, len, &req)) == 0) {
			rc = dispatch(s, req, reply, &bye);
		}
		free(payload);
		json_object_put(req);
		if (rc == 0)
			rc = wire_chan_send_json(&s->ctl, WIRE_OK, reply);
		else
			rc = wire_chan_send_error(&s->ctl, err_msg());
		json_object_put(reply);
		if (rc < 0)
			break;
	}
	agent_sampling_release(s);
	agent_remove_wait(s);
	remove_jobs(s);
	agent_content_release(s);
	if (s->have_manifest)
		manifest_release(&s->manifest);
	free(s->pending);
	s->pending = NULL;
}
