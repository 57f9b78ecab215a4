#ifndef XFERCMP_WIRE_AUTH_H
#define XFERCMP_WIRE_AUTH_H

/*
 * Proving the session key, and the keys that authenticate a control channel
 * (wire.h). All the cryptography is OpenSSL's libcrypto: HKDF-SHA256 and
 * HMAC-SHA256; nothing here is a primitive of our own.
 *
 * The 256-bit session token (64 hex characters) travels only over the SSH
 * channel that starts the agent, or in a file the user hands both ends. The
 * TCP connections never carry it: from it both ends derive the session key
 * K = HKDF-SHA256(token, salt "xfercmp-v2", info "session key").
 *
 * Opening a connection (control or data) is a challenge-response:
 *   client -> HELLO {"proto":5, "role":R, ["job":J, "stream":S,] "nonce":Nc,
 *                    "tag":HMAC(K, "hello" | B without Na)}
 *   agent  -> OK    {"proto":5, "nonce":Na, "proof":HMAC(K, "agent" | B)}
 *   client checks the agent's proof before it sends anything more, then
 *   client -> AUTH  {"proof":HMAC(K, "client" | B)}
 *   agent  -> OK {} (authenticated, below) or ERROR "wrong proof ..."
 * The hello's tag tells the agent's gate (agent/agent_gate.h) a key holder
 * from a stranger before it answers: a hello without a good tag is refused
 * at once, a key holder's connection is never pushed out of the gate
 * whatever its address, and the agent proves itself to no stranger.
 * where B binds the proof to this connection: the role, the job and stream
 * of a data connection and both fresh 256-bit nonces. A proof recorded from
 * another connection fails: its nonces differ.
 *
 * From the AUTH on, each direction of the connection has its own key,
 * HKDF-SHA256(K, salt Nc|Na, info "client to agent"|B or "agent to
 * client"|B). A control connection's frames are sealed with it (wire.h,
 * seal.h: ChaCha20-Poly1305, seq counting that direction's frames from 0 as
 * the nonce); a data connection's segments are tagged with its
 * client-to-agent key (seal_stream.h: their bytes go in clear, the raw
 * strategies measure the link without a cipher). A frame or segment
 * altered, replayed (from this connection or another), reordered, dropped
 * or injected fails its check.
 */

#include "stream/wire.h"

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#define WIRE_NONCE_BYTES 32

/* What a proof is bound to: one connection. */
struct wire_binding {
	char role[16];		/* "control" or "data" */
	uint64_t job, stream;	/* 0 for a control connection */
	unsigned char client_nonce[WIRE_NONCE_BYTES], agent_nonce[WIRE_NONCE_BYTES];
};

/* K from the token (64 hex characters). Returns 0 or -1 (error set). */
int wire_key_from_token(const char *token, unsigned char key[WIRE_KEY_BYTES]);

/*
 * The session id written in the agent's scratch-root marker: hex of the
 * first 16 bytes of HMAC(K, "scratch root"). Only the two ends know it (it
 * reveals nothing of K), so a marker holding it was written by this run's
 * agent. Returns 0 or -1 (error set).
 */
#define WIRE_SESSION_ID_HEX 32
int wire_session_id(const unsigned char key[WIRE_KEY_BYTES], char out[WIRE_SESSION_ID_HEX + 1]);

/*
 * The key of the content's keyed hashes (workloads/content_mac.h) of a
 * session: HMAC(K, "content key"), its own key so that no hash of a file
 * is ever made under K itself. Returns 0 or -1 (error set).
 */
int wire_content_key(const unsigned char key[WIRE_KEY_BYTES], unsigned char out[WIRE_KEY_BYTES]);

/* SHA-256 of data. Returns 0 or -1 (error set). */
int wire_sha256(const void *data, size_t len, unsigned char out[WIRE_MAC_BYTES]);

/*
 * The verdict of "verify", keyed: HMAC(K, "verdict" | job | verified |
 * SHA-256 of the manifest as it was sent). The agent sends it with its
 * answer and the client, which hashed the manifest it sent, checks it: a
 * "verified" that is not the agent's, that is for another job or that was
 * reached against another manifest fails. Returns 0 or -1 (error set).
 */
int wire_verdict_mac(const unsigned char key[WIRE_KEY_BYTES], uint64_t job, int verified,
		     const unsigned char manifest_sha256[WIRE_MAC_BYTES], unsigned char out[WIRE_MAC_BYTES]);

/* HMAC(K, who | B): who is "agent", "client" or "hello". Returns 0 or -1 (error set). */
int wire_proof(const unsigned char key[WIRE_KEY_BYTES], const char *who,
	       const struct wire_binding *b, unsigned char out[WIRE_MAC_BYTES]);

/*
 * Checks the tag of a HELLO (its role, job, stream and nonce as read into
 * *b, b->agent_nonce zero): 0 when a key holder sent it, -1 (error set)
 * otherwise. Fills *b from hello either way, as far as it could be read.
 */
int wire_hello_check(const unsigned char key[WIRE_KEY_BYTES], json_object *hello,
		     struct wire_binding *b);

/*
 * Turns c into an authenticated channel for binding b: the agent's end
 * (is_agent) sends with the agent-to-client key. Returns 0 or -1.
 */
int wire_chan_authenticate(struct wire_chan *c, const unsigned char key[WIRE_KEY_BYTES],
			   const struct wire_binding *b, int is_agent);

/* 1 when the two MACs are equal, compared in constant time. */
int wire_mac_equal(const unsigned char a[WIRE_MAC_BYTES], const unsigned char b[WIRE_MAC_BYTES]);

/* Hex text <-> bytes for nonces and proofs: -1 (error set naming the field) when malformed. */
void wire_hex(const unsigned char *bytes, size_t n, char *out);
int wire_get_hex(json_object *o, const char *key, unsigned char *out, size_t n);

/*
 * The client's side of the handshake on a connected fd: HELLO, the agent's
 * proof checked, AUTH, and the agent's authenticated OK. On 0, *c is the
 * authenticated channel. -1 (error set): the agent's ERROR (its message), or
 * "the agent did not prove it holds the session key" (a wrong proof: not
 * the agent we started, or something in between rewriting it).
 */
int wire_auth_client(int fd, const unsigned char key[WIRE_KEY_BYTES], const char *role,
		     uint64_t job, uint64_t stream, int timeout_ms, struct wire_chan *c);

/*
 * The agent's side, after it read and accepted the HELLO `hello` (its role,
 * job and stream are the caller's to check): sends its nonce and proof,
 * waits at most timeout_ms for the client's AUTH and checks its proof. On 0,
 * *c is authenticated and the final OK is sent on it. -1 (error set) on a
 * wrong proof, after telling the peer.
 */
int wire_auth_agent(int fd, const unsigned char key[WIRE_KEY_BYTES], json_object *hello,
		    int timeout_ms, struct wire_chan *c);

/*
 * The same in two steps, for an agent that must not wait on one peer while
 * others knock (agent_gate.h): _answer checks the HELLO's fields and its tag
 * (wire_hello_check) and sends the agent's nonce and proof, filling *b; _finish checks the frame that
 * came next (type, auth: the client's AUTH) against *b, sends the final OK
 * and authenticates *c. Each returns 0 or -1 (error set, the peer told).
 */
int wire_auth_agent_answer(int fd, const unsigned char key[WIRE_KEY_BYTES], json_object *hello,
			   struct wire_binding *b);
int wire_auth_agent_finish(int fd, const unsigned char key[WIRE_KEY_BYTES],
			   const struct wire_binding *b, enum wire_type type, json_object *auth,
			   struct wire_chan *c);

#endif
