#ifndef XFERCMP_RNG_H
#define XFERCMP_RNG_H

#include <stdint.h>

/*
 * Deterministic pseudo-random numbers: the same seed gives the same stream on
 * every machine (no libc rand, no floating-point in the integer path), so a
 * workload is byte-identical wherever it is generated.
 */

struct rng {
	uint64_t s[4];
};

/* splitmix64: used to expand one 64-bit seed into well-mixed state words. */
static inline uint64_t rng_splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Seeds from a tuple so each file (and each block of a file) has its own stream. */
static inline void rng_init(struct rng *r, uint64_t seed, uint64_t a, uint64_t b)
{
	uint64_t x = seed ^ (a * 0xd1342543de82ef95ull) ^ (b * 0x9e3779b97f4a7c15ull);

	for (int i = 0; i < 4; i++)
		r->s[i] = rng_splitmix(&x);
}

static inline uint64_t rng_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* xoshiro256** */
static inline uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rng_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rng_rotl(s[3], 45);
	return result;
}

/* Uniform in [0, 1) with 53 bits. */
static inline double rng_unit(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

#endif
