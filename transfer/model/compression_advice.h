#ifndef XFERCMP_COMPRESSION_ADVICE_H
#define XFERCMP_COMPRESSION_ADVICE_H

#include <stddef.h>

/*
 * Writes one line saying whether compressing this data pays on the probed
 * link: "compression pays below X Gbit/s for this data (ratio R, zstd at S
 * MB/s)" followed by what it would do on that link (link_bps, bytes/s).
 * ratio is content bytes / compressed bytes and compress_bps the
 * compressor's content throughput, both measured on a sample of the data;
 * bytes the content to move; link names the link link_bps is of ("the
 * measured link to testbed, as splice sees it"; NULL: "the probed link"),
 * for a report that speaks of more than one. The derivation is in
 * compression_advice.c.
 */
void compression_advice(double bytes, double link_bps, const char *link, double compress_ratio, double compress_bps,
			char *out, size_t len);

#endif
