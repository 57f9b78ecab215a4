/*
 * Unit tests for the client's typed agent requests (agent_client.c) against
 * a scripted agent on the other end of a socketpair: each function's request
 * must be the exact bytes the agent reads (agent_session.c, agent_receive.c,
 * agent_sampling.c, agent_probes.c), and each reply is parsed into the
 * function's results. The reply is queued before the call (the socket
 * buffers it), so no thread plays the agent.
 */
#define _GNU_SOURCE
#include "testutil.h"

#include "client/agent_client.h"
#include "stream/seal.h"
#include "stream/wire_auth.h"
#include "verify.h"
#include "err.h"
#include "sample/sampler.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

struct pair {
	struct agent_client c;
	int peer;	/* the agent's end */
	struct wire_chan agent;	/* its authenticated channel, keys matching the client's */
};

#define TOKEN "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/* Both ends' channels as a handshake for binding b would leave them. */
static void authenticate_pair(struct pair *p)
{
	struct wire_binding b = { .role = "control" };
	unsigned char key[WIRE_KEY_BYTES];

	memset(b.client_nonce, 1, sizeof(b.client_nonce));
	memset(b.agent_nonce, 2, sizeof(b.agent_nonce));
	assert_int_equal(wire_key_from_token(TOKEN, key), 0);
	memcpy(p->c.key, key, sizeof(key));
	assert_int_equal(wire_chan_authenticate(&p->c.ctl, key, &b, 0), 0);
	assert_int_equal(wire_chan_authenticate(&p->agent, key, &b, 1), 0);
}

