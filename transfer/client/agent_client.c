#define _GNU_SOURCE
#include "client/agent_client.h"

#include "verify.h"

#include "err.h"
#include "measure/sampler.h"
#include "netutil.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int connect_one(const struct addrinfo *ai, int timeout_ms)
{
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
	struct pollfd p;
	int err = 0, one = 1;
	socklen_t len = sizeof(err);

	if (fd < 0)
		return -1;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0 && errno != EINPROGRESS) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	p = (struct pollfd){ .fd = fd, .events = POLLOUT };
	if (poll(&p, 1, timeout_ms) <= 0) {
		close(fd);
		errno = ETIMEDOUT;
		return -1;
	}
	getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
	if (err) {
		close(fd);
		errno = err;
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (net_set_peer_timeout(fd) < 0) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

int tcp_connect(const char *host, const char *port, int timeout_ms)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res, *ai;
	int rc = getaddrinfo(host, port, &hints, &res), fd = -1;

	if (rc != 0)
		return err_set("cannot resolve '%s': %s", host, gai_strerror(rc));
	for (ai = res; ai && fd < 0; ai = ai->ai_next)
		fd = connect_one(ai, timeout_ms);
	freeaddrinfo(res);
	if (fd < 0) {
		if (errno == ECONNREFUSED)
			return err_set("cannot connect to %s:%s: connection refused (is the agent running there?)",
				       host, port);
		if (errno == ETIMEDOUT)
			return err_set("cannot connect to %s:%s: no answer within %d s", host, port,
				       timeout_ms / 1000);
		return err_errno("cannot connect to %s:%s", host, port);
	}
	return fd;
}

static int hello(int fd, const char *token, const char *role, uint64_t job, unsigned stream)
{
	json_object *o = json_object_new_object(), *reply = NULL;
	enum wire_type type;
	int rc;

	json_object_object_add(o, "proto", json_object_new_int(WIRE_PROTO));
	json_object_object_add(o, "token", json_object_new_string(token));
	json_object_object_add(o, "role", json_object_new_string(role));
	if (job) {
		json_object_object_add(o, "job", json_object_new_int64((int64_t)job));
		json_object_object_add(o, "stream", json_object_new_int((int)stream));
	}
	rc = wire_send_json(fd, WIRE_HELLO, o);
	json_object_put(o);
	if (rc == 0)
		rc = wire_recv_json(fd, AGENT_CONNECT_TIMEOUT_MS, &type, &reply);
	json_object_put(reply);
	return rc < 0 ? err_wrap("agent refused the connection") : 0;
}

/* {"op":op} with "job" when job is not 0: a new object for the caller to fill further. */
static json_object *request(const char *op, uint64_t job)
{
	json_object *req = json_object_new_object();

	json_object_object_add(req, "op", json_object_new_string(op));
	if (job)
		json_object_object_add(req, "job", json_object_new_int64((int64_t)job));
	return req;
}

/* Sends req (consumed); *reply as agent_client_call's. */
static int call_request(struct agent_client *c, json_object *req, json_object **reply)
{
	int rc = agent_client_call(c, req, reply);

	json_object_put(req);
	return rc;
}

/* Sends req (consumed) and drops the reply. */
static int call_and_drop(struct agent_client *c, json_object *req)
{
	json_object *reply = NULL;
	int rc = call_request(c, req, &reply);

	json_object_put(reply);
	return rc;
}

int agent_client_connect(struct agent_client *c, const char *host, const char *port,
			 const char *token)
{
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	snprintf(c->label, sizeof(c->label), "%s", host);
	snprintf(c->host, sizeof(c->host), "%s", host);
	snprintf(c->port, sizeof(c->port), "%s", port);
	snprintf(c->token, sizeof(c->token), "%s", token);
	c->fd = tcp_connect(host, port, AGENT_CONNECT_TIMEOUT_MS);
	if (c->fd < 0)
		return -1;
	if (hello(c->fd, token, "control", 0, 0) < 0 ||
	    call_request(c, request("info", 0), &c->info) < 0) {
		close(c->fd);
		c->fd = -1;
		return -1;
	}
	return 0;
}

/*
 * After a failed send or receive: when the connection itself failed, says so
 * in one line naming the host and the likely cause, and closes it so that
 * nothing else waits on it. Returns -1.
 */
static int connection_failed(struct agent_client *c)
{
	enum wire_fault f = wire_last_fault();

	if (f == WIRE_FAULT_NONE)
		return err_wrap("agent");
	close(c->fd);
	c->fd = -1;
	c->lost = 1;
	if (f == WIRE_FAULT_TIMEOUT)
		err_set("lost the connection to the agent on %s (%s:%s): no answer for %d s; the link or the host went down",
			c->label, c->host, c->port, NET_PEER_TIMEOUT_S);
	else if (f == WIRE_FAULT_CLOSED)
		err_set("lost the connection to the agent on %s (%s:%s): the agent closed it; it exited or was killed there",
			c->label, c->host, c->port);
	else
		err_wrap("lost the connection to the agent on %s (%s:%s)", c->label, c->host, c->port);
	err_save(&c->lost_why);
	return -1;
}

