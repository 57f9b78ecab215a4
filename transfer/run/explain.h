#ifndef XFERCMP_EXPLAIN_H
#define XFERCMP_EXPLAIN_H

/*
 * --explain: after the comparison, each chosen strategy runs again with one
 * resource taken away at a time, cold and checked like the rest, and the
 * report sets what each removal saved beside the model's shares, with a
 * causal verdict: the resource whose removal saved most (explain.c runs,
 * explain_decide.c decides, the reports render: report_explain.c).
 *
 *   dest_disk      the agent's null sink (agent/null_sink.h): the stream is
 *                  parsed, counted and hashed, nothing is created or written
 *   durable_write  the destination on tmpfs (a second agent whose scratch
 *                  root is in /dev/shm on the host)
 *   source_disk    the source read warm (its pages loaded first, not timed)
 *   network        the agent on this machine, over loopback
 *   cipher         our SSH strategies over the cheapest cipher the host offers
 */

#include "run/runner.h"
#include "model/accounting.h"
#include "model/model_text.h"

#include <stdbool.h>
#include <stddef.h>

enum explain_removed {
	EXPLAIN_DEST_DISK,
	EXPLAIN_DURABLE_WRITE,
	EXPLAIN_SOURCE_DISK,
	EXPLAIN_NETWORK,
	EXPLAIN_CIPHER,
	EXPLAIN_REMOVED_COUNT
};

enum explain_status {
	EXPLAIN_NOT_RUN,	/* interrupted before it ran */
	EXPLAIN_OK,
	EXPLAIN_SKIPPED,	/* not meaningful or not possible here: reason says why */
	EXPLAIN_FAILED,
};

/*
 * A removal saving less than this fraction of the time names no resource:
 * two runs of one copy on this machine differ by this much (a probe and a
 * run of one rate agree within 10%: docs/MODEL.md).
 */
#define EXPLAIN_NOISE 0.10

struct explain_ablation {
	enum explain_removed removed;
	enum explain_status status;
	double seconds;		/* transfer + flush; 0 unless OK */
	double saved_fraction;	/* (baseline - seconds) / baseline; negative: slower */
	bool verified;		/* a verified copy (never for dest_disk) */
	bool stream_checked;	/* dest_disk: the null sink's count and hashes matched */
	char reason[1024];	/* why skipped or failed; "" otherwise */
};

/* One explained strategy. */
struct explain_item {
	const struct strategy_result *result;	/* the comparison's result it explains */
	double baseline_seconds;		/* that result's time */
	struct explain_ablation ab[EXPLAIN_REMOVED_COUNT];
	/*
	 * The causal verdict: the resource whose removal saved most (beyond
	 * EXPLAIN_NOISE); RES_CPU by elimination when none did and every removal
	 * that could run ran; RES_COUNT when there is none.
	 */
	enum resource causal;
	enum explain_removed causal_by;	/* the removal behind it (when not by elimination) */
	bool by_elimination;
	/* the model's verdict agrees (both name one resource; network and latency are one link) */
	bool has_agreement, agrees;
	/*
	 * The control: the strategy rerun once with nothing removed, just
	 * before its removals, so that a removal's saving is a saving and not
	 * the baseline's noise. The savings are measured against it when it ran
	 * (explain_reference). baseline_outlier: the comparison's baseline lies
	 * beyond the control's noise (explain_decide); then there is no causal
	 * verdict.
	 */
	enum explain_status control_status;
	double control_seconds;		/* transfer + flush; 0 unless OK */
	char control_reason[1024];	/* why it did not run */
	bool baseline_outlier;
};

struct explain_report {
	struct explain_item items[8];
	size_t n;
	bool partial;	/* interrupted: the items' NOT_RUN ablations did not run */
};

/* The name of a removal in the JSON ("dest_disk", ...) and in text ("the destination disk"). */
const char *explain_removed_name(enum explain_removed r);
const char *explain_removed_text(enum explain_removed r);
const char *explain_status_name(enum explain_status s);

/*
 * Whether a's run may be reported as a verified copy: it ran and verified,
 * and it is not the null sink's (dest_disk), which keeps nothing whatever
 * its flag says. Every report (table, JSON, HTML) asks here.
 */
bool explain_ablation_verified(const struct explain_ablation *a);

/* What it's removals are measured against: the control's time when it ran, else the baseline. */
double explain_reference(const struct explain_item *it);

/*
 * Fills it->baseline_outlier: the control ran and the baseline is further
 * from it than their noise, the larger of EXPLAIN_NOISE of the longer and
 * the spread of the comparison's runs (--repeat).
 */
void explain_check_baseline(struct explain_item *it);

/*
 * Fills it->causal, causal_by, by_elimination and the agreement from its
 * ablations and the result's model verdict. files, bytes: the workload;
 * create_per_s, write_bps, open_per_s, read_bps: the ceilings (0: not
 * measured), which split a destination or source removal's saving into disk
 * (bytes) or metadata (files): the larger of the two times at its ceiling,
 * or without ceilings files of 64 KiB or less on average reading metadata.
 * With a baseline_outlier (explain_check_baseline, called here) there is
 * no verdict: causal RES_COUNT and no agreement.
 */
void explain_decide(struct explain_item *it, uint64_t files, uint64_t bytes, double create_per_s,
		    double write_bps, double open_per_s, double read_bps);

#endif
