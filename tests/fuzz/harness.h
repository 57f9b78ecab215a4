#ifndef XFERCMP_FUZZ_HARNESS_H
#define XFERCMP_FUZZ_HARNESS_H

/*
 * What the receiver fuzzers share: a socket that holds one input and then
 * ends, and a jail of directories around each run's destination so that a
 * write that leaves the destination shows up as a new entry beside it.
 * Harness failures (cannot make a socket or a directory) are not product
 * bugs: they print "harness:" and abort, which libFuzzer reports as a crash.
 */

#include "stream/recv_opts.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define HARNESS_DEST_MAX 512

struct harness_feed {
	int rd;			/* the receiver reads this end */
	int wr;			/* -1 once the input is all written and this end closed */
	const uint8_t *rest;	/* what the writer thread has still to write */
	size_t rest_len;
	size_t chunk;		/* 0: as fast as it goes; else the size of each write */
	_Atomic int stop;	/* the receiver has returned: the thread stops waiting */
	pthread_t thread;
	int threaded;
};

/*
 * Makes a socketpair whose read end holds data and then reports the end of
 * the stream. chunk 0: the input is written here if it fits in the
 * (enlarged) socket buffer, so each run reads the same bytes in the same
 * chunks; what does not fit goes from a thread. chunk > 0: a thread writes
 * chunk bytes at a time, each only once the receiver has read everything
 * before it, so reads end at chunk boundaries: content arrives after its
 * header, as it does over a network. Call harness_feed_finish after the
 * receiver returns.
 */
void harness_feed_start(struct harness_feed *f, const uint8_t *data, size_t size, size_t chunk);
/* Joins the writer thread, if any, and closes both ends. */
void harness_feed_finish(struct harness_feed *f);

/*
 * Once per process: caps the size of any file written (a compressed stream
 * can expand without bound) and makes the jail:
 * SCRATCH/xfercmp-fuzz-NAME.XXXXXX/a/b,
 * SCRATCH being $XFERCMP_FUZZ_SCRATCH or /dev/shm. harness_jail_cleanup
 * (registered with atexit) removes it.
 */
void harness_jail_init(const char *name);

/*
 * A fresh, empty destination directory inside the jail: mkdtemp into dest.
 * Also ignores SIGXFSZ, so a write past the cap fails with EFBIG.
 */
void harness_dest_make(char dest[HARNESS_DEST_MAX]);

/*
 * After a run: aborts, naming the entry, if anything appeared beside dest or
 * its two parents (something was written outside dest), or if dest holds
 * anything but directories, symbolic links and regular files (a file of
 * several names only if all of them are inside dest: no hard link leads
 * out), or a set-user-ID or set-group-ID bit, or if an fd opened by the run
 * is still open. Then removes dest.
 */
void harness_dest_check(const char *dest, int fds_before);

/*
 * The same for a receiver that makes links: dest may also hold symbolic
 * links (never followed here; whatever their text) and regular files with
 * more names, all of which must be inside dest.
 */
void harness_dest_check_links(const char *dest, int fds_before);

/* The number of open file descriptors, to catch a run that leaks one. */
int harness_count_fds(void);

void harness_jail_cleanup(void);

/*
 * Every data connection carries authenticated segments (stream/seal_stream.h):
 * harness_opts holds the key the receivers are given, harness_seal cuts an
 * input into segments of seg bytes (0: 1 MiB) under it, the last flagged the
 * end, so the fuzzed bytes reach the parser behind the check. Returns the
 * sealed bytes (malloc'd, *len their count); aborts when out of memory.
 */
extern const struct recv_opts harness_opts;
uint8_t *harness_seal(const uint8_t *data, size_t size, size_t seg, size_t *len);
/*
 * The same as a sender cuts a record stream (test_seal_records_with): the
 * content of a record longer than FRAME_RAW_MIN raw after its record's
 * segment (stream/frames.h).
 */
uint8_t *harness_seal_records(const uint8_t *data, size_t size, size_t *len);

/*
 * For the targets that speak the control protocol: ignores SIGPIPE (a peer
 * the target closed) and gives the session key of a fixed token.
 */
void harness_session_key(unsigned char key[32]);

#endif
