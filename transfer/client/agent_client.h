#ifndef XFERCMP_AGENT_CLIENT_H
#define XFERCMP_AGENT_CLIENT_H

/* The client's side of the agent's control protocol (wire.h). */

#include "err.h"
#include "manifest.h"
#include "netaddr.h"
#include "ssh/ssh_conn.h"
#include "stream/wire.h"
#include "stream/xfer_stats.h"

#include <stdbool.h>
#include <stdint.h>

struct sampler_summary;
struct ssh_tunnel;

struct agent_client {
	struct wire_chan ctl;	/* the authenticated control connection; fd -1 once lost */
	int lost;		/* the connection failed: every later call fails at once */
	char label[256];	/* the host as the user named it, for messages (default: host) */
	char host[256];		/* as given to agent_client_connect: a name or an address */
	char port[16];
	char addr[NET_ADDR_TEXT_MAX];	/* the numeric address the control connection reached
					 * (IPv6 without brackets); data connections go there */
	char where[NET_ADDR_TEXT_MAX + 16];	/* addr:port for messages, "[2001:2::2]:42277", with
						 * " through ssh" when via_ssh */
	unsigned char key[WIRE_KEY_BYTES];	/* the session key, from the token (wire_auth.h) */
	json_object *info;	/* the agent's answer to "info" */
	char root[4096];	/* its scratch root, from that answer: every dest is beneath */
	bool have_manifest;	/* a manifest was sent: "verify" must answer with its verdict_mac */
	unsigned char manifest_sha256[WIRE_MAC_BYTES];	/* of the manifest sent */
	struct err_saved lost_why;	/* how the connection was lost, repeated by later calls */
	/*
	 * The source the manifest describes (agent_client_set_source), for the
	 * keyed hashes of the large files (agent_client_send_content_macs):
	 * raw_content says a receive brought their content raw (stream/frames.h),
	 * content_macs_sent that the agent has them for the manifest sent.
	 */
	const char *src_root;
	const struct manifest *src_manifest;
	bool raw_content, content_macs_sent;
	/*
	 * Receives go to the agent's null sink (agent/null_sink.h): set only by
	 * the runner for --explain's "no destination disk" run (runner_opts),
	 * never by an option; such a run is checked in the stream, not verified.
	 */
	bool null_sink;
	bool bye_said;		/* the session was ended (agent_client_bye_background) */
	/*
	 * The way through ssh (agent_client_connect_ssh): ssh.target NULL when
	 * there is none. via_ssh: every connection (control and each data
	 * stream) is a direct-tcpip channel of an SSH session of its own
	 * (ssh/ssh_tunnel.h), so what crosses the network is encrypted and the
	 * cipher is in the path. direct_failed: why the direct connection
	 * failed when the client fell back to ssh ("" when it did not).
	 */
	struct ssh_conn_opts ssh;
	int via_ssh;
	char direct_failed[ERR_MAX];
	struct ssh_tunnel *ctl_tunnel;	/* the control connection's, when via_ssh */
	struct ssh_tunnel **data_tunnels;	/* the data connections' still open */
	size_t ndata_tunnels, data_tunnels_cap;
};

/* The longest wait for a connection to the agent: a TCP connect, or the host's sshd opening a tunnel to it. */
#define AGENT_CONNECT_TIMEOUT_MS 10000

/*
 * Connects to host:port (a name, or an address: IPv6 without brackets) and
 * makes the handshake of wire_auth.h with the key derived from token: the
 * agent must prove it holds the key before anything else is sent. Returns 0
 * or -1 (error set). When the port cannot be reached at all the error names
 * the address tried ("[2001:2::2]:42277") and what to do.
 */
int agent_client_connect(struct agent_client *c, const char *host, const char *port,
			 const char *token);

/*
 * The same for an agent started over ssh (ssh/ssh_target.h), host:port
 * being where it listens as the host sees it. With force (--agent-via-ssh)
 * every connection goes through ssh from the start; else the control
 * connection is tried directly first, and when that is refused, times out
 * or finds no route (agent_client_can_tunnel), through ssh, c->direct_failed
 * saying why (the caller tells the user: it changes what the raw-TCP
 * strategies measure). ssh's strings must outlive c. Returns 0 or -1
 * (error set; when both ways failed, it names both).
 */
