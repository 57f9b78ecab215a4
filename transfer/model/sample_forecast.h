#ifndef XFERCMP_SAMPLE_FORECAST_H
#define XFERCMP_SAMPLE_FORECAST_H

/*
 * The whole migration's forecast from a run on a sample of it (--sample;
 * docs/MODEL.md, "From a sample"). The sample's run calibrates the model's
 * level; the model scales each stage from the sample's counts to the
 * whole's (bytes, files, directories, requests) and keeps what does not
 * scale (the fixed cost measured on one file, else the model's handshakes;
 * slow start); the flush is the sample's measured one
 * scaled as the model scales it. The whole's own run (--check) comes
 * after: nothing of it is in reach here.
 */

#include "model/forecast.h"

/* the shares of a run's bytes after which its rate is read: a quarter, a half, three quarters */
#define SAMPLE_SPLITS 3
#define SAMPLE_SPLIT_MID 1
#define SAMPLE_SPLIT_AT(k) (0.25 * ((k) + 1))

/*
 * What the sample's runs measured (the median run's phases, and the runs'
 * spread), and what the strategy's run on one file of the workload
 * measured before them: its fixed cost per run.
 */
struct sample_run {
	double transfer_s, flush_s;	/* the median run's */
	double min_s, max_s;		/* the fastest and slowest run's time, transfer and flush */
	/*
	 * The one-file run's transfer (its median): what a run costs whatever
	 * its size (processes started, sessions and streams set up, the end of
	 * the stream acknowledged), which no stage of the model holds. 0:
	 * unknown, the model's handshakes and ramp stand for it instead.
	 */
	double fixed_s;
	/* the model's handshakes and ramp for that one file (its forecast's need_s[RES_LATENCY]): fixed_s holds them */
	double fixed_latency_s;
	/*
	 * The median run's transfer at the rate of its later bytes: from the
	 * moment the wire had carried SAMPLE_SPLIT_AT(k) of the run's bytes to
	 * the end of its transfer, over the share left; the middle split is
	 * the forecast's, the other two bound its range. A real tool's own
	 * OpenSSH connection warms up on its first megabytes: what of the
	 * sample's transfer beyond the fixed cost these leave out is paid once
	 * a run, not once a sample's worth. 0: unknown (no series of the link).
	 */
	double later_s[SAMPLE_SPLITS];
};

/*
 * The forecast of whole (the whole workload's counts) from sample (the
 * sample's counts, the same strategy and probes) and what the sample's
 * runs measured. low and high: the runs' spread, and, when the stage that
 * bounds the whole is not the sample's, the model's own forecast of the
 * whole as well (the sample then calibrated another stage). Returns 0, or
 * -1 (error set) on a bad input; no forecast (seconds 0, why) when the
 * model has none for this strategy.
 */
int sample_forecast(const struct forecast_input *whole, const struct forecast_input *sample,
		    const struct sample_run *run, struct forecast *out);

#endif
