/* Whether compressing this data pays on this link (compression_advice.h). */
#include "model/compression_advice.h"
#include "model/model_text.h"

#include <math.h>

/*
 * When compression pays. B content bytes, N the link (bytes/s), C the
 * compressor's content throughput, R = content / compressed.
 *
 *   uncompressed:  T_u = B / N
 *   compressed:    T_c = max(B / C, B / (R N))
 *
 * T_c takes the max because compressor, link and decompressor run as a
 * pipeline (decompression, 1.4-3 GB/s here, is faster than compression at any
 * level that matters, so it is never the slow stage). T_c < T_u holds exactly
 * when both B / C < B / N and B / (R N) < B / N, that is N < C and R > 1.
 * So the break-even link rate is the compressor's content throughput itself,
 * whatever the ratio once it exceeds 1; the ratio sets how much it pays:
 * T_u / T_c = min(C / N, R), the full ratio only on links slower than C / R.
 * Encryption after compression would also see R times fewer bytes, which
 * only favours compression more; it is left out, so the estimate errs
 * towards "does not pay".
 */
void compression_advice(double bytes, double link_bps, const char *link, double compress_ratio, double compress_bps,
			char *out, size_t len)
{
	double n = link_bps, speedup;
	size_t used = 0;
	char s[32];

	if (len == 0)
		return;
	out[0] = '\0';
	if (!(compress_bps > 0) || !isfinite(compress_bps) || !isfinite(compress_ratio)) {
		attr_append(out, len, &used,
			    "compression throughput was not measured: cannot say where it pays");
		return;
	}
	if (!(compress_ratio > 1)) {
		attr_append(out, len, &used,
			    "compression does not pay for this data at any link rate (ratio %.2f, zstd at %s MB/s)",
			    compress_ratio > 0 ? compress_ratio : 0, attr_mb_s(compress_bps, s, sizeof(s)));
		return;
	}
	attr_append(out, len, &used,
		    "compression pays below %.2f Gbit/s for this data (ratio %.2f, zstd at %s MB/s)",
		    compress_bps * 8 / 1e9, compress_ratio, attr_mb_s(compress_bps, s, sizeof(s)));
	if (!(n > 0) || !isfinite(n))
		return;
	speedup = compress_bps / n < compress_ratio ? compress_bps / n : compress_ratio;
	/* the stream only: per-file and disk time are the same with or without compression */
	attr_append(out, len, &used, "; on %s, %.2f Gbit/s, the stream would move %.1fx %s",
		    link ? link : "the probed link", n * 8 / 1e9, speedup >= 1 ? speedup : 1 / speedup,
		    speedup >= 1 ? "faster" : "slower");
	/* seconds only where they are big enough to mean something */
	if (bytes > 0 && bytes / n >= 1.0)
		attr_append(out, len, &used, " (%.1f s instead of %.1f s)", bytes / n / speedup, bytes / n);
}
