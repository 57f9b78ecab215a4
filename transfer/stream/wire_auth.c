/* Proving the session key and authenticating frames. See wire_auth.h. */
#define _GNU_SOURCE
#include "stream/wire_auth.h"

#include "err.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

/* B as bytes: a label, the role padded to 16, job and stream big-endian, both nonces. */
#define BINDING_LABEL "xfercmp-v2"
#define BINDING_BYTES (sizeof(BINDING_LABEL) + 16 + 8 + 8 + 2 * WIRE_NONCE_BYTES)

static void put_u64(unsigned char *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)v;
}

static void binding_bytes(const struct wire_binding *b, unsigned char out[BINDING_BYTES])
{
	unsigned char *p = out;

	memset(out, 0, BINDING_BYTES);
	memcpy(p, BINDING_LABEL, sizeof(BINDING_LABEL));
	p += sizeof(BINDING_LABEL);
	memcpy(p, b->role, strnlen(b->role, 16));
	p += 16;
	put_u64(p, b->job);
	put_u64(p + 8, b->stream);
	p += 16;
	memcpy(p, b->client_nonce, WIRE_NONCE_BYTES);
	memcpy(p + WIRE_NONCE_BYTES, b->agent_nonce, WIRE_NONCE_BYTES);
}

static int hkdf_sha256(const unsigned char *ikm, size_t ikm_len, const unsigned char *salt,
		       size_t salt_len, const unsigned char *info, size_t info_len,
		       unsigned char out[WIRE_KEY_BYTES])
{
	EVP_PKEY_CTX *p = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, NULL);
	size_t n = WIRE_KEY_BYTES;
	int ok = p && EVP_PKEY_derive_init(p) > 0 && EVP_PKEY_CTX_set_hkdf_md(p, EVP_sha256()) > 0 &&
		 EVP_PKEY_CTX_set1_hkdf_salt(p, salt, (int)salt_len) > 0 &&
		 EVP_PKEY_CTX_set1_hkdf_key(p, ikm, (int)ikm_len) > 0 &&
		 EVP_PKEY_CTX_add1_hkdf_info(p, info, (int)info_len) > 0 &&
		 EVP_PKEY_derive(p, out, &n) > 0 && n == WIRE_KEY_BYTES;

	EVP_PKEY_CTX_free(p);
	return ok ? 0 : err_set("cannot derive a key: OpenSSL's HKDF failed");
}

/* HMAC is fetched once: a fetch takes a lock and a look-up in OpenSSL's tables. */
static EVP_MAC *hmac_alg;
static pthread_once_t hmac_once = PTHREAD_ONCE_INIT;

static void fetch_hmac(void)
{
	hmac_alg = EVP_MAC_fetch(NULL, "HMAC", NULL);
}

struct part {
	const void *p;
	size_t n;
};

/* HMAC-SHA256(key, the parts one after another). */
static int hmac_sha256(const unsigned char key[WIRE_KEY_BYTES], const struct part *parts,
		       size_t nparts, unsigned char out[WIRE_MAC_BYTES])
{
	static char digest[] = "SHA256";
	OSSL_PARAM params[] = { OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
				OSSL_PARAM_construct_end() };
	EVP_MAC_CTX *ctx;
	size_t n = 0;
	int ok;

	pthread_once(&hmac_once, fetch_hmac);
	if (!hmac_alg || !(ctx = EVP_MAC_CTX_new(hmac_alg)))
		return err_set("cannot compute a MAC: OpenSSL has no HMAC");
	ok = EVP_MAC_init(ctx, key, WIRE_KEY_BYTES, params) > 0;
	for (size_t i = 0; ok && i < nparts; i++)
		ok = parts[i].n == 0 || EVP_MAC_update(ctx, parts[i].p, parts[i].n) > 0;
	ok = ok && EVP_MAC_final(ctx, out, &n, WIRE_MAC_BYTES) > 0 && n == WIRE_MAC_BYTES;
	EVP_MAC_CTX_free(ctx);
	return ok ? 0 : err_set("cannot compute a MAC: OpenSSL's HMAC failed");
}