static int pair_setup(void **state)
{
	struct pair *p = calloc(1, sizeof(*p));
	int sv[2];

	if (!p || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	wire_chan_init(&p->c.ctl, sv[0]);
	p->peer = sv[1];
	wire_chan_init(&p->agent, sv[1]);
	authenticate_pair(p);
	snprintf(p->c.label, sizeof(p->c.label), "testhost");
	snprintf(p->c.host, sizeof(p->c.host), "192.0.2.1");
	snprintf(p->c.port, sizeof(p->c.port), "5210");
	snprintf(p->c.addr, sizeof(p->c.addr), "192.0.2.1");
	snprintf(p->c.where, sizeof(p->c.where), "192.0.2.1:5210");
	snprintf(p->c.root, sizeof(p->c.root), "/r");
	*state = p;
	return 0;
}

static int pair_teardown(void **state)
{
	struct pair *p = *state;

	if (p->c.ctl.fd >= 0)
		close(p->c.ctl.fd);
	if (p->peer >= 0)
		close(p->peer);
	free(p);
	return 0;
}

/* Queues the agent's OK reply, given as JSON text. */
static void reply_ok(struct pair *p, const char *json)
{
	json_object *o = json_tokener_parse(json);

	assert_non_null(o);
	assert_int_equal(wire_chan_send_json(&p->agent, WIRE_OK, o), 0);
	json_object_put(o);
}

/* The next request the client sent must be exactly `want` on the wire. */
static void expect_request(struct pair *p, const char *want)
{
	enum wire_type type;
	char *payload = NULL;
	uint32_t len = 0;

	assert_int_equal(wire_chan_recv(&p->agent, 1000, &type, &payload, &len), 0);
	assert_int_equal(type, WIRE_REQUEST);
	if (strlen(want) != len || memcmp(payload, want, len))
		fail_msg("request '%.*s', want '%s'", (int)len, payload, want);
	free(payload);
}

/* Queues reply, makes the call, which must return rc, and checks the request it sent. */
#define EXPECT_CALL(p, reply, call, rc, request) \
	do { \
		reply_ok((p), (reply)); \
		assert_int_equal((call), (rc)); \
		expect_request((p), (request)); \
	} while (0)

static void test_prepare(void **state)
{
	struct pair *p = *state;
	char dest[64], fs[32];
	uint64_t job = 0;

	EXPECT_CALL(p, "{\"job\":7,\"dest\":\"/r/7-splice\",\"dest_fs\":\"ext4\"}",
		    agent_client_prepare(&p->c, "splice", &job, dest, sizeof(dest), fs, sizeof(fs)), 0,
		    "{\"op\":\"prepare\",\"strategy\":\"splice\"}");
	assert_int_equal(job, 7);
	assert_string_equal(dest, "/r/7-splice");
	assert_string_equal(fs, "ext4");

	/* the probe does not want the path */
	EXPECT_CALL(p, "{\"job\":8,\"dest\":\"/r/8-probe\",\"dest_fs\":\"xfs\"}",
		    agent_client_prepare(&p->c, "probe", &job, NULL, 0, fs, sizeof(fs)), 0,
		    "{\"op\":\"prepare\",\"strategy\":\"probe\"}");
	assert_int_equal(job, 8);
	assert_string_equal(fs, "xfs");

	/* a reply without a field the function returns */
	EXPECT_CALL(p, "{\"job\":7,\"dest_fs\":\"ext4\"}",
		    agent_client_prepare(&p->c, "zstd", &job, dest, sizeof(dest), fs, sizeof(fs)), -1,
		    "{\"op\":\"prepare\",\"strategy\":\"zstd\"}");
	assert_string_equal(err_msg(), "agent: protocol error: field 'dest' missing or not a string");
	assert_false(p->c.lost);
}

/* The client decides where a run writes: a reply naming another place is refused. */
static void test_prepare_refuses_another_dest(void **state)
{
	struct pair *p = *state;
	static const char *const replies[] = {
		"{\"job\":7,\"dest\":\"/etc\",\"dest_fs\":\"ext4\"}",
		"{\"job\":7,\"dest\":\"/r/7-splice/../../etc\",\"dest_fs\":\"ext4\"}",
		"{\"job\":7,\"dest\":\"/r/7-zstd\",\"dest_fs\":\"ext4\"}",
		"{\"job\":7,\"dest\":\"/r/8-splice\",\"dest_fs\":\"ext4\"}",
		"{\"job\":7,\"dest\":\"/r/7-splice; rm -rf ~\",\"dest_fs\":\"ext4\"}",
		"{\"job\":0,\"dest\":\"/r/0-splice\",\"dest_fs\":\"ext4\"}",
	};
	char dest[64] = "", fs[32];
	uint64_t job = 0;

	for (size_t i = 0; i < ARRAY_LEN(replies); i++) {
		EXPECT_CALL(p, replies[i],
			    agent_client_prepare(&p->c, "splice", &job, dest, sizeof(dest), fs, sizeof(fs)),
			    -1, "{\"op\":\"prepare\",\"strategy\":\"splice\"}");
		assert_contains(err_msg(), i + 1 < ARRAY_LEN(replies) ? "the one the client expects: refused"
								       : "job id 0 names no destination");
		assert_string_equal(dest, "");
	}
}

static void test_flush_and_cleanup(void **state)
{
	struct pair *p = *state;
	bool parked = false;

	EXPECT_CALL(p, "{}", agent_client_flush(&p->c, 7), 0, "{\"op\":\"flush\",\"job\":7}");
	EXPECT_CALL(p, "{\"parked\":true}", agent_client_cleanup(&p->c, 7, &parked), 0,
		    "{\"op\":\"cleanup\",\"job\":7}");
	assert_true(parked);
	EXPECT_CALL(p, "{}", agent_client_cleanup(&p->c, 9, &parked), 0,
		    "{\"op\":\"cleanup\",\"job\":9}");
	assert_false(parked);
	EXPECT_CALL(p, "{}", agent_client_cleanup(&p->c, 9, NULL), 0,
		    "{\"op\":\"cleanup\",\"job\":9}");
}

static void test_verify(void **state)
{
	struct pair *p = *state;
	struct agent_verify v;
	const char *want = "{\"op\":\"verify\",\"job\":3}";

	EXPECT_CALL(p, "{\"verified\":false,\"summary\":\"1 difference\",\"examples\":[\"content differs: a\",\"b\"]}",
		    agent_client_verify(&p->c, 3, 0, &v), 0, want);
	assert_false(v.verified);
	assert_string_equal(v.summary, "1 difference");
	assert_true(v.has_example);
	assert_string_equal(v.example, "content differs: a");

	EXPECT_CALL(p, "{\"verified\":true,\"summary\":\"all 2 files match\",\"examples\":[]}",
		    agent_client_verify(&p->c, 3, 0, &v), 0, want);
	assert_true(v.verified);
	assert_string_equal(v.summary, "all 2 files match");
	assert_false(v.has_example);

	/* lenient: no summary, no examples, no verdict */
	EXPECT_CALL(p, "{}", agent_client_verify(&p->c, 3, 0, &v), 0, want);
	assert_false(v.verified);
	assert_string_equal(v.summary, "");
	assert_false(v.has_example);
	assert_int_equal(v.present, 0);

	/* claims travel; present and kept come back, kept only within present */
	EXPECT_CALL(p, "{\"verified\":true,\"present\":3,\"kept\":7}",
		    agent_client_verify(&p->c, 3, PRESERVE_SYMLINKS | PRESERVE_MODES, &v), 0,
		    "{\"op\":\"verify\",\"job\":3,\"claims\":9}");
	assert_int_equal(v.present, PRESERVE_SYMLINKS | PRESERVE_HARDLINKS);
	assert_int_equal(v.kept, PRESERVE_SYMLINKS | PRESERVE_HARDLINKS);
}

static void test_receive(void **state)
{
	struct pair *p = *state;
	struct recv_stats got = { 0 };

	EXPECT_CALL(p, "{\"ready\":true}", agent_client_receive(&p->c, 5, "frames", 2, 0), 0,
		    "{\"op\":\"receive\",\"job\":5,\"receiver\":\"frames\",\"streams\":2}");
	/* the end of a receive is a reply with no request */
	reply_ok(p, "{\"files\":3,\"bytes\":1000,\"wire_bytes\":1234,\"seconds\":0.5}");
	assert_int_equal(agent_client_receive_end(&p->c, &got), 0);
	assert_int_equal(got.files, 3);
	assert_int_equal(got.bytes, 1000);
	assert_int_equal(got.wire_bytes, 1234);

	reply_ok(p, "{\"files\":3,\"bytes\":1000}");
	assert_int_equal(agent_client_receive_end(&p->c, &got), -1);
	assert_string_equal(err_msg(), "agent: protocol error: field 'wire_bytes' missing or not a number");
}

static void test_sampling(void **state)
{
	struct pair *p = *state;
	struct sampler_summary sum;
	bool have = true;

	EXPECT_CALL(p, "{}", agent_client_sample_start(&p->c, 4), 0,
		    "{\"op\":\"sample_start\",\"job\":4}");
	/* a reply without a summary: no remote samples, not an error */
	EXPECT_CALL(p, "{}", agent_client_sample_stop(&p->c, &sum, &have), 0,
		    "{\"op\":\"sample_stop\"}");
	assert_false(have);
}

static void test_probe(void **state)
{
	struct pair *p = *state;
	struct agent_probe_reply r;

	EXPECT_CALL(p, "{\"bps\":2.5e9,\"bytes\":1048576,\"dest_fs\":\"ext4\",\"seconds\":0.4}",
		    agent_client_probe(&p->c, "probe_disk", 0.5, 1048576, "bps", &r), 0,
		    "{\"op\":\"probe_disk\",\"seconds\":0.5,\"max_bytes\":1048576}");
	assert_true(r.rate == 2.5e9);
	assert_int_equal(r.bytes, 1048576);
	assert_string_equal(r.fs, "ext4");

	EXPECT_CALL(p, "{\"per_s\":1200}", agent_client_probe(&p->c, "probe_create", 2, 0, "per_s", &r),
		    0, "{\"op\":\"probe_create\",\"seconds\":2.0}");
	assert_true(r.rate == 1200);
	assert_int_equal(r.bytes, 0);
	assert_string_equal(r.fs, "");

	EXPECT_CALL(p, "{\"bps\":\"fast\"}", agent_client_probe(&p->c, "probe_disk", 1, 0, "bps", &r),
		    -1, "{\"op\":\"probe_disk\",\"seconds\":1.0}");
	assert_string_equal(err_msg(), "probe_disk: agent: protocol error: field 'bps' missing or not a number");
}

/* An ERROR reply fails the one request; the session goes on. */
static void test_agent_error(void **state)
{
	struct pair *p = *state;

	assert_int_equal(wire_chan_send_error(&p->agent, "syncfs failed: Input/output error"), 0);
	assert_int_equal(agent_client_flush(&p->c, 2), -1);
	expect_request(p, "{\"op\":\"flush\",\"job\":2}");
	assert_string_equal(err_msg(), "agent: syncfs failed: Input/output error");
	assert_false(p->c.lost);
	EXPECT_CALL(p, "{}", agent_client_flush(&p->c, 2), 0, "{\"op\":\"flush\",\"job\":2}");
}

/* A lost connection: every later call fails at once with the same words. */
static void test_lost_connection_is_repeated(void **state)
{
	struct pair *p = *state;
	char first[ERR_MAX];

	close(p->peer);
	p->peer = -1;
	assert_int_equal(agent_client_flush(&p->c, 2), -1);
	assert_true(p->c.lost);
	assert_contains(err_msg(), "lost the connection to the agent on testhost (192.0.2.1:5210)");
	snprintf(first, sizeof(first), "%s", err_msg());
	err_clear();
	assert_int_equal(agent_client_cleanup(&p->c, 2, NULL), -1);
	assert_string_equal(err_msg(), first);
}

/*
 * The bytes the agent's channel would put on the wire for an OK reply `json`
 * (its next number used up), caught on a socketpair of their own: what an
 * on-path attacker records, alters and replays.
 */
static size_t capture_reply(struct pair *p, const char *json, char *buf, size_t size)
{
	int sv[2], fd = p->agent.fd;
	ssize_t n;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	p->agent.fd = sv[0];
	reply_ok(p, json);
	p->agent.fd = fd;
	close(sv[0]);
	n = read(sv[1], buf, size);
	close(sv[1]);
	assert_true(n > WIRE_HEADER + SEAL_TAG_BYTES);
	return (size_t)n;
}

static void inject(struct pair *p, const char *bytes, size_t n)
{
	assert_int_equal(write(p->peer, bytes, n), (ssize_t)n);
}

/* A refused reply loses the connection for good, and says why. */
static void expect_refused(struct pair *p, const char *why)
{
	struct agent_verify v;

	assert_int_equal(agent_client_verify(&p->c, 3, 0, &v), -1);
	assert_contains(err_msg(), "stopped talking to the agent on testhost");
	assert_contains(err_msg(), why);
	assert_false(v.verified);
	assert_true(p->c.lost);
}

/* "verified": true from someone without the key: plain, or sealed with another key. */
static void test_forged_verified_refused(void **state)
{
	struct pair *p = *state;
	struct wire_chan forger;
	struct wire_binding b = { .role = "control" };
	unsigned char other[WIRE_KEY_BYTES];

	assert_int_equal(wire_send(p->peer, WIRE_OK, "{\"verified\":true}", 17), 0);
	expect_refused(p, "message 0 from the peer is not sealed");
	pair_teardown(state);

	pair_setup(state);
	p = *state;
	memset(other, 7, sizeof(other));
	wire_chan_init(&forger, p->peer);
	assert_int_equal(wire_chan_authenticate(&forger, other, &b, 1), 0);
	assert_int_equal(wire_chan_send(&forger, WIRE_OK, "{\"verified\":true}", 17), 0);
	expect_refused(p, "message 0 from the peer failed its integrity check");
}

/*
 * After a manifest was sent, "verify"'s verdict must carry its keyed hash
 * over job, verdict and the manifest sent (wire_verdict_mac): missing, for
 * another job, for the opposite verdict or for another manifest, the
 * verdict is refused, even on the authenticated channel.
 */
static void test_verdict_bound_to_the_manifest(void **state)
{
	struct pair *p = *state;
	const char *want = "{\"op\":\"verify\",\"job\":3}";
	unsigned char mac[WIRE_MAC_BYTES], other_manifest[WIRE_MAC_BYTES];
	char hex[2 * WIRE_MAC_BYTES + 1], reply[256];
	struct agent_verify v;

	p->c.have_manifest = true;
	assert_int_equal(wire_sha256("manifest", 8, p->c.manifest_sha256), 0);
	assert_int_equal(wire_sha256("another", 7, other_manifest), 0);
	/* none */
	EXPECT_CALL(p, "{\"verified\":true}", agent_client_verify(&p->c, 3, 0, &v), -1, want);
	assert_contains(err_msg(), "its verdict for job 3 is not bound to the manifest this client sent");
	/* the right one */
	assert_int_equal(wire_verdict_mac(p->c.key, 3, 1, p->c.manifest_sha256, mac), 0);
	wire_hex(mac, sizeof(mac), hex);
	snprintf(reply, sizeof(reply), "{\"verified\":true,\"verdict_mac\":\"%s\"}", hex);
	EXPECT_CALL(p, reply, agent_client_verify(&p->c, 3, 0, &v), 0, want);
	assert_true(v.verified);
	/* that one for "verified": false, the one of another job, of another manifest */
	snprintf(reply, sizeof(reply), "{\"verified\":false,\"verdict_mac\":\"%s\"}", hex);
	EXPECT_CALL(p, reply, agent_client_verify(&p->c, 3, 0, &v), -1, want);
	assert_int_equal(wire_verdict_mac(p->c.key, 4, 1, p->c.manifest_sha256, mac), 0);
	wire_hex(mac, sizeof(mac), hex);
	snprintf(reply, sizeof(reply), "{\"verified\":true,\"verdict_mac\":\"%s\"}", hex);
	EXPECT_CALL(p, reply, agent_client_verify(&p->c, 3, 0, &v), -1, want);
	assert_int_equal(wire_verdict_mac(p->c.key, 3, 1, other_manifest, mac), 0);
	wire_hex(mac, sizeof(mac), hex);
	snprintf(reply, sizeof(reply), "{\"verified\":true,\"verdict_mac\":\"%s\"}", hex);
	EXPECT_CALL(p, reply, agent_client_verify(&p->c, 3, 0, &v), -1, want);
	assert_false(v.verified);
}

/*
 * A genuine reply is sealed: "verified" is not readable on the wire, and one
 * byte changed on the way (where "false" could have become "true ") fails.
 */
static void test_altered_reply_refused(void **state)
{
	struct pair *p = *state;
	char buf[256];
	size_t n = capture_reply(p, "{\"verified\":false}", buf, sizeof(buf));

	assert_null(memmem(buf, n, "verified", 8));
	assert_null(memmem(buf, n, "false", 5));
	buf[WIRE_HEADER + 12] ^= 0x01;
	inject(p, buf, n);
	expect_refused(p, "failed its integrity check");
}

/* The agent's genuine "verified": true, played again as the answer to a later verify. */
static void test_replayed_reply_refused(void **state)
{
	struct pair *p = *state;
	struct agent_verify v;
	char buf[256];
	size_t n = capture_reply(p, "{\"verified\":true}", buf, sizeof(buf));

	inject(p, buf, n);
	assert_int_equal(agent_client_verify(&p->c, 3, 0, &v), 0);
	assert_true(v.verified);
	inject(p, buf, n);
	expect_refused(p, "message 1 from the peer failed its integrity check");
}

/* Two genuine replies swapped on the way. */
static void test_reordered_replies_refused(void **state)
{
	struct pair *p = *state;
	char first[256], second[256];
	size_t n1 = capture_reply(p, "{\"verified\":false}", first, sizeof(first));
	size_t n2 = capture_reply(p, "{\"verified\":true}", second, sizeof(second));

	inject(p, second, n2);
	inject(p, first, n1);
	expect_refused(p, "message 0 from the peer failed its integrity check");
}

/*
 * A fake agent on loopback: when drop_first (its gate was full the first
 * time) it closes the first connection at once; then it answers a hello
 * and "info" with {"root": root}.
 */
struct flaky_agent {
	int lfd;
	int drop_first;
	const char *root;
	int accepted;
	pthread_t tid;
};

static void *flaky_main(void *arg)
{
	struct flaky_agent *f = arg;
	unsigned char key[WIRE_KEY_BYTES];
	struct wire_chan ctl;
	enum wire_type type;
	json_object *o = NULL;
	int fd;

	if (wire_key_from_token(TOKEN, key) < 0)
		return NULL;
	if (f->drop_first) {
		fd = accept(f->lfd, NULL, NULL);
		if (fd < 0)
			return NULL;
		f->accepted++;
		close(fd);
	}
	fd = accept(f->lfd, NULL, NULL);
	if (fd < 0)
		return NULL;
	f->accepted++;
	if (wire_recv_json(fd, 2000, &type, &o) == 0 && wire_auth_agent(fd, key, o, 2000, &ctl) == 0) {
		json_object *req = NULL, *reply = json_object_new_object();

		json_object_object_add(reply, "root", json_object_new_string(f->root));

		if (wire_chan_recv_json(&ctl, 2000, &type, &req) == 0)
			wire_chan_send_json(&ctl, WIRE_OK, reply);
		json_object_put(req);
		json_object_put(reply);
	}
	json_object_put(o);
	close(fd);
	return NULL;
}

/* A connection closed before the agent answered: the client tries its hello once more. */
/*
 * Through ssh the control connection is a socket pair to the tunnel's pump:
 * the agent is not local for that, and the data is not in clear either, so
 * the cleartext gate lets a dir: tree through.
 */
static void test_through_ssh_neither_local_nor_clear(void **state)
{
	struct pair *p = *state;

	assert_int_equal(agent_client_is_local(&p->c), 1);
	assert_int_equal(agent_client_in_clear(&p->c), 0);
	p->c.via_ssh = 1;
	assert_int_equal(agent_client_is_local(&p->c), 0);
	assert_int_equal(agent_client_in_clear(&p->c), 0);
}

/* Which failures of the direct connection fall back to ssh. */
static void test_can_tunnel(void **state)
{
	(void)state;
	assert_int_equal(agent_client_can_tunnel(ECONNREFUSED), 1);	/* a firewall rejects */
	assert_int_equal(agent_client_can_tunnel(ETIMEDOUT), 1);	/* ... or drops */
	assert_int_equal(agent_client_can_tunnel(EHOSTUNREACH), 1);	/* behind a jump host */
	assert_int_equal(agent_client_can_tunnel(ENETUNREACH), 1);
	assert_int_equal(agent_client_can_tunnel(EMFILE), 0);	/* ours: ssh would not help */
	assert_int_equal(agent_client_can_tunnel(ENOMEM), 0);
}

/* Starts the fake agent f on a loopback port of its own; port gets its number. */
static void flaky_start(struct flaky_agent *f, char port[16])
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);

	f->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(f->lfd >= 0);
	assert_int_equal(bind(f->lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(f->lfd, 4), 0);
	assert_int_equal(getsockname(f->lfd, (struct sockaddr *)&sa, &len), 0);
	snprintf(port, 16, "%u", ntohs(sa.sin_port));
	assert_int_equal(pthread_create(&f->tid, NULL, flaky_main, f), 0);
}