int agent_client_connect_ssh(struct agent_client *c, const char *host, const char *port,
			     const char *token, const struct ssh_conn_opts *ssh, int force);

/*
 * 1 when a direct connection that failed with errno e may be made through
 * ssh instead: refused, timed out, or no route (a jump host's far side, a
 * firewall that admits only ssh); 0 for other failures.
 */
int agent_client_can_tunnel(int e);

/*
 * Sends a request; *reply (owned by the caller) is the OK object. -1 (error set) on ERROR.
 * When the connection itself fails (the agent died, the link or the host went
 * down), the error says "lost the connection to the agent on LABEL ..." with
 * the cause, the connection is closed and every later call fails at once.
 */
int agent_client_call(struct agent_client *c, json_object *req, json_object **reply);

/* Waits for the reply that ends a receive. */
int agent_client_await(struct agent_client *c, json_object **reply);

/*
 * A request for agent_client_call_request: {"op":op}, with "job" when job
 * is not 0; the caller may add to it.
 */
json_object *agent_client_request(const char *op, uint64_t job);

/* agent_client_call with req consumed; reply NULL: the reply is dropped. */
int agent_client_call_request(struct agent_client *c, json_object *req, json_object **reply);

int agent_client_send_manifest(struct agent_client *c, const struct manifest *m);

/*
 * The tree the manifest sent describes, for the keyed hashes a verify may
 * need (both must outlive c's use). agent_client_verify sends them
 * (agent_client_send_content_macs) before it verifies a job whose receive
 * brought large files' content raw (stream/frames.h), once a manifest:
 * the keyed hash (workloads/content_mac.h) of each file larger than
 * FRAME_RAW_MIN, read from the source, its XXH3 checked against the
 * manifest on the way. Returns 0 or -1 (error set).
 */
void agent_client_set_source(struct agent_client *c, const char *src_root,
			     const struct manifest *m);
int agent_client_send_content_macs(struct agent_client *c);

/*
 * The requests, one function each (agent_requests.c; the agent's side:
 * agent/agent_session.c, agent_receive.c, agent_sampling.c, agent_probes.c). Each returns 0 or -1
 * (error set): the agent's error, "lost the connection ..." as
 * agent_client_call says, or "agent: protocol error: ..." for a reply that
 * lacks a field the function returns.
 */

/*
 * "prepare": a fresh destination for a run of the strategy named strategy
 * ("probe" for the network probe). Fills *job, dest (its absolute path on the
 * host; NULL when not wanted) and fs (its file system type). The client
 * decides the path, ROOT/JOB-STRATEGY (the agent's rule, agent_session.c):
 * a reply naming any other is refused, so no answer can steer the SSH
 * strategies or a cmd: template to write elsewhere.
 */
int agent_client_prepare(struct agent_client *c, const char *strategy, uint64_t *job, char *dest,
			 size_t dest_len, char *fs, size_t fs_len);

/* "flush": the job's destination is on durable storage when this returns 0. */
int agent_client_flush(struct agent_client *c, uint64_t job);

/* The agent's answer to "verify". */
struct agent_verify {
	bool verified;		/* content, names and every claimed kind match the manifest */
	unsigned present;	/* enum preserve_bits: the kinds the manifest holds */
	unsigned kept;		/* of those, the kinds the copy kept */
	bool content_ok;	/* no difference in content or names */
	char summary[512];	/* "" when the agent gave none; the agent sends at most 511 */
	bool has_example;
	char example[ERR_MAX];	/* the first difference, when has_example */
	/* the agent's peak resident bytes since the job's prepare, and over its life; 0 = not told */
	uint64_t peak_rss_bytes, lifetime_peak_rss_bytes;
};

/*
 * "verify": compares the job's destination with the manifest sent before,
 * holding it to claims (enum preserve_bits) beyond content and names.
 */
int agent_client_verify(struct agent_client *c, uint64_t job, unsigned claims,
			struct agent_verify *out);

/*
 * "cleanup": the job's destination goes, now or when the session ends.
 * *parked (may be NULL) says the agent kept it until then.
 */
