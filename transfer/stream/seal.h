#ifndef XFERCMP_SEAL_H
#define XFERCMP_SEAL_H

/*
 * The one AEAD of the agent's connections: ChaCha20-Poly1305 (RFC 8439),
 * OpenSSL's EVP, never a cipher of our own. Each direction of a connection
 * has its own 256-bit key (wire_auth.h derives them from the session key and
 * both handshake nonces), and every message under a key takes the next
 * number of that direction, seq, as its nonce (4 zero bytes, then seq
 * big-endian): never one nonce twice under one key, and a message replayed,
 * dropped, reordered or moved to another connection fails.
 *
 * Two uses:
 *  - sealed: the control connection's frames (wire.h) are encrypted and
 *    authenticated, their header as associated data: nothing of a tree's
 *    names or hashes (the manifest, verify's examples) is readable on the
 *    wire;
 *  - tagged: a data stream's segments (seal_stream.h) are authenticated
 *    only: the bytes go in clear (the raw strategies measure the link
 *    without a cipher) as associated data of an empty message, which is
 *    Poly1305 over them (about 7-9 GB/s on this VM against 2.2 GB/s for
 *    encrypting them).
 */

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define SEAL_KEY_BYTES 32
#define SEAL_TAG_BYTES 16

struct evp_cipher_ctx_st;

struct seal {
	struct evp_cipher_ctx_st *ctx;
	unsigned char key[SEAL_KEY_BYTES];
};

/* Prepares s with key (copied). Returns 0 or -1 (error set). */
int seal_init(struct seal *s, const unsigned char key[SEAL_KEY_BYTES]);

/* Frees the context and wipes the key. Safe on a zeroed s, and twice. */
void seal_release(struct seal *s);

/*
 * Encrypts data[0..len) in place under nonce seq, with aad authenticated
 * too, and gives its tag. Returns 0 or -1 (error set).
 */
int seal_encrypt(struct seal *s, uint64_t seq, const void *aad, size_t aad_len, unsigned char *data,
		 size_t len, unsigned char tag[SEAL_TAG_BYTES]);

/*
 * Checks tag and decrypts data[0..len) in place. Returns 0, or -1 with the
 * error "integrity check failed" (the bytes were changed, replayed,
 * reordered, cut or made with another key; data is then garbage).
 */
int seal_decrypt(struct seal *s, uint64_t seq, const void *aad, size_t aad_len, unsigned char *data,
		 size_t len, const unsigned char tag[SEAL_TAG_BYTES]);

/*
 * The tag of the parts iov[0..n) one after another under nonce seq, nothing
 * encrypted. Returns 0 or -1 (error set).
 */
int seal_tag(struct seal *s, uint64_t seq, const struct iovec *iov, int n,
	     unsigned char tag[SEAL_TAG_BYTES]);

/* 1 when the tag of iov[0..n) under seq is tag (compared in constant time), else 0. */
int seal_tag_ok(struct seal *s, uint64_t seq, const struct iovec *iov, int n,
		const unsigned char tag[SEAL_TAG_BYTES]);

#endif