/* -1 (error set to how it was lost) when an earlier call lost the connection. */
static int check_alive(const struct agent_client *c)
{
	if (c->lost)
		return err_restore(&c->lost_why);
	if (c->fd < 0)
		return err_set("not connected to the agent on %s", c->label);
	return 0;
}

int agent_client_await(struct agent_client *c, json_object **reply)
{
	enum wire_type type;

	*reply = NULL;
	if (check_alive(c) < 0)
		return -1;
	if (wire_recv_json(c->fd, -1, &type, reply) < 0)
		return connection_failed(c);
	if (type != WIRE_OK) {
		json_object_put(*reply);
		*reply = NULL;
		return err_set("agent: protocol error: expected a reply");
	}
	return 0;
}

int agent_client_call(struct agent_client *c, json_object *req, json_object **reply)
{
	*reply = NULL;
	if (check_alive(c) < 0)
		return -1;
	if (wire_send_json(c->fd, WIRE_REQUEST, req) < 0)
		return connection_failed(c);
	return agent_client_await(c, reply);
}

int agent_client_send_manifest(struct agent_client *c, const struct manifest *m)
{
	char *buf;
	size_t len;
	json_object *reply = NULL;
	int rc;

	if (check_alive(c) < 0 || manifest_to_buffer(m, &buf, &len) < 0)
		return -1;
	rc = wire_send(c->fd, WIRE_MANIFEST, buf, len);
	free(buf);
	if (rc < 0)
		return connection_failed(c);
	rc = agent_client_await(c, &reply);
	json_object_put(reply);
	return rc;
}