int agent_client_cleanup(struct agent_client *c, uint64_t job, bool *parked);

/*
 * "receive": the agent runs its receiver named receiver on `streams` data
 * connections of job. Returns once the agent is ready for them (open them
 * with agent_client_open_data); its account comes with
 * agent_client_receive_end. rcvbuf_bdp_bytes > 0 asks the agent to size
 * each stream's receive buffer for that many bytes in flight (its own
 * sysctls decide: stream/sockbuf_plan.h); 0 leaves them to autotuning.
 */
int agent_client_receive(struct agent_client *c, uint64_t job, const char *receiver,
			 unsigned streams, double rcvbuf_bdp_bytes);

/*
 * Waits for the reply that ends a receive, once every data connection is
 * closed, and fills *got with what the agent received (and, when it sized
 * its receive buffers, what it granted and its limits).
 */
int agent_client_receive_end(struct agent_client *c, struct recv_stats *got);

/* "sample_start": the agent samples its /proc counters for job until sample_stop. */
int agent_client_sample_start(struct agent_client *c, uint64_t job);

/*
 * "sample_stop": ends the agent's sampling; *have says whether its reply held
 * a summary, then in *summary.
 */
int agent_client_sample_stop(struct agent_client *c, struct sampler_summary *summary, bool *have);

/* What one of the agent's own probes answered. */
struct agent_probe_reply {
	double rate;		/* the reply's rate field */
	uint64_t bytes;		/* its "bytes", 0 when it has none */
	char fs[32];		/* its "dest_fs", "" when it has none */
};

/*
 * One of the agent's probes ("probe_disk", "probe_create"): op with the
 * budget and, when max_bytes is not 0, that cap; out->rate from the reply's
 * rate_key. Errors name op first.
 */
int agent_client_probe(struct agent_client *c, const char *op, double seconds, uint64_t max_bytes,
		       const char *rate_key, struct agent_probe_reply *out);
/*
 * "probe_create" at each of depths[0..n) (files in flight) within seconds in
 * all; per_s[i] the rate at depths[i], its share of one syncfs included;
 * made_per_s[i] (may be NULL) the same without the syncfs; cpu_s[i] (may be
 * NULL) the agent's CPU one create took there (0 when the agent did not
 * say). Returns 0 or -1 (error set).
 */
int agent_client_probe_creates(struct agent_client *c, double seconds, const unsigned *depths,
			       size_t n, double *per_s, double *made_per_s, double *cpu_s);

/*
 * Opens data connection `stream` of job, making the same handshake bound to
 * job and stream; returns the fd or -1 (error set). key (may be NULL) gets
 * the connection's client-to-agent key, which tags its segments
 * (stream/seal_stream.h).
 */
int agent_client_open_data(struct agent_client *c, uint64_t job, unsigned stream,
			   unsigned char key[WIRE_KEY_BYTES]);

/*
 * The caller closed every data connection it opened: ends their tunnels
 * through ssh, if any (agent_client_receive_end calls it). Returns 0, or -1
 * (error set) when a tunnel's pump stopped early: then what the sender
 * wrote may not all have reached the agent.
 */
int agent_client_data_closed(struct agent_client *c);

/*
 * Says bye and closes. The agent removes the destinations it kept before it
 * answers: returns -1 (error set, naming what is left) when it could not,
 * else 0 (also when the connection was already lost: the agent's own end
 * then removes its root).
 */
int agent_client_close(struct agent_client *c);

/*
 * 1 when the agent is on this machine (its control connection's peer is a
 * loopback address, or a local socket), 0 when data to it crosses a network
 * (always 0 through ssh: the socket pair to the tunnel is local, the agent
 * is not).
 */
int agent_client_is_local(const struct agent_client *c);

/*
 * 1 when what goes to the agent crosses a network unencrypted: neither on
 * this machine nor through ssh. The cleartext gate (--allow-cleartext)
 * asks this.
 */
int agent_client_in_clear(const struct agent_client *c);

/*
 * A TCP connection with a bounded connect time to each address host
 * resolves to, in turn; returns the fd, or -1 with the error naming the
 * last address tried and errno that attempt's cause.
 */
int tcp_connect(const char *host, const char *port, int timeout_ms);

#endif
