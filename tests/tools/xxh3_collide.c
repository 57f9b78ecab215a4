/*
 * A second preimage of XXH3-64 for the relay test (tests/integration/relay.t,
 * issue 43 finding 2): XXH3 is no MAC. For an input longer than 240 bytes
 * the hash accumulates 1 KiB blocks of 16 stripes of 64 bytes; within a
 * block each stripe only adds to the accumulators (the scramble comes after
 * the block), stripe s, lane i (a 64-bit word v, the secret's word k at
 * 8s + 8i) adding v to acc[i ^ 1] and lo32(v ^ k) * hi32(v ^ k) to acc[i].
 * So a block with its first 14 stripes (896 bytes) replaced by anything
 * keeps every accumulator, hence the hash of the whole file, when its last
 * two stripes are solved: for each lane pair (j, j ^ 1), the pair's words
 * in stripe 15 and 14 of lane j ^ 1 are picked with a zero product (one
 * 32-bit half of v ^ k zero) and the sum that balances acc[j]; those of
 * lane j with the sum that balances acc[j ^ 1].
 *
 *   xxh3_collide FILE PREFIX ORIG_OUT NEW_OUT
 *
 * FILE's first 1024 bytes (FILE longer than 2048: block 0 is a whole block
 * and not the last) go to ORIG_OUT; the block that replaces them, PREFIX
 * (at most 896 bytes, padded with newlines) and the two solved stripes, to
 * NEW_OUT. Exits 0 only when XXH3-64 of FILE with the block replaced equals
 * XXH3-64 of FILE, both computed by libxxhash.
 */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 1024
#define STRIPE 64
#define FREE_BYTES (14 * STRIPE)

static uint64_t rd64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void wr64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		p[i] = (unsigned char)v;
}

static uint64_t key(unsigned stripe, unsigned lane)
{
	return rd64(XXH3_kSecret + 8 * stripe + 8 * lane);
}

static uint64_t mul(uint64_t v, uint64_t k)
{
	uint64_t x = v ^ k;

	return (x & 0xffffffffu) * (x >> 32);
}

/* What a block adds to acc[a]: every stripe's product of lane a and word of lane a ^ 1. */
static uint64_t adds_to(const unsigned char *block, unsigned a, unsigned stripes)
{
	uint64_t sum = 0;

	for (unsigned s = 0; s < stripes; s++)
		sum += mul(rd64(block + STRIPE * s + 8 * a), key(s, a)) + rd64(block + STRIPE * s + 8 * (a ^ 1));
	return sum;
}

/* x (stripe 14) and y (stripe 15) of lane b with zero products and x + y == v. */
static void zero_pair(unsigned b, uint64_t v, uint64_t *x, uint64_t *y)
{
	uint64_t k14 = key(14, b), k15 = key(15, b);
	uint32_t l = (uint32_t)((uint32_t)v - (uint32_t)k14) ^ (uint32_t)k15;
	uint64_t low = (uint64_t)(uint32_t)k14 + ((uint32_t)k15 ^ l);
	uint32_t carry = (uint32_t)(low >> 32);
	uint32_t h = (uint32_t)((uint32_t)(v >> 32) - (uint32_t)(k15 >> 32) - carry) ^ (uint32_t)(k14 >> 32);

	*x = ((uint64_t)((uint32_t)(k14 >> 32) ^ h) << 32) | (uint32_t)k14;	/* lo(x ^ k14) = 0 */
	*y = (k15 & 0xffffffff00000000ull) | ((uint32_t)k15 ^ l);		/* hi(y ^ k15) = 0 */
}

static int collide(const unsigned char orig[BLOCK], unsigned char out[BLOCK])
{
	for (unsigned j = 0; j < 8; j += 2) {
		unsigned b = j ^ 1;
		/* what the first 14 stripes of out still owe each accumulator */
		uint64_t owe_j = adds_to(orig, j, 16) - adds_to(out, j, 14);
		uint64_t owe_b = adds_to(orig, b, 16) - adds_to(out, b, 14);
		uint64_t xj = 0x0123456789abcdefull, yj, xb, yb;

		/* acc[b] gets lane j's words and lane b's products (zero): x_j + y_j = owe_b */
		yj = owe_b - xj;
		/* acc[j] gets lane j's products and lane b's words */
		zero_pair(b, owe_j - mul(xj, key(14, j)) - mul(yj, key(15, j)), &xb, &yb);
		wr64(out + STRIPE * 14 + 8 * j, xj);
		wr64(out + STRIPE * 15 + 8 * j, yj);
		wr64(out + STRIPE * 14 + 8 * b, xb);
		wr64(out + STRIPE * 15 + 8 * b, yb);
	}
	for (unsigned a = 0; a < 8; a++)
		if (adds_to(out, a, 16) != adds_to(orig, a, 16))
			return -1;
	return 0;
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *p = NULL;
	long n;

	if (!f || fseek(f, 0, SEEK_END) < 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) < 0 ||
	    !(p = malloc((size_t)n + 1)) || fread(p, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "xxh3_collide: cannot read '%s'\n", path);
		exit(2);
	}
	fclose(f);
	*len = (size_t)n;
	return p;
}

static void spill(const char *path, const unsigned char *p, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(p, 1, len, f) != len || fclose(f) != 0) {
		fprintf(stderr, "xxh3_collide: cannot write '%s'\n", path);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	size_t len, plen;
	unsigned char *file, *prefix, block[BLOCK];
	uint64_t before, after;

	if (argc != 5) {
		fprintf(stderr, "usage: xxh3_collide FILE PREFIX ORIG_OUT NEW_OUT\n");
		return 2;
	}
	file = slurp(argv[1], &len);
	prefix = slurp(argv[2], &plen);
	if (len <= 2 * BLOCK || plen > FREE_BYTES) {
		fprintf(stderr, "xxh3_collide: FILE must be over %d bytes, PREFIX at most %d\n", 2 * BLOCK,
			FREE_BYTES);
		return 2;
	}
	memset(block, '\n', sizeof(block));
	memcpy(block, prefix, plen);
	if (collide(file, block) < 0) {
		fprintf(stderr, "xxh3_collide: the solved stripes do not balance the accumulators\n");
		return 1;
	}
	spill(argv[3], file, BLOCK);
	spill(argv[4], block, BLOCK);
	before = XXH3_64bits(file, len);
	memcpy(file, block, BLOCK);
	after = XXH3_64bits(file, len);
	printf("%016llx %016llx\n", (unsigned long long)before, (unsigned long long)after);
	return before == after ? 0 : 1;
}
