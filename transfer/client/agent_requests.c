/*
 * The requests of the agent's control protocol, one function each
 * (agent_client.h); the connection they go over is agent_client.c's. The
 * agent's side: agent/agent_session.c, agent_receive.c, agent_sampling.c,
 * agent_probes.c.
 */
#include "client/agent_client.h"

#include "err.h"
#include "stream/wire_auth.h"
#include "sample/sampler.h"
#include "verify.h"

#include <stdio.h>
#include <string.h>

int agent_client_prepare(struct agent_client *c, const char *strategy, uint64_t *job, char *dest,
			 size_t dest_len, char *fs, size_t fs_len)
{
	json_object *req = agent_client_request("prepare", 0), *reply = NULL;
	const char *d, *f;
	char want[sizeof(c->root) + 96];
	int rc;

	json_object_object_add(req, "strategy", json_object_new_string(strategy));
	rc = agent_client_call_request(c, req, &reply);
	if (rc == 0 && (wire_get_u64(reply, "job", job) < 0 || wire_get_str(reply, "dest", &d) < 0 ||
			wire_get_str(reply, "dest_fs", &f) < 0))
		rc = err_wrap("agent");
	if (rc == 0) {
		snprintf(want, sizeof(want), "%s/%llu-%s", c->root, (unsigned long long)*job, strategy);
		if (*job == 0)
			rc = err_set("agent: protocol error: job id 0 names no destination: refused");
		else if (strcmp(d, want))
			rc = err_set("agent: protocol error: destination '%s' for job %llu is not '%s', the one the client expects: refused",
				     d, (unsigned long long)*job, want);
	}
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
	return agent_client_call_request(c, agent_client_request("flush", job), NULL);
}

/*
 * Checks the verdict's keyed hash (wire_verdict_mac): 0 when it is the
 * agent's, for this job and the manifest this client sent; else -1 (error
 * set) and the verdict is not taken.
 */
static int verdict_unbound(const struct agent_client *c, uint64_t job, bool verified,
			   json_object *reply)
{
	unsigned char want[WIRE_MAC_BYTES], got[WIRE_MAC_BYTES];

	if (wire_verdict_mac(c->key, job, verified, c->manifest_sha256, want) < 0)
		return -1;
	if (!json_object_object_get_ex(reply, "verdict_mac", NULL) ||
	    wire_get_hex(reply, "verdict_mac", got, sizeof(got)) < 0 || !wire_mac_equal(want, got))
		return err_set("agent on %s: its verdict for job %llu is not bound to the manifest this client sent (no or a wrong verdict_mac): not taken as verified",
			       c->label, (unsigned long long)job);
	return 0;
}

int agent_client_verify(struct agent_client *c, uint64_t job, unsigned claims,
			struct agent_verify *out)
{
	json_object *req = agent_client_request("verify", job), *reply = NULL, *v, *ex;
	const char *summary = "";

	memset(out, 0, sizeof(*out));
	if (claims)
		json_object_object_add(req, "claims", json_object_new_int64(claims));
	if (agent_client_call_request(c, req, &reply) < 0)
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
	if (c->have_manifest && verdict_unbound(c, job, out->verified, reply) < 0) {
		json_object_put(reply);
		out->verified = false;
		return -1;
	}
	/* lenient: an older agent does not say */
	if (json_object_object_get_ex(reply, "peak_rss_bytes", &v))
		out->peak_rss_bytes = (uint64_t)json_object_get_int64(v);
	if (json_object_object_get_ex(reply, "lifetime_peak_rss_bytes", &v))
		out->lifetime_peak_rss_bytes = (uint64_t)json_object_get_int64(v);
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

	if (agent_client_call_request(c, agent_client_request("cleanup", job), &reply) < 0)
		return -1;
	if (parked)
		*parked = json_object_object_get_ex(reply, "parked", &v) && json_object_get_boolean(v);
	json_object_put(reply);
	return 0;
}

int agent_client_receive(struct agent_client *c, uint64_t job, const char *receiver,
			 unsigned streams, double rcvbuf_bdp_bytes)
{
	json_object *req = agent_client_request("receive", job);

	json_object_object_add(req, "receiver", json_object_new_string(receiver));
	json_object_object_add(req, "streams", json_object_new_int((int)streams));
	if (rcvbuf_bdp_bytes > 0)
		json_object_object_add(req, "rcvbuf_bdp_bytes", json_object_new_double(rcvbuf_bdp_bytes));
	if (c->null_sink)
		json_object_object_add(req, "sink", json_object_new_string("null"));
	return agent_client_call_request(c, req, NULL);
}

/* o's key as a number (a JSON double or int): 0, or -1 when absent or not a number. */
static int number_of(json_object *o, const char *key, double *out)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		return -1;
	*out = json_object_get_double(v);
	return 0;
}

