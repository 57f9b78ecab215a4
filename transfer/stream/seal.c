/* ChaCha20-Poly1305 through OpenSSL's EVP. See seal.h. */
#define _GNU_SOURCE
#include "stream/seal.h"

#include "err.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <string.h>

static void nonce_of(uint64_t seq, unsigned char iv[12])
{
	memset(iv, 0, 4);
	for (int i = 11; i >= 4; i--, seq >>= 8)
		iv[i] = (unsigned char)seq;
}

int seal_init(struct seal *s, const unsigned char key[SEAL_KEY_BYTES])
{
	memset(s, 0, sizeof(*s));
	s->ctx = EVP_CIPHER_CTX_new();
	if (!s->ctx)
		return err_set("out of memory for a cipher context");
	memcpy(s->key, key, SEAL_KEY_BYTES);
	return 0;
}

void seal_release(struct seal *s)
{
	EVP_CIPHER_CTX_free(s->ctx);
	OPENSSL_cleanse(s, sizeof(*s));
}

/* Starts a message under seq: key and nonce set, the direction chosen. */
static int start(struct seal *s, uint64_t seq, int encrypt)
{
	unsigned char iv[12];

	nonce_of(seq, iv);
	if (EVP_CipherInit_ex(s->ctx, EVP_chacha20_poly1305(), NULL, s->key, iv, encrypt) <= 0)
		return err_set("cannot start ChaCha20-Poly1305: OpenSSL failed");
	return 0;
}

static int aad_part(struct seal *s, const void *p, size_t n)
{
	int out;

	while (n > 0) {
		int now = n > (1u << 30) ? 1 << 30 : (int)n;

		if (EVP_CipherUpdate(s->ctx, NULL, &out, p, now) <= 0)
			return err_set("ChaCha20-Poly1305 failed on associated data");
		p = (const unsigned char *)p + now;
		n -= (size_t)now;
	}
	return 0;
}

/* data in place (len may be 0), then the end of the message. */
static int body_and_end(struct seal *s, unsigned char *data, size_t len)
{
	int out;
	unsigned char last[16];

	while (len > 0) {
		int now = len > (1u << 30) ? 1 << 30 : (int)len;

		if (EVP_CipherUpdate(s->ctx, data, &out, data, now) <= 0 || out != now)
			return -1;
		data += now;
		len -= (size_t)now;
	}
	return EVP_CipherFinal_ex(s->ctx, last, &out) <= 0 ? -1 : 0;
}

int seal_encrypt(struct seal *s, uint64_t seq, const void *aad, size_t aad_len, unsigned char *data,
		 size_t len, unsigned char tag[SEAL_TAG_BYTES])
{
	if (start(s, seq, 1) < 0 || aad_part(s, aad, aad_len) < 0)
		return -1;
	if (body_and_end(s, data, len) < 0 ||
	    EVP_CIPHER_CTX_ctrl(s->ctx, EVP_CTRL_AEAD_GET_TAG, SEAL_TAG_BYTES, tag) <= 0)
		return err_set("ChaCha20-Poly1305 failed to seal a message");
	return 0;
}

int seal_decrypt(struct seal *s, uint64_t seq, const void *aad, size_t aad_len, unsigned char *data,
		 size_t len, const unsigned char tag[SEAL_TAG_BYTES])
{
	unsigned char t[SEAL_TAG_BYTES];

	memcpy(t, tag, sizeof(t));
	if (start(s, seq, 0) < 0 || aad_part(s, aad, aad_len) < 0)
		return -1;
	if (EVP_CIPHER_CTX_ctrl(s->ctx, EVP_CTRL_AEAD_SET_TAG, SEAL_TAG_BYTES, t) <= 0)
		return err_set("ChaCha20-Poly1305 failed to take a tag");
	if (body_and_end(s, data, len) < 0)
		return err_set("integrity check failed");
	return 0;
}

int seal_tag(struct seal *s, uint64_t seq, const struct iovec *iov, int n,
	     unsigned char tag[SEAL_TAG_BYTES])
{
	if (start(s, seq, 1) < 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (aad_part(s, iov[i].iov_base, iov[i].iov_len) < 0)
			return -1;
	if (body_and_end(s, NULL, 0) < 0 ||
	    EVP_CIPHER_CTX_ctrl(s->ctx, EVP_CTRL_AEAD_GET_TAG, SEAL_TAG_BYTES, tag) <= 0)
		return err_set("ChaCha20-Poly1305 failed to tag a message");
	return 0;
}

int seal_tag_ok(struct seal *s, uint64_t seq, const struct iovec *iov, int n,
		const unsigned char tag[SEAL_TAG_BYTES])
{
	unsigned char want[SEAL_TAG_BYTES];

	return seal_tag(s, seq, iov, n, want) == 0 && CRYPTO_memcmp(want, tag, SEAL_TAG_BYTES) == 0;
}
