#ifndef XFERCMP_FILES_DONE_H
#define XFERCMP_FILES_DONE_H

/*
 * The files this process's senders have finished, for the live status line
 * (cmd/live.c): every sender of our own strategies adds one as a file's
 * last byte is handed to the socket or channel, from whichever thread sends
 * it (parallel's streams each have their own). The reference tools run as
 * other processes and add nothing: their line shows bytes only. A relaxed
 * atomic counter: the line reads it twice a second and needs no ordering.
 */

#include <stdint.h>

void files_done_add(uint64_t n);

/* The count since the last reset. */
uint64_t files_done_read(void);

/* A strategy's run begins: back to 0. */
void files_done_reset(void);

#endif
