#ifndef XFERCMP_AGENT_H
#define XFERCMP_AGENT_H

/*
 * The agent (`xfercmp serve`, also built as xfercmp-agent) runs on the
 * destination. It is the mirror of the client: it receives the raw-TCP
 * strategies' streams, flushes and verifies what every strategy wrote, and
 * answers only peers that prove they hold the session key (wire_auth.h). It writes only inside
 * its scratch root and removes what it made when the session ends.
 */

#include "content_mac.h"
#include "manifest.h"
#include "stream/wire.h"
#include "verify.h"

#include <stdint.h>

struct sampler;
struct agent_root;

struct agent_opts {
	const char *listen;	/* "ADDR:PORT", PORT 0 = any; default 0.0.0.0:5210 */
	const char *root;	/* where the agent makes its scratch root (agent_root.h);
				 * NULL = the scratch base, /var/tmp */
	const char *token_file;	/* "-" = first line of stdin */
	int once;		/* exit when the first session ends */
	int keep;		/* keep destinations after a session (debugging) */
	int idle_timeout_s;	/* exit after this long with no session */
	int session_idle_s;	/* end a silent session (AGENT_SESSION_IDLE_S); 0 = the default */
};

#define AGENT_DEFAULT_PORT 5210
#define AGENT_DEFAULT_IDLE_S 600
#define AGENT_HELLO_TIMEOUT_MS 5000
#define AGENT_MAX_JOBS 256
#define AGENT_MAX_STREAMS 64
/*
 * Bounds on what one authenticated session may make the agent hold: the
 * receive buffers of its streams (receiver.stream_memory each) and twice
 * its manifest's text (the parsed entries and their paths), at most
 * AGENT_SESSION_MEM_MAX together: 1 GiB, e.g. 30 streams of "frames"
 * (34 MiB each at worst) where 64 would hold 2.2 GiB.
 */
#define AGENT_SESSION_MEM_MAX (1ull << 30)
/*
 * A session that sends no request for session_idle_s (--session-idle,
 * default AGENT_SESSION_IDLE_S: 1 h, since the client may generate a large
 * workload between connecting and its first manifest) while no destination
 * is in use ends, its destinations removed; while one is in use (a strategy
 * of the client's own, say tar-ssh over a slow link, may run for hours
 * without a request) the limit is AGENT_SESSION_BUSY_S.
 */
#define AGENT_SESSION_IDLE_S 3600
#define AGENT_SESSION_BUSY_S (24 * 3600)

/* Serves until --once's session ends, the idle timeout, SIGINT/SIGTERM, or stdin closes
 * (when the token came from stdin). Returns 0 or -1 (error set). */
int agent_serve(const struct agent_opts *o);

/* One destination directory, made for one strategy run. */
struct agent_job {
	uint64_t id;
	char name[96];		/* JOB-STRATEGY, its directory in the scratch root */
	char dest[4096];	/* ROOT/JOB-STRATEGY, for the receivers and the client */
	char strategy[64];
	int removed;
	int parked;	/* verified and done with, removed when the session ends */
	uint64_t entries;	/* when parked: what its removal takes, by the manifest (agent_cleanup.c) */
	int raw_content;	/* a receive brought large files' content raw (stream/frames.h):
				 * its verify checks their keyed hashes (agent_content.c) */
};

/* The state of one control session, shared by the request handlers. */
struct agent_session {
	struct wire_chan ctl;	/* the authenticated control connection */
	int listen_fd;		/* for the data connections of a receive */
	unsigned char key[WIRE_KEY_BYTES];	/* the session key (wire_auth.h) */
	const char *root;	/* the scratch root's path, for messages and the client */
	struct agent_root *scratch;	/* the scratch root: everything the agent does in it
					 * goes through its descriptor */
	int keep;
	int session_idle_s;	/* see AGENT_SESSION_IDLE_S */
	struct manifest manifest;
	int have_manifest;
	uint64_t manifest_bytes;	/* its text's size, for the memory cap */
	char *pending;		/* a manifest's pieces so far (WIRE_FLAG_MORE), until the last */
	size_t pending_len, pending_cap;
	unsigned char manifest_sha256[WIRE_MAC_BYTES];	/* of its text: "verify"'s verdict_mac */
	/* "content_macs": the keyed hash of each large file, by manifest entry; NULL until sent */
	unsigned char (*content_macs)[CONTENT_MAC_BYTES];
	unsigned char *content_have;	/* per entry: its hash was sent */
	struct agent_job jobs[AGENT_MAX_JOBS];
	unsigned njobs;
	struct sampler *sampler;	/* while a "sample_start" is in force */
	/*
	 * Hands the scratch root to a remover of its own (agent_leftover.h)
	 * and leaves it to it; NULL when the agent serves more sessions than
	 * one from that root. 0 or -1 (error set; nothing changed).
	 */
	int (*detach_root)(void);
};

/* Handles requests until "bye" or the connection closes; removes the jobs (those parked
 * by "cleanup" included) before it answers "bye". */
void agent_session_run(struct agent_session *s);

/* The "receive" request: accepts the data connections and runs the receiver. */
struct json_object;
int agent_receive(struct agent_session *s, struct agent_job *job, json_object *req,
		  json_object *reply);

/*
 * "content_macs": {"macs": [[INDEX, "HEX"], ...]}, the keyed hashes
 * (content_mac.h, under wire_content_key) of manifest entries larger than
 * FRAME_RAW_MIN, in as many requests as the client needs; a new manifest
 * drops them (agent_content_release). agent_content_verify verifies a job
 * whose content came raw: verify_tree_keyed with them.
 */
int agent_op_content_macs(struct agent_session *s, json_object *req, json_object *reply);
int agent_content_verify(struct agent_session *s, const char *root,
			 const struct verify_mode_note *notes, size_t n, unsigned threads,
			 struct verify_report *r);
void agent_content_release(struct agent_session *s);

/* "sample_start" / "sample_stop": the agent's /proc counters while a strategy runs. */
int agent_op_sample_start(struct agent_session *s, json_object *req, json_object *reply);
int agent_op_sample_stop(struct agent_session *s, json_object *req, json_object *reply);
/* Stops a sampler left running (the client went away). */
void agent_sampling_release(struct agent_session *s);

#endif
