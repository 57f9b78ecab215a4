/*
 * The agent's "receive" request: the mirror of a raw-TCP strategy's send
 * side. The agent answers {"ready":true}, accepts the data connections of
 * that job (each proves the session key for that job and stream number), runs the
 * receiver on each in its own thread, and then answers with what arrived.
 */
#define _GNU_SOURCE
#include "agent/agent.h"

#include "agent/agent_gate.h"
#include "agent/agent_root.h"
#include "clock.h"
#include "err.h"
#include "agent/null_sink.h"
#include "agent/receivers.h"
#include "stream/sock_size.h"
#include "stream/wire_auth.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* How long the agent waits for the client to open all data connections. */
#define DATA_ACCEPT_TIMEOUT_MS 30000

struct stream_job {
	const struct receiver *rx;
	void *shared;		/* rx->begin's, for rx->receive_part */
	int destfd;		/* the job's directory: everything is written beneath it */
	const char *dest;	/* its path, for messages */
	int fd;
	const struct recv_opts *opts;	/* the stream's key */
	int rc;
	struct recv_stats st;
	struct err_saved error;
};

static void *stream_main(void *arg)
{
	struct stream_job *j = arg;
	clock_ns cpu = clock_thread_cpu();

	if (j->rx->begin)
		j->rc = j->rx->receive_part(j->shared, j->dest, j->fd, j->opts, &j->st);
	else
		j->rc = j->rx->receive(j->fd, j->opts, j->destfd, j->dest, &j->st);
	j->st.cpu_s = clock_seconds(cpu, clock_thread_cpu());
	if (j->rc < 0)
		err_save(&j->error);
	return NULL;
}

/* What a data connection of the receive in progress must say in its hello. */
struct data_wanted {
	uint64_t job;
	unsigned n;
	const int *fds;
};

static int data_hello(void *arg, json_object *hello)
{
	const struct data_wanted *w = arg;
	const char *role;
	uint64_t job, stream;

	if (wire_get_str(hello, "role", &role) < 0 || strcmp(role, "data") ||
	    wire_get_u64(hello, "job", &job) < 0 || job != w->job ||
	    wire_get_u64(hello, "stream", &stream) < 0 || stream >= w->n || w->fds[stream] >= 0)
		return err_set("not a data connection of the transfer in progress");
	return 0;
}

/*
 * Accepts `n` data connections for job into fds[stream], each proving the
 * session key for that job and stream; opts[stream] gets the key its
 * segments are checked with (the connection's client-to-agent key).
 * Strangers are turned away; one that stalls in its handshake holds up none
 * of the others (agent_gate.h).
 */
static int accept_streams(struct agent_session *s, uint64_t job, unsigned n, int *fds,
			  struct recv_opts *opts)
{
	clock_ns deadline = clock_now() + (clock_ns)DATA_ACCEPT_TIMEOUT_MS * 1000000u;
	struct data_wanted wanted = { .job = job, .n = n, .fds = fds };
	struct agent_gate gate;
	unsigned have = 0;
	int rc = 0;

	agent_gate_init(&gate, s->listen_fd);
	while (have < n) {
		clock_ns now = clock_now();
		struct wire_binding b;
		struct wire_chan data = { .fd = -1 };
		int fd;

		fd = now >= deadline ? -2 :
		     agent_gate_accept(&gate, s->key, (int)((deadline - now) / 1000000u) + 1, data_hello,
				       &wanted, &data, &b);
		if (fd == -2) {
			rc = err_set("only %u of %u data connections arrived within %d s", have, n,
				     DATA_ACCEPT_TIMEOUT_MS / 1000);
			break;
		}
		if (fd < 0) {
			rc = err_wrap("cannot wait for data connections");
			break;
		}
		/* two that claimed one stream: the first to prove the key has it */
		if (strcmp(b.role, "data") || b.job != job || b.stream >= n || fds[b.stream] >= 0) {
			wire_chan_wipe(&data);
			close(fd);
			continue;
		}
		fds[b.stream] = fd;
		memcpy(opts[b.stream].key, data.recv_key, sizeof(opts[b.stream].key));
		wire_chan_wipe(&data);
		have++;
	}
	agent_gate_release(&gate);
	return rc;
}

/*
 * The client asked for receive buffers sized for rcvbuf_bdp_bytes in
 * flight (a single stream on a long path: raw_stream_open_sized): each data
 * connection gets what this machine's sysctls allow (as root, past
 * net.core.rmem_max: stream/sockbuf_plan.h). Returns true when it was
 * asked, with the limits in *lim, for receive_buffers_reply.
 */
