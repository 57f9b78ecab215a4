#include "client/raw_stream.h"

#include "err.h"

#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int raw_stream_open(struct xfer_run *run, const char *receiver, unsigned n, int *fds)
{
	struct agent_client *agent = run->target->agent;
	json_object *req = json_object_new_object(), *reply = NULL;
	int rc;

	for (unsigned i = 0; i < n; i++)
		fds[i] = -1;
	json_object_object_add(req, "op", json_object_new_string("receive"));
	json_object_object_add(req, "job", json_object_new_int64((int64_t)run->job));
	json_object_object_add(req, "receiver", json_object_new_string(receiver));
	json_object_object_add(req, "streams", json_object_new_int((int)n));
	rc = agent_client_call(agent, req, &reply);
	json_object_put(req);
	json_object_put(reply);
	if (rc < 0)
		return -1;
	for (unsigned i = 0; i < n; i++) {
		fds[i] = agent_client_open_data(agent, run->job, i);
		if (fds[i] < 0) {
			char saved[ERR_MAX];

			snprintf(saved, sizeof(saved), "%s", err_msg());
			raw_stream_finish(run, fds, n, -1);
			return err_set("%s", saved);
		}
	}
	return 0;
}

int raw_stream_finish(struct xfer_run *run, int *fds, unsigned n, int send_rc)
{
	json_object *reply = NULL;
	char saved[ERR_MAX];
	int rc;

	if (send_rc < 0)
		snprintf(saved, sizeof(saved), "%s", err_msg());
	for (unsigned i = 0; i < n; i++)
		if (fds[i] >= 0) {
			/* a half-close, then close: the receiver sees the end of the stream */
			shutdown(fds[i], SHUT_WR);
			close(fds[i]);
			fds[i] = -1;
		}
	rc = agent_client_await(run->target->agent, &reply);
	/* a lost agent explains everything; else each side says what it saw */
	if (rc < 0 && run->target->agent->lost)
		return -1;
	if (send_rc < 0) {
		json_object_put(reply);
		if (rc < 0) {
			char theirs[ERR_MAX];

			snprintf(theirs, sizeof(theirs), "%s", err_msg());
			return err_set("%s (the receiving side: %s)", saved, theirs);
		}
		return err_set("%s", saved);
	}
	if (rc < 0)
		return err_wrap("receiving side");
	if (wire_get_u64(reply, "files", &run->received.files) < 0 ||
	    wire_get_u64(reply, "bytes", &run->received.bytes) < 0 ||
	    wire_get_u64(reply, "wire_bytes", &run->received.wire_bytes) < 0) {
		json_object_put(reply);
		return err_wrap("agent");
	}
	json_object_put(reply);
	return 0;
}