void wire_hex(const unsigned char *bytes, size_t n, char *out)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = hex[bytes[i] >> 4];
		out[2 * i + 1] = hex[bytes[i] & 15];
	}
	out[2 * n] = '\0';
}

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int wire_get_hex(json_object *o, const char *key, unsigned char *out, size_t n)
{
	const char *s;

	if (wire_get_str(o, key, &s) < 0)
		return -1;
	if (strlen(s) != 2 * n)
		return err_set("protocol error: field '%s' is not %zu hex characters", key, 2 * n);
	for (size_t i = 0; i < n; i++) {
		int hi = hex_digit(s[2 * i]), lo = hex_digit(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return err_set("protocol error: field '%s' is not %zu hex characters", key, 2 * n);
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}

int wire_key_from_token(const char *token, unsigned char key[WIRE_KEY_BYTES])
{
	static const unsigned char salt[] = BINDING_LABEL, info[] = "session key";
	unsigned char raw[WIRE_TOKEN_HEX / 2];
	int rc;

	if (!wire_token_valid(token))
		return err_set("session token is not 64 hex characters");
	for (size_t i = 0; i < sizeof(raw); i++)
		raw[i] = (unsigned char)(hex_digit(token[2 * i]) << 4 | hex_digit(token[2 * i + 1]));
	rc = hkdf_sha256(raw, sizeof(raw), salt, sizeof(salt) - 1, info, sizeof(info) - 1, key);
	OPENSSL_cleanse(raw, sizeof(raw));
	return rc;
}

int wire_proof(const unsigned char key[WIRE_KEY_BYTES], const char *who,
	       const struct wire_binding *b, unsigned char out[WIRE_MAC_BYTES])
{
	unsigned char bb[BINDING_BYTES];
	struct part parts[] = { { who, strlen(who) + 1 }, { bb, sizeof(bb) } };

	binding_bytes(b, bb);
	return hmac_sha256(key, parts, 2, out);
}

int wire_session_id(const unsigned char key[WIRE_KEY_BYTES], char out[WIRE_SESSION_ID_HEX + 1])
{
	static const char label[] = "scratch root";
	struct part parts[] = { { label, sizeof(label) } };
	unsigned char mac[WIRE_MAC_BYTES];

	if (hmac_sha256(key, parts, 1, mac) < 0)
		return -1;
	wire_hex(mac, WIRE_SESSION_ID_HEX / 2, out);
	return 0;
}

int wire_content_key(const unsigned char key[WIRE_KEY_BYTES], unsigned char out[WIRE_KEY_BYTES])
{
	static const char label[] = "content key";
	struct part parts[] = { { label, sizeof(label) } };

	return hmac_sha256(key, parts, 1, out);
}

int wire_sha256(const void *data, size_t len, unsigned char out[WIRE_MAC_BYTES])
{
	unsigned int n = 0;

	if (EVP_Digest(data, len, out, &n, EVP_sha256(), NULL) <= 0 || n != WIRE_MAC_BYTES)
		return err_set("cannot hash the manifest: OpenSSL's SHA-256 failed");
	return 0;
}

int wire_verdict_mac(const unsigned char key[WIRE_KEY_BYTES], uint64_t job, int verified,
		     const unsigned char manifest_sha256[WIRE_MAC_BYTES], unsigned char out[WIRE_MAC_BYTES])
{
	static const char label[] = "verdict";
	unsigned char j[8], v = verified ? 1 : 0;
	struct part parts[] = { { label, sizeof(label) }, { j, 8 }, { &v, 1 },
				{ manifest_sha256, WIRE_MAC_BYTES } };

	put_u64(j, job);
	return hmac_sha256(key, parts, 4, out);
}

int wire_chan_authenticate(struct wire_chan *c, const unsigned char key[WIRE_KEY_BYTES],
			   const struct wire_binding *b, int is_agent)
{
	static const char c2a[] = "client to agent", a2c[] = "agent to client";
	unsigned char salt[2 * WIRE_NONCE_BYTES], info[sizeof(c2a) + BINDING_BYTES];
	unsigned char to_agent[WIRE_KEY_BYTES], to_client[WIRE_KEY_BYTES];

	memcpy(salt, b->client_nonce, WIRE_NONCE_BYTES);
	memcpy(salt + WIRE_NONCE_BYTES, b->agent_nonce, WIRE_NONCE_BYTES);
	binding_bytes(b, info + sizeof(c2a));
	memcpy(info, c2a, sizeof(c2a));
	if (hkdf_sha256(key, WIRE_KEY_BYTES, salt, sizeof(salt), info, sizeof(info), to_agent) < 0)
		return -1;
	memcpy(info, a2c, sizeof(a2c));
	if (hkdf_sha256(key, WIRE_KEY_BYTES, salt, sizeof(salt), info, sizeof(info), to_client) < 0)
		return -1;
	memcpy(c->send_key, is_agent ? to_client : to_agent, WIRE_KEY_BYTES);
	memcpy(c->recv_key, is_agent ? to_agent : to_client, WIRE_KEY_BYTES);
	OPENSSL_cleanse(to_agent, sizeof(to_agent));
	OPENSSL_cleanse(to_client, sizeof(to_client));
	c->send_seq = c->recv_seq = 0;
	c->authenticated = 1;
	c->is_agent = is_agent;
	return 0;
}

int wire_mac_equal(const unsigned char a[WIRE_MAC_BYTES], const unsigned char b[WIRE_MAC_BYTES])
{
	return CRYPTO_memcmp(a, b, WIRE_MAC_BYTES) == 0;
}

static int fresh_nonce(unsigned char out[WIRE_NONCE_BYTES])
{
	if (getrandom(out, WIRE_NONCE_BYTES, 0) != WIRE_NONCE_BYTES)
		return err_errno("cannot make a nonce");
	return 0;
}

/* Adds "key": hex of n bytes to o. */
static void add_hex(json_object *o, const char *key, const unsigned char *bytes, size_t n)
{
	char hex[2 * WIRE_MAC_BYTES + 1];

	wire_hex(bytes, n, hex);
	json_object_object_add(o, key, json_object_new_string(hex));
}

/* Sends o (consumed) as one plain frame. */
static int send_consumed(int fd, enum wire_type type, json_object *o)
{
	int rc = wire_send_json(fd, type, o);

	json_object_put(o);
	return rc;
}

int wire_auth_client(int fd, const unsigned char key[WIRE_KEY_BYTES], const char *role,
		     uint64_t job, uint64_t stream, int timeout_ms, struct wire_chan *c)
{
	struct wire_binding b = { .job = job, .stream = stream };
	unsigned char proof[WIRE_MAC_BYTES], want[WIRE_MAC_BYTES];
	json_object *o = json_object_new_object(), *reply = NULL;
	enum wire_type type;
	uint64_t proto;
	int rc;

	snprintf(b.role, sizeof(b.role), "%s", role);
	if (fresh_nonce(b.client_nonce) < 0) {
		json_object_put(o);
		return -1;
	}
	json_object_object_add(o, "proto", json_object_new_int(WIRE_PROTO));
	json_object_object_add(o, "role", json_object_new_string(role));
	if (job) {
		json_object_object_add(o, "job", json_object_new_int64((int64_t)job));
		json_object_object_add(o, "stream", json_object_new_int64((int64_t)stream));
	}
	add_hex(o, "nonce", b.client_nonce, WIRE_NONCE_BYTES);
	/* the agent's nonce is not known yet: the tag binds all but it */
	if (wire_proof(key, "hello", &b, proof) < 0) {
		json_object_put(o);
		return -1;
	}
	add_hex(o, "tag", proof, WIRE_MAC_BYTES);
	if (send_consumed(fd, WIRE_HELLO, o) < 0 || wire_recv_json(fd, timeout_ms, &type, &reply) < 0)
		return -1;
	rc = type != WIRE_OK ? err_set("protocol error: expected the agent's answer to hello") : 0;
	if (rc == 0 && wire_get_u64(reply, "proto", &proto) == 0 && proto != WIRE_PROTO)
		rc = err_set("the agent speaks protocol %llu, this client %d: use the same xfercmp version on both ends",
			     (unsigned long long)proto, WIRE_PROTO);
	if (rc == 0 && (wire_get_hex(reply, "nonce", b.agent_nonce, WIRE_NONCE_BYTES) < 0 ||
			wire_get_hex(reply, "proof", proof, WIRE_MAC_BYTES) < 0))
		rc = -1;
	json_object_put(reply);
	if (rc < 0)
		return -1;
	if (wire_proof(key, "agent", &b, want) < 0)
		return -1;
	if (!wire_mac_equal(proof, want))
		return err_set("the agent did not prove it holds the session key: the token differs (--token-file), it is not the agent this run started, or something on the way rewrote its answer");
	if (wire_proof(key, "client", &b, proof) < 0)
		return -1;
	o = json_object_new_object();
	add_hex(o, "proof", proof, WIRE_MAC_BYTES);
	if (send_consumed(fd, WIRE_AUTH, o) < 0 || wire_recv_json(fd, timeout_ms, &type, &reply) < 0)
		return -1;
	json_object_put(reply);
	if (type != WIRE_OK)
		return err_set("protocol error: expected the agent's answer to the proof");
	wire_chan_init(c, fd);
	return wire_chan_authenticate(c, key, &b, 0);
}

int wire_hello_check(const unsigned char key[WIRE_KEY_BYTES], json_object *hello,
		     struct wire_binding *b)
{
	unsigned char tag[WIRE_MAC_BYTES], want[WIRE_MAC_BYTES];
	json_object *v;
	const char *role;

	memset(b, 0, sizeof(*b));
	if (wire_get_str(hello, "role", &role) < 0 ||
	    wire_get_hex(hello, "nonce", b->client_nonce, WIRE_NONCE_BYTES) < 0 ||
	    (json_object_object_get_ex(hello, "job", &v) && wire_get_u64(hello, "job", &b->job) < 0) ||
	    (json_object_object_get_ex(hello, "stream", &v) &&
	     wire_get_u64(hello, "stream", &b->stream) < 0))
		return -1;
	if (strlen(role) >= sizeof(b->role))
		return err_set("protocol error: unknown role");
	snprintf(b->role, sizeof(b->role), "%s", role);
	if (wire_get_hex(hello, "tag", tag, WIRE_MAC_BYTES) < 0)
		return err_set("the hello carries no proof of the session key: not a client of this agent");
	if (wire_proof(key, "hello", b, want) < 0)
		return -1;
	if (!wire_mac_equal(tag, want))
		return err_set("the hello's tag is not of the session key: not a client of this agent (or a wrong --token-file)");
	return 0;
}

int wire_auth_agent_answer(int fd, const unsigned char key[WIRE_KEY_BYTES], json_object *hello,
			   struct wire_binding *b)
{
	unsigned char proof[WIRE_MAC_BYTES];
	json_object *o;

	if (wire_hello_check(key, hello, b) < 0) {
		wire_send_error(fd, err_msg());
		return -1;
	}
	if (fresh_nonce(b->agent_nonce) < 0 || wire_proof(key, "agent", b, proof) < 0)
		return -1;
	o = json_object_new_object();
	json_object_object_add(o, "proto", json_object_new_int(WIRE_PROTO));
	add_hex(o, "nonce", b->agent_nonce, WIRE_NONCE_BYTES);
	add_hex(o, "proof", proof, WIRE_MAC_BYTES);
	return send_consumed(fd, WIRE_OK, o);
}

int wire_auth_agent_finish(int fd, const unsigned char key[WIRE_KEY_BYTES],
			   const struct wire_binding *b, enum wire_type type, json_object *auth,
			   struct wire_chan *c)
{
	unsigned char proof[WIRE_MAC_BYTES], want[WIRE_MAC_BYTES];

	if (type != WIRE_AUTH || wire_get_hex(auth, "proof", proof, WIRE_MAC_BYTES) < 0) {
		wire_send_error(fd, "protocol error: expected the proof of the session key");
		return err_set("protocol error: expected the proof of the session key");
	}
	if (wire_proof(key, "client", b, want) < 0)
		return -1;
	if (!wire_mac_equal(proof, want)) {
		wire_send_error(fd, "wrong proof of the session key");
		return err_set("a peer gave a wrong proof of the session key");
	}
	if (send_consumed(fd, WIRE_OK, json_object_new_object()) < 0)
		return -1;
	wire_chan_init(c, fd);
	return wire_chan_authenticate(c, key, b, 1);
}

int wire_auth_agent(int fd, const unsigned char key[WIRE_KEY_BYTES], json_object *hello,
		    int timeout_ms, struct wire_chan *c)
{
	struct wire_binding b;
	json_object *auth = NULL;
	enum wire_type type;
	int rc;

	if (wire_auth_agent_answer(fd, key, hello, &b) < 0 ||
	    wire_recv_json(fd, timeout_ms, &type, &auth) < 0)
		return -1;
	rc = wire_auth_agent_finish(fd, key, &b, type, auth, c);
	json_object_put(auth);
	return rc;
}