static bool size_receive_buffers(json_object *req, const int *fds, unsigned n, struct sockbuf_limits *lim)
{
	json_object *v;
	struct sockbuf_plan plan;

	if (!json_object_object_get_ex(req, "rcvbuf_bdp_bytes", &v) ||
	    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		return false;
	sock_size_limits(SOCKBUF_RECV, lim);
	sockbuf_plan_make(SOCKBUF_RECV, json_object_get_double(v), lim, &plan);
	for (unsigned i = 0; i < n; i++)
		sock_size_apply(fds[i], &plan);
	return true;
}

/*
 * The reply's "rcvbuf": stream 0's receive buffer once it has ended (as
 * set, or as far as autotuning grew it) and this machine's limits, for the
 * client's report.
 */
static void receive_buffers_reply(int fd, const struct sockbuf_limits *lim, json_object *reply)
{
	const struct sockbuf_plan asis = { .side = SOCKBUF_RECV };
	double granted = sock_size_apply(fd, &asis);
	json_object *o = json_object_new_object();

	json_object_object_add(o, "granted_bytes", json_object_new_double(granted));
	json_object_object_add(o, "tcp_rmem_max_bytes", json_object_new_double(lim->auto_max));
	json_object_object_add(o, "rmem_max_bytes", json_object_new_double(lim->set_max));
	json_object_object_add(o, "may_force", json_object_new_boolean(lim->may_force));
	json_object_object_add(reply, "rcvbuf", o);
}

/*
 * The request's receiver and stream count, checked against what the
 * receiver takes and the session's memory cap (agent.h).
 */
static int receive_request(const struct agent_session *s, json_object *req,
			   const struct receiver **rx, unsigned *streams)
{
	const char *name;
	uint64_t n, fixed, mem;

	if (wire_get_str(req, "receiver", &name) < 0 || wire_get_u64(req, "streams", &n) < 0)
		return -1;
	if (!(*rx = receiver_find(name)))
		return -1;
	if (n == 0 || n > (*rx)->max_streams || n > AGENT_MAX_STREAMS)
		return err_set("receiver '%s' takes 1 to %u streams, not %llu", name,
			       (*rx)->max_streams < AGENT_MAX_STREAMS ? (*rx)->max_streams : AGENT_MAX_STREAMS,
			       (unsigned long long)n);
	if ((*rx)->carries_tree && !s->have_manifest)
		return err_set("no manifest was sent before a receive of '%s': the agent bounds what a receive may bring by it",
			       name);
	/* the manifest (text and entries), and what a frames receive notes for its end */
	fixed = 2 * s->manifest_bytes;
	if ((*rx)->carries_tree && (*rx)->kind == RECV_FRAMES)
		fixed += recv_bounds_tree_memory(&s->manifest, s->manifest_bytes);
	mem = n * (*rx)->stream_memory + fixed;
	if (mem > AGENT_SESSION_MEM_MAX)
		return err_set("%llu streams of receiver '%s' would hold up to %llu MiB with the manifest, over the agent's cap of %llu MiB a session: use -P %llu or fewer",
			       (unsigned long long)n, name, (unsigned long long)(mem >> 20),
			       (unsigned long long)(AGENT_SESSION_MEM_MAX >> 20),
			       (unsigned long long)(fixed < AGENT_SESSION_MEM_MAX ?
						    (AGENT_SESSION_MEM_MAX - fixed) / (*rx)->stream_memory : 0));
	*streams = (unsigned)n;
	return 0;
}

/* Tells the client to connect: the final answer comes when the streams end. */
static int send_ready(struct wire_chan *ctl)
{
	json_object *ready = json_object_new_object();
	int rc;

	json_object_object_add(ready, "ready", json_object_new_boolean(1));
	rc = wire_chan_send_json(ctl, WIRE_OK, ready);
	json_object_put(ready);
	return rc;
}

/*
 * Runs rx on each of the n connections in fds[] in a thread of its own,
 * writing beneath destfd (dest: its path, for messages), and adds what
 * they received to *total; for a receiver with begin/end, ends the receive
 * once every stream has returned (for
 * frames: the hard links, mtimes and directory modes wait for all streams).
 * Returns 0, or -1 (error set: the first stream that failed, the thread that
 * could not start, or the end). Leaves the fds open.
 */
static int run_receivers(const struct receiver *rx, int destfd, const char *dest, const int *fds,
			 const struct recv_opts *opts, unsigned n, struct recv_stats *total)
{
	struct stream_job *jobs = calloc(n, sizeof(*jobs));
	pthread_t *tids = calloc(n, sizeof(*tids));
	void *shared = NULL;
	int rc = 0;

	if (!jobs || !tids) {
		free(jobs);
		free(tids);
		return err_set("out of memory for %u streams", n);
	}
	if (rx->begin && !(shared = rx->begin(destfd, dest))) {
		free(jobs);
		free(tids);
		return -1;
	}
	for (unsigned i = 0; i < n; i++) {
		int e;

		jobs[i] = (struct stream_job){ .rx = rx, .shared = shared, .destfd = destfd,
					  .dest = dest, .fd = fds[i], .opts = &opts[i] };
		if ((e = pthread_create(&tids[i], NULL, stream_main, &jobs[i])) == 0)
			continue;
		/*
		 * Not run in line instead: its sender would wait for the others,
		 * which nobody reads. The streams without a reader are cut, so
		 * their senders fail at once rather than stall.
		 */
		rc = err_set("cannot start the receiver of stream %u of %u: %s", i, n, strerror(e));
		for (unsigned k = i; k < n; k++) {
			shutdown(fds[k], SHUT_RDWR);
			tids[k] = 0;
		}
		break;
	}
	for (unsigned i = 0; i < n; i++) {
		if (!tids[i])
			continue;
		pthread_join(tids[i], NULL);
		if (jobs[i].rc < 0 && rc == 0) {
			err_restore(&jobs[i].error);
			rc = err_wrap("stream %u", i);
		}
		total->files += jobs[i].st.files;
		total->bytes += jobs[i].st.bytes;
		total->wire_bytes += jobs[i].st.wire_bytes;
		total->cpu_s += jobs[i].st.cpu_s;
	}
	if (shared) {
		struct err_saved first;

		err_save(&first);
		if (rx->end(shared, rc == 0) < 0 && rc == 0)
			rc = err_wrap("after the last stream");
		else if (rc < 0)
			err_restore(&first);
	}
	free(jobs);
	free(tids);
	return rc;
}

int agent_receive(struct agent_session *s, struct agent_job *job, json_object *req,
		  json_object *reply)
{
	const struct receiver *rx = NULL;
	struct recv_bounds bounds;
	struct recv_opts *opts;
	unsigned streams = 0;
	int *fds, rc, destfd;
	struct recv_stats total = { 0 };
	struct sockbuf_limits lim;
	bool sized;
	clock_ns start;
	json_object *sink = NULL;
	/* --explain's "no destination disk" run only: null_sink.h */
	bool null_sink = json_object_object_get_ex(req, "sink", &sink) &&
			 json_object_is_type(sink, json_type_string) &&
			 !strcmp(json_object_get_string(sink), "null");

	if (receive_request(s, req, &rx, &streams) < 0)
		return -1;
	if (null_sink && !null_sink_supports(rx->name))
		return err_set("receiver '%s' has no null sink", rx->name);
	/* large files' content comes raw (stream/frames.h): its keyed hashes are checked at verify */
	if (rx->carries_tree && rx->kind == RECV_FRAMES && !null_sink)
		job->raw_content = 1;
	/*
	 * The job's directory, opened once beneath the root's descriptor with
	 * no link followed: a job directory swapped for a link (or renamed)
	 * since prepare is refused here, and one swapped later changes
	 * nothing, as no receiver looks at the path again.
	 */
	destfd = agent_root_open_dir(s->scratch, job->name);
	if (destfd < 0)
		return err_wrap("destination of job %llu", (unsigned long long)job->id);
	if (send_ready(&s->ctl) < 0) {
		close(destfd);
		return -1;
	}
	fds = malloc(streams * sizeof(*fds));
	opts = calloc(streams, sizeof(*opts));
	if (!fds || !opts) {
		free(fds);
		free(opts);
		close(destfd);
		return err_set("out of memory for %u streams", streams);
	}
	for (unsigned i = 0; i < streams; i++)
		fds[i] = -1;
	/* what the streams may bring, from the manifest: shared by all of them */
	if (rx->carries_tree) {
		recv_bounds_set(&bounds, &s->manifest, s->manifest_bytes, rx->kind, streams);
		for (unsigned i = 0; i < streams; i++)
			opts[i].bounds = &bounds;
	}
	start = clock_now();
	rc = accept_streams(s, job->id, streams, fds, opts);
	sized = rc == 0 && size_receive_buffers(req, fds, streams, &lim);
	if (rc == 0 && null_sink)
		rc = null_sink_receive(s->have_manifest ? &s->manifest : NULL, rx->name, fds, opts, streams,
				       &total);
	else if (rc == 0)
		rc = run_receivers(rx, destfd, job->dest, fds, opts, streams, &total);
	if (rc == 0) {
		json_object_object_add(reply, "files", json_object_new_int64((int64_t)total.files));
		json_object_object_add(reply, "bytes", json_object_new_int64((int64_t)total.bytes));
		json_object_object_add(reply, "wire_bytes",
				       json_object_new_int64((int64_t)total.wire_bytes));
		json_object_object_add(reply, "cpu_seconds", json_object_new_double(total.cpu_s));
		json_object_object_add(reply, "seconds",
				       json_object_new_double(clock_seconds(start, clock_now())));
		if (sized)
			receive_buffers_reply(fds[0], &lim, reply);
		if (job->raw_content)
			json_object_object_add(reply, "raw_content", json_object_new_boolean(1));
	}
	for (unsigned i = 0; i < streams; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	explicit_bzero(opts, streams * sizeof(*opts));
	free(opts);
	close(destfd);
	return rc;
}
