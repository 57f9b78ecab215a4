#include "client/raw_stream.h"

#include "stream/gate_limits.h"
#include "err.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/*
 * Data connections opened at once. Each costs its TCP handshake and two
 * more round trips (hello, proof: wire_auth.h), so one after another 32
 * streams at 20 ms waited about 2 s. The agent's gate holds more than
 * AGENT_GATE_PER_ADDR (gate_limits.h): these never push each other out.
 */
#define RAW_STREAM_OPEN_AT_ONCE AGENT_GATE_PER_ADDR

struct opener {
	struct agent_client *agent;
	uint64_t job;
	unsigned n;
	int *fds;
	unsigned char (*keys)[WIRE_KEY_BYTES];	/* may be NULL */
	atomic_uint next;	/* the next stream to open */
	atomic_bool failed;	/* one failed: the others open no more */
};

struct opener_thread {
	struct opener *o;
	pthread_t tid;
	int rc;
	struct err_saved error;
};

static void *opener_main(void *p)
{
	struct opener_thread *t = p;
	struct opener *o = t->o;
	unsigned i;

	t->rc = 0;
	while (!atomic_load(&o->failed) && (i = atomic_fetch_add(&o->next, 1)) < o->n) {
		o->fds[i] = agent_client_open_data(o->agent, o->job, i, o->keys ? o->keys[i] : NULL);
		if (o->fds[i] < 0) {
			t->rc = -1;
			err_save(&t->error);
			atomic_store(&o->failed, true);
		}
	}
	return NULL;
}

/* Opens fds[0..n) up to RAW_STREAM_OPEN_AT_ONCE at a time. Returns 0 or -1 (error set; some may be open). */
static int open_all(struct agent_client *agent, uint64_t job, unsigned n, int *fds,
		    unsigned char (*keys)[WIRE_KEY_BYTES])
{
	struct opener o = { .agent = agent, .job = job, .n = n, .fds = fds, .keys = keys };
	struct opener_thread t[RAW_STREAM_OPEN_AT_ONCE];
	unsigned threads = n < RAW_STREAM_OPEN_AT_ONCE ? n : RAW_STREAM_OPEN_AT_ONCE, started = 0;
	int rc = 0;

	atomic_init(&o.next, 0);
	atomic_init(&o.failed, false);
	/* the first in this thread: one stream needs no other */
	for (unsigned k = 1; k < threads; k++, started++) {
		t[k] = (struct opener_thread){ .o = &o };
		if (pthread_create(&t[k].tid, NULL, opener_main, &t[k]) != 0)
			break;
	}
	t[0] = (struct opener_thread){ .o = &o };
	opener_main(&t[0]);
	for (unsigned k = 1; k <= started; k++)
		pthread_join(t[k].tid, NULL);
	for (unsigned k = 0; k <= started && rc == 0; k++)
		if (t[k].rc < 0)
			rc = err_restore(&t[k].error);
	return rc;
}

int raw_stream_open_sized(struct agent_client *agent, uint64_t job, const char *receiver, unsigned n,
			  double rcvbuf_bdp_bytes, int *fds, unsigned char (*keys)[WIRE_KEY_BYTES])
{
	for (unsigned i = 0; i < n; i++)
		fds[i] = -1;
	if (agent_client_receive(agent, job, receiver, n, rcvbuf_bdp_bytes) < 0)
		return -1;
	if (open_all(agent, job, n, fds, keys) < 0) {
		struct err_saved saved;
		struct recv_stats ignored;

		err_save(&saved);
		raw_stream_finish(agent, fds, n, -1, &ignored);
		return err_restore(&saved);
	}
	return 0;
}

int raw_stream_open(struct agent_client *agent, uint64_t job, const char *receiver, unsigned n,
		    int *fds, unsigned char (*keys)[WIRE_KEY_BYTES])
{
	return raw_stream_open_sized(agent, job, receiver, n, 0, fds, keys);
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
