#ifndef XFERCMP_SENT_PROGRESS_H
#define XFERCMP_SENT_PROGRESS_H

/*
 * What this process's senders have sent of the current strategy's tree, for
 * the live status line (cmd/report/live.c): every sender of our own strategies
 * adds a file as its last byte is handed to the socket or channel, and the
 * content bytes as it reads them, from whichever thread sends (parallel's
 * streams each have their own). The reference tools run as other processes
 * and add nothing: their line falls back to the interface's bytes. Relaxed
 * atomic counters: the line reads them twice a second and needs no ordering.
 */

#include <stdint.h>

void sent_progress_file(void);

void sent_progress_bytes(uint64_t n);

/* The counts since the last reset. */
void sent_progress_read(uint64_t *files, uint64_t *bytes);

/* A strategy's run begins: back to 0. */
void sent_progress_reset(void);

#endif