int agent_client_receive_end(struct agent_client *c, struct recv_stats *got)
{
	json_object *reply = NULL;
	/*
	 * the data connections are closed (raw_stream_finish): their pumps end
	 * once the agent has read to the end and closed its side (it does so
	 * before its reply). Closed before the agent is waited for: a pump that
	 * stopped early never sent its EOF, and the channel's close is then
	 * what ends the agent's stream.
	 */
	struct err_saved tunnel_failed;
	int tunnels_rc = agent_client_data_closed(c), rc;
	json_object *buf;
	double cpu;

	if (tunnels_rc < 0)
		err_save(&tunnel_failed);
	rc = agent_client_await(c, &reply);
	if (tunnels_rc < 0) {
		json_object_put(reply);
		return err_restore(&tunnel_failed);
	}

	memset(got, 0, sizeof(*got));
	/* an agent that sized its receive buffers says how (agent_receive.c) */
	if (rc == 0 && json_object_object_get_ex(reply, "rcvbuf", &buf) &&
	    json_object_is_type(buf, json_type_object)) {
		json_object *v;

		got->rcvbuf_sized = true;
		if (json_object_object_get_ex(buf, "granted_bytes", &v))
			got->rcvbuf_bytes = json_object_get_double(v);
		if (json_object_object_get_ex(buf, "tcp_rmem_max_bytes", &v))
			got->rcvbuf_limits.auto_max = json_object_get_double(v);
		if (json_object_object_get_ex(buf, "rmem_max_bytes", &v))
			got->rcvbuf_limits.set_max = json_object_get_double(v);
		if (json_object_object_get_ex(buf, "may_force", &v))
			got->rcvbuf_limits.may_force = json_object_get_boolean(v);
	}
	if (rc == 0 && (wire_get_u64(reply, "files", &got->files) < 0 ||
			wire_get_u64(reply, "bytes", &got->bytes) < 0 ||
			wire_get_u64(reply, "wire_bytes", &got->wire_bytes) < 0))
		rc = err_wrap("agent");
	/* the receiving threads' CPU: absent from an older agent's reply (0) */
	if (rc == 0 && number_of(reply, "cpu_seconds", &cpu) == 0)
		got->cpu_s = cpu;
	json_object_put(reply);
	return rc;
}

int agent_client_sample_start(struct agent_client *c, uint64_t job)
{
	json_object *req = agent_client_request("sample_start", 0);

	/* "job" even when 0, as the agent reads it: 0 names no destination */
	json_object_object_add(req, "job", json_object_new_int64((int64_t)job));
	return agent_client_call_request(c, req, NULL);
}

int agent_client_sample_stop(struct agent_client *c, struct sampler_summary *summary, bool *have)
{
	json_object *reply = NULL, *sum;

	*have = false;
	if (agent_client_call_request(c, agent_client_request("sample_stop", 0), &reply) < 0)
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
	json_object *req = agent_client_request(op, 0), *reply = NULL, *v;
	int rc;

	memset(out, 0, sizeof(*out));
	json_object_object_add(req, "seconds", json_object_new_double(seconds));
	if (max_bytes)
		json_object_object_add(req, "max_bytes", json_object_new_int64((int64_t)max_bytes));
	rc = agent_client_call_request(c, req, &reply);
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
			       size_t n, double *per_s, double *made_per_s, double *cpu_s)
{
	json_object *req = agent_client_request("probe_create", 0), *reply = NULL, *at, *list;
	int rc;

	list = json_object_new_array();
	for (size_t i = 0; i < n; i++)
		json_object_array_add(list, json_object_new_int((int)depths[i]));
	json_object_object_add(req, "seconds", json_object_new_double(seconds));
	json_object_object_add(req, "depths", list);
	rc = agent_client_call_request(c, req, &reply);
	if (rc < 0)
		return err_wrap("probe_create");
	if (!json_object_object_get_ex(reply, "at", &at) || !json_object_is_type(at, json_type_array) ||
	    json_object_array_length(at) != n) {
		json_object_put(reply);
		return err_set("probe_create: agent: protocol error: 'at' is not %zu rates", n);
	}
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(at, i);
		double cpu;

		if (number_of(o, "per_s", &per_s[i]) < 0) {
			json_object_put(reply);
			return err_set("probe_create: agent: protocol error: rate %zu is not a number", i);
		}
		/* an older agent sends neither: unknown, 0 */
		if (made_per_s)
			made_per_s[i] = number_of(o, "made_per_s", &cpu) == 0 && cpu > 0 ? cpu : 0;
		if (cpu_s)
			cpu_s[i] = number_of(o, "cpu_seconds", &cpu) == 0 && cpu > 0 ? cpu : 0;
	}
	json_object_put(reply);
	return 0;
}
