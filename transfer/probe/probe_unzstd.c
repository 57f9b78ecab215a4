/*
 * How fast one thread decompresses what zstd made of the workload's sample
 * at the strategies' level: the receiver's work in zstd and zstd-ssh (the
 * agent's libzstd, or `zstd -dc` on the host), one frame at a time on one
 * thread. Part of the zstd probe (probe_zstd in probe_local.c).
 */
#include "probe/probes.h"

#include "clock.h"
#include "err.h"

#include <stdlib.h>
#include <zstd.h>

/*
 * At most this much of the sample is compressed for it (one frame, one
 * thread: about 50 ms at level 1 on this VM, whose one thread compressed
 * 343 MB/s in test_probes), and at most this long or this much output
 * decompressed: decompression ran at 2.9-4.6 GB/s on one thread here, so a
 * quarter of a second measures hundreds of MB.
 */
#define UNZSTD_INPUT_BYTES (16u << 20)
#define UNZSTD_SECONDS 0.25
#define UNZSTD_MAX_OUTPUT (1ull << 30)

int probe_unzstd(const unsigned char *sample, size_t len, int level, double seconds, double *bps)
{
	size_t in = len < UNZSTD_INPUT_BYTES ? len : UNZSTD_INPUT_BYTES;
	size_t cap = ZSTD_compressBound(in), frame;
	unsigned char *packed = malloc(cap), *plain = malloc(in ? in : 1);
	ZSTD_DCtx *d = ZSTD_createDCtx();
	uint64_t out = 0;
	clock_ns start, deadline, now;
	int rc = 0;

	*bps = 0;
	if (!packed || !plain || !d) {
		rc = err_set("out of memory for the decompression probe");
		goto done;
	}
	if (in == 0)
		goto done;
	frame = ZSTD_compress(packed, cap, sample, in, level);
	if (ZSTD_isError(frame)) {
		rc = err_set("zstd: cannot compress the sample: %s", ZSTD_getErrorName(frame));
		goto done;
	}
	start = now = clock_now();
	deadline = start + (clock_ns)((seconds < UNZSTD_SECONDS ? seconds : UNZSTD_SECONDS) * 1e9);
	do {
		size_t got = ZSTD_decompressDCtx(d, plain, in, packed, frame);

		if (ZSTD_isError(got) || got != in) {
			rc = err_set("zstd: cannot decompress the sample: %s",
				     ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short output");
			goto done;
		}
		out += got;
		now = clock_now();
	} while (now < deadline && out < UNZSTD_MAX_OUTPUT);
	if (now > start)
		*bps = (double)out / clock_seconds(start, now);
done:
	ZSTD_freeDCtx(d);
	free(plain);
	free(packed);
	return rc;
}