static void test_hello_retried_once_on_reset(void **state)
{
	struct flaky_agent f = { .drop_first = 1, .root = "/var/tmp/xfercmp.abcdef" };
	struct agent_client c;
	char port[16];

	(void)state;
	flaky_start(&f, port);
	if (agent_client_connect(&c, "127.0.0.1", port, TOKEN) < 0)
		fail_msg("connect: %s", err_msg());
	assert_string_equal(c.root, "/var/tmp/xfercmp.abcdef");
	pthread_join(f.tid, NULL);
	assert_int_equal(f.accepted, 2);
	close(c.ctl.fd);
	c.ctl.fd = -1;
	agent_client_close(&c);
	close(f.lfd);
}

/*
 * Every destination is made from the root "info" names, and the SSH
 * strategies hand it to the host's shell and tools: a root that is
 * relative, climbs with "..", has an empty part or a control character is
 * refused, the connection closed, in one line naming what is wrong (a
 * control character is shown escaped, never printed as it is).
 */
static void test_info_root_refused(void **state)
{
	static const struct {
		const char *root, *error;
	} cases[] = {
		{ "var/tmp/xfercmp.abcdef", "'var/tmp/xfercmp.abcdef' is not an absolute path" },
		{ "", "'' is not an absolute path" },
		{ "/", "'/' is the whole file system" },
		{ "/var/tmp/../../etc", "'/var/tmp/../../etc' is not a plain absolute path" },
		{ "/var/tmp/..", "'/var/tmp/..' is not a plain absolute path" },
		{ "/var//tmp/xfercmp.abcdef", "'/var//tmp/xfercmp.abcdef' is not a plain absolute path" },
		{ "/var/tmp/./xfercmp.abcdef", "is not a plain absolute path" },
		{ "/var/tmp/xfercmp.abcdef/", "is not a plain absolute path" },
		{ "/var/tmp/xfercmp.ab\ncdef", "'/var/tmp/xfercmp.ab\\ncdef' holds a control character" },
		{ "/var/tmp/x\x1b[2Jy", "'/var/tmp/x\\x1b[2Jy' holds a control character" },
		{ "rel\tative", "'rel\\tative' holds a control character" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		struct flaky_agent f = { .root = cases[i].root };
		struct agent_client c;
		char port[16];
		int rc;

		flaky_start(&f, port);
		rc = agent_client_connect(&c, "127.0.0.1", port, TOKEN);
		pthread_join(f.tid, NULL);
		close(f.lfd);
		if (rc == 0)
			fail_msg("root '%s' was taken", cases[i].root);
		print_message("# %s\n", err_msg());
		assert_contains(err_msg(), "agent on 127.0.0.1: protocol error: scratch root");
		assert_contains(err_msg(), cases[i].error);
		assert_null(strchr(err_msg(), '\n'));
		assert_int_equal(c.ctl.fd, -1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_prepare, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_prepare_refuses_another_dest, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_flush_and_cleanup, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_verify, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_receive, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_sampling, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_probe, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_agent_error, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_lost_connection_is_repeated, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_verdict_bound_to_the_manifest, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_forged_verified_refused, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_altered_reply_refused, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_replayed_reply_refused, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_reordered_replies_refused, pair_setup, pair_teardown),
		slow_unit_test(test_hello_retried_once_on_reset),
		cmocka_unit_test(test_info_root_refused),
		cmocka_unit_test_setup_teardown(test_through_ssh_neither_local_nor_clear, pair_setup,
						pair_teardown),
		cmocka_unit_test(test_can_tunnel),
	};

	signal(SIGPIPE, SIG_IGN);
	return test_run("agent_client", tests, ARRAY_LEN(tests), NULL, 0);
}