int agent_client_open_data(struct agent_client *c, uint64_t job, unsigned stream)
{
	int fd = check_alive(c) < 0 ? -1 : tcp_connect(c->host, c->port, AGENT_CONNECT_TIMEOUT_MS);

	if (fd < 0)
		return -1;
	if (hello(fd, c->token, "data", job, stream) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int agent_client_close(struct agent_client *c)
{
	int rc = 0;

	if (c->fd >= 0) {
		/* the agent removes the destinations it kept before it answers */
		if (call_and_drop(c, request("bye", 0)) < 0 && !c->lost) {
			struct err_saved why;

			err_save(&why);
			rc = err_set("cleanup on %s failed: %s; remove what is left with chmod -R u+rwx, then rm -rf",
				     c->label, why.msg);
		}
		close(c->fd);
		c->fd = -1;
	}
	json_object_put(c->info);
	c->info = NULL;
	return rc;
}

int agent_client_prepare(struct agent_client *c, const char *strategy, uint64_t *job, char *dest,
			 size_t dest_len, char *fs, size_t fs_len)
{
	json_object *req = request("prepare", 0), *reply = NULL;
	const char *d, *f;
	int rc;

	json_object_object_add(req, "strategy", json_object_new_string(strategy));
	rc = call_request(c, req, &reply);
	if (rc == 0 && (wire_get_u64(reply, "job", job) < 0 || wire_get_str(reply, "dest", &d) < 0 ||
			wire_get_str(reply, "dest_fs", &f) < 0))
		rc = err_wrap("agent");
	if (rc == 0) {
		if (dest)
			snprintf(dest, dest_len, "%s", d);
		snprintf(fs, fs_len, "%s", f);
	}
	json_object_put(reply);
	return rc;
}

int agent_client_flush(struct agent_client *c, uint64_t job)
{
	return call_and_drop(c, request("flush", job));
}

int agent_client_verify(struct agent_client *c, uint64_t job, unsigned claims,
			struct agent_verify *out)
{
	json_object *req = request("verify", job), *reply = NULL, *v, *ex;
	const char *summary = "";

	memset(out, 0, sizeof(*out));
	if (claims)
		json_object_object_add(req, "claims", json_object_new_int64(claims));
	if (call_request(c, req, &reply) < 0)
		return -1;
	/* lenient: an agent that says nothing of them kept nothing we could show */
	if (json_object_object_get_ex(reply, "present", &v))
		out->present = (unsigned)json_object_get_int64(v) & PRESERVE_ALL;
	if (json_object_object_get_ex(reply, "kept", &v))
		out->kept = (unsigned)json_object_get_int64(v) & out->present;
	out->content_ok = json_object_object_get_ex(reply, "differences", &v) ?
			  json_object_get_int64(v) == 0 : out->verified;
	/* lenient: a reply without a summary or examples still says whether it verified */
	wire_get_str(reply, "summary", &summary);
	snprintf(out->summary, sizeof(out->summary), "%s", summary);
	out->verified = json_object_object_get_ex(reply, "verified", &v) && json_object_get_boolean(v);
	if (json_object_object_get_ex(reply, "examples", &ex) && json_object_array_length(ex)) {
		out->has_example = true;
		snprintf(out->example, sizeof(out->example), "%s",
			 json_object_get_string(json_object_array_get_idx(ex, 0)));
	}
	json_object_put(reply);
	return 0;
}

int agent_client_cleanup(struct agent_client *c, uint64_t job, bool *parked)
{
	json_object *reply = NULL, *v;

	if (call_request(c, request("cleanup", job), &reply) < 0)
		return -1;
	if (parked)
		*parked = json_object_object_get_ex(reply, "parked", &v) && json_object_get_boolean(v);
	json_object_put(reply);
	return 0;
}

int agent_client_receive(struct agent_client *c, uint64_t job, const char *receiver,
			 unsigned streams)
{
	json_object *req = request("receive", job);

	json_object_object_add(req, "receiver", json_object_new_string(receiver));
	json_object_object_add(req, "streams", json_object_new_int((int)streams));
	return call_and_drop(c, req);
}

int agent_client_receive_end(struct agent_client *c, struct recv_stats *got)
{
	json_object *reply = NULL;
	int rc = agent_client_await(c, &reply);

	if (rc == 0 && (wire_get_u64(reply, "files", &got->files) < 0 ||
			wire_get_u64(reply, "bytes", &got->bytes) < 0 ||
			wire_get_u64(reply, "wire_bytes", &got->wire_bytes) < 0))
		rc = err_wrap("agent");
	json_object_put(reply);
	return rc;
}

int agent_client_sample_start(struct agent_client *c, uint64_t job)
{
	json_object *req = request("sample_start", 0);

	/* "job" even when 0, as the agent reads it: 0 names no destination */
	json_object_object_add(req, "job", json_object_new_int64((int64_t)job));
	return call_and_drop(c, req);
}

int agent_client_sample_stop(struct agent_client *c, struct sampler_summary *summary, bool *have)
{
	json_object *reply = NULL, *sum;

	*have = false;
	if (call_request(c, request("sample_stop", 0), &reply) < 0)
		return -1;
	if (json_object_object_get_ex(reply, "summary", &sum) &&
	    sampler_summary_from_json(sum, summary) == 0)
		*have = true;
	json_object_put(reply);
	return 0;
}

int agent_client_probe(struct agent_client *c, const char *op, double seconds, uint64_t max_bytes,
		       const char *rate_key, struct agent_probe_reply *out)
{
	json_object *req = request(op, 0), *reply = NULL, *v;
	int rc;

	memset(out, 0, sizeof(*out));
	json_object_object_add(req, "seconds", json_object_new_double(seconds));
	if (max_bytes)
		json_object_object_add(req, "max_bytes", json_object_new_int64((int64_t)max_bytes));
	rc = call_request(c, req, &reply);
	if (rc < 0)
		return err_wrap("%s", op);
	if (!json_object_object_get_ex(reply, rate_key, &v) ||
	    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int))) {
		json_object_put(reply);
		return err_set("%s: agent: protocol error: field '%s' missing or not a number", op,
			       rate_key);
	}
	out->rate = json_object_get_double(v);
	if (json_object_object_get_ex(reply, "bytes", &v) && json_object_is_type(v, json_type_int) &&
	    json_object_get_int64(v) > 0)
		out->bytes = (uint64_t)json_object_get_int64(v);
	if (json_object_object_get_ex(reply, "dest_fs", &v) &&
	    json_object_is_type(v, json_type_string))
		snprintf(out->fs, sizeof(out->fs), "%s", json_object_get_string(v));
	json_object_put(reply);
	return 0;
}

int agent_client_probe_creates(struct agent_client *c, double seconds, const unsigned *depths,
			       size_t n, double *per_s)
{
	json_object *req = request("probe_create", 0), *reply = NULL, *at, *list;
	int rc;

	list = json_object_new_array();
	for (size_t i = 0; i < n; i++)
		json_object_array_add(list, json_object_new_int((int)depths[i]));
	json_object_object_add(req, "seconds", json_object_new_double(seconds));
	json_object_object_add(req, "depths", list);
	rc = call_request(c, req, &reply);
	if (rc < 0)
		return err_wrap("probe_create");
	if (!json_object_object_get_ex(reply, "at", &at) || !json_object_is_type(at, json_type_array) ||
	    json_object_array_length(at) != n) {
		json_object_put(reply);
		return err_set("probe_create: agent: protocol error: 'at' is not %zu rates", n);
	}
	for (size_t i = 0; i < n; i++) {
		json_object *v, *o = json_object_array_get_idx(at, i);

		if (!json_object_object_get_ex(o, "per_s", &v) ||
		    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int))) {
			json_object_put(reply);
			return err_set("probe_create: agent: protocol error: rate %zu is not a number", i);
		}
		per_s[i] = json_object_get_double(v);
	}
	json_object_put(reply);
	return 0;
}
