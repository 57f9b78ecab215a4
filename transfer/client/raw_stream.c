#include "client/raw_stream.h"

#include "err.h"

#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int raw_stream_open(struct agent_client *agent, uint64_t job, const char *receiver, unsigned n,
		    int *fds)
{
	for (unsigned i = 0; i < n; i++)
		fds[i] = -1;
	if (agent_client_receive(agent, job, receiver, n) < 0)
		return -1;
	for (unsigned i = 0; i < n; i++) {
		fds[i] = agent_client_open_data(agent, job, i);
		if (fds[i] < 0) {
			struct err_saved saved;
			struct recv_stats ignored;

			err_save(&saved);
			raw_stream_finish(agent, fds, n, -1, &ignored);
			return err_restore(&saved);
		}
	}
	return 0;
}

int raw_stream_finish(struct agent_client *agent, int *fds, unsigned n, int send_rc,
		      struct recv_stats *received)
{
	struct err_saved sent, theirs;
	struct recv_stats got;
	int rc;

	if (send_rc < 0)
		err_save(&sent);
	for (unsigned i = 0; i < n; i++)
		if (fds[i] >= 0) {
			/* a half-close, then close: the receiver sees the end of the stream */
			shutdown(fds[i], SHUT_WR);
			close(fds[i]);
			fds[i] = -1;
		}
	rc = agent_client_receive_end(agent, &got);
	/* a lost agent explains everything; else each side says what it saw */
	if (rc < 0 && agent->lost)
		return -1;
	if (send_rc < 0) {
		if (rc < 0) {
			err_save(&theirs);
			return err_set("%s (the receiving side: %s)", sent.msg, theirs.msg);
		}
		return err_restore(&sent);
	}
	if (rc < 0)
		return err_wrap("receiving side");
	*received = got;
	return 0;
}
