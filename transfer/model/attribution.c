/*
 * Bottleneck attribution and prediction: the model is documented in
 * attribution.h. Nothing here reads a clock or a file, so every number is
 * unit-tested.
 */
#include "model/attribution.h"
#include "model/attribution_text.h"
#include "model/attribution_window.h"

#include "err.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/*
 * Segments a new TCP connection may send in its first round trip (Linux's
 * initial congestion window, RFC 6928) and the segment size on an Ethernet
 * path: slow start doubles from there each round trip until the window.
 */
#define INITIAL_WINDOW_SEGMENTS 10
#define SEGMENT_BYTES 1448

/* amount / rate, or 0 when the rate is unknown (0, negative, NaN, infinite). */
static double at_rate(double amount, double rate)
{
	if (!(rate > 0) || !isfinite(rate))
		return 0;
	return amount / rate;
}

/* A measured fraction clamped to [0, 1], or -1 when unknown. */
static double measured(double frac)
{
	if (!(frac >= 0) || !isfinite(frac))
		return -1;
	return frac > 1 ? 1 : frac;
}

static double positive(double v)
{
	return v > 0 && isfinite(v) ? v : 0;
}

static double max2(double a, double b)
{
	return a > b ? a : b;
}

static double request_rtt(const struct ceilings *c)
{
	return positive(c->request_rtt_s) > 0 ? c->request_rtt_s : positive(c->rtt_s);
}

/*
 * What a round trip waits beyond the CPU both ends spend on it. The serial
 * path adds both ends' measured CPU to its round trips, which already holds
 * that CPU: on the testbed's veth a 1-byte round trip took 46-58 µs, of which
 * the probe's two threads spent about half in CPU, and 20,000 files through
 * scp (80,023 requests) were predicted 1.11-1.21 of their 13.2-13.9 s with
 * the whole round trip added (2026-12-05).
 */
static double rtt_wait(const struct ceilings *c)
{
	double wait = positive(c->rtt_s) - positive(c->rtt_cpu_s);

	return wait > 0 ? wait : 0;
}

/* Round trips a bulk stream spends in slow start before its window is open. */
static double slow_start_round_trips(const struct attribution_input *in, const struct ceilings *c)
{
	unsigned streams = in->streams ? in->streams : 1;
	double per_stream = (double)in->wire_bytes / streams, window = positive(c->window_bytes);
	double first = INITIAL_WINDOW_SEGMENTS * SEGMENT_BYTES, reach;

	if (!in->bulk_stream || per_stream <= first)
		return 0;
	reach = window > 0 && window < per_stream ? window : per_stream;
	return reach > first ? ceil(log2(reach / first)) : 0;
}

/* The disk's two terms: the destination's durable writes and the source's cold reads. */
static void disk_terms(const struct attribution_input *in, const struct ceilings *c, double *read,
		       double *write)
{
	*write = in->dest_is_tmpfs ? 0 : at_rate((double)in->bytes, c->disk_write_bps);
	*read = in->src_is_warm ? 0 : at_rate((double)in->bytes, c->disk_read_bps);
}

/*
 * The bytes at the rate the one disk was probed reading and writing at
 * once, where reads and writes both fall on it, it was so probed, and the
 * run went no faster than that rate allows (within the noise); else 0.
 * The probe at once copies 1 GiB at most, and its time holds the agent
 * making and removing its file; a smaller copy can go faster. In a fresh-clone CI run
 * of 2026-12-05 splice moved 2 GiB at 1,470 MB/s each way where the probe
 * at once had moved 1,190 MB/s: the two alone in turn (3,271 MB/s cold,
 * 3,087 MB/s durable: 1.35 s) then stand, a measured ceiling too, rather
 * than the disk being left out as understated.
 */
static double copy_need(const struct attribution_input *in, const struct ceilings *c, double read,
			double write)
{
	double copy;

	if (!in->shared_disk || read <= 0 || write <= 0 || !(c->disk_copy_bps > 0))
		return 0;
	copy = at_rate((double)in->bytes, c->disk_copy_bps);
	return in->wall_s > 0 && copy > in->wall_s * (1 + ATTRIBUTION_CEILING_NOISE) ? 0 : copy;
}

/*
 * One disk's need: reading and writing the same bytes at once at the rate
 * the disk was probed doing both, where it was and that stands; otherwise,
 * on one disk, the two in turn, each at its rate alone; on two, the slower.
 * On this VM the rate at once held within 6% across three probes
 * (1.13-1.20 GB/s each way, 2026-12-05), while the two alone, each a
 * fraction of a second, ranged 2.01-2.84 GB/s (read) and 2.58-3.10 GB/s
 * (write) in the same probes.
 */
static double disk_need(const struct attribution_input *in, const struct ceilings *c, double read,
			double write)
{
	double copy = copy_need(in, c, read, write);

	if (copy > 0)
		return copy;
	return in->shared_disk ? write + read : max2(write, read);
}

/*
 * The need that tests stage r's ceilings against the wall time: its need,
 * but for a shared disk not probed at once the larger term (each ceiling
 * was measured alone; their sum exceeding the wall is the device
 * overlapping, not a ceiling wrong).
 */
static double ceiling_need(const struct attribution_input *in, const struct ceilings *c,
			   const double need[RES_COUNT], int r)
{
	double read, write;

	if (r != RES_DISK || !in->shared_disk || need[r] <= 0)
		return need[r];
	disk_terms(in, c, &read, &write);
	return copy_need(in, c, read, write) > 0 ? need[r] : max2(read, write);
}

/*
 * The flush phase of a pipeline, in series after its transfer: the network
 * and the CPU stages end with the transfer's last byte, and the syncfs then
 * waits on the destination's disk alone. (The disk and metadata ceilings
 * were probed to durable, write + fsync and creates + syncfs, so their needs
 * hold their flush already.) Measured on the testbed 2026-12-02, the flush
 * after a pipeline whose transfer was cpu-bound: 0.5-1.6 s for 120,000
 * small files (tar-ssh 0.52, zstd-ssh 1.09, splice 1.23, zstd 1.63,
 * parallel 1.42 s), 1.0-1.3 s for 4 GiB through zstd and zstd-ssh, 2.6 s
 * for 1 GiB through zstd-ssh at 2 ms. A tmpfs destination has no disk to
 * wait on: 0 there, as for a serial strategy (its disk term is in series
 * already).
 */
static double flush_tail(const struct attribution_input *in)
{
	if (in->structure != ATTR_PIPELINE || in->dest_is_tmpfs)
		return 0;
	return positive(in->flush_s);
}

/*
 * A bulk stream's slow start as a race with the pipeline's other stages:
 * its round trips (*ramp, their seconds), then what they did not carry at
 * the link's rate, then the flush; 0 (and *ramp 0) without a slow start.
 * Data flows during those round trips (a window from
 * INITIAL_WINDOW_SEGMENTS doubling each), and the stages behind it (our
 * sender's reads, the receiver's creates) work meanwhile.
 */
static double slow_start_race(const struct attribution_input *in, const struct ceilings *c,
			      double *ramp)
{
	unsigned streams = in->streams ? in->streams : 1;
	double rounds = slow_start_round_trips(in, c);
	double carried = streams * INITIAL_WINDOW_SEGMENTS * SEGMENT_BYTES * (exp2(rounds) - 1);
	double rest;

	*ramp = rounds * positive(c->rtt_s);
	if (!(*ramp > 0))
		return *ramp = 0;
	/* no more than the link carries meanwhile: the window outgrows a short round trip's path */
	if (positive(c->net_bps) > 0 && carried > *ramp * c->net_bps)
		carried = *ramp * c->net_bps;
	rest = (double)in->wire_bytes - carried;
	return *ramp + at_rate(rest > 0 ? rest : 0, c->net_bps) + flush_tail(in);
}

static double sender_stage(const struct attribution_input *in, const struct ceilings *c, double open_s,
			   double *wait);

/* The source's cold opens at their probed rate (0: a warm source). */
static double probed_opens(const struct attribution_input *in, const struct ceilings *c)
{
	return in->src_is_warm ? 0 : at_rate((double)in->files, c->src_open_per_s);
}

/* Is need[r] our sender's stage (sender_stage)? */
static bool is_sender_stage(const struct attribution_input *in, const struct ceilings *c,
			    const double need[RES_COUNT], int r)
{
	double sender = sender_stage(in, c, need[RES_METADATA] > 0 ? probed_opens(in, c) : 0, NULL);

	return sender > 0 && fabs(need[r] - sender) <= 1e-9 * sender;
}

/*
 * Does stage r of a pipeline end with the transfer, so that the flush tail
 * follows it? The network and the CPU do, and so does our sender's stage
 * when the source's opens in it make it the metadata's need: the
 * destination's creates, the metadata's other need, were probed to durable
 * and hold their flush.
 */
static bool ends_with_transfer(const struct attribution_input *in, const struct ceilings *c,
			       const double need[RES_COUNT], int r)
{
	if (r == RES_NETWORK || r == RES_CPU)
		return true;
	return r == RES_METADATA && need[r] > 0 && is_sender_stage(in, c, need, r);
}

/*
 * The slowest overlapped stage of a pipeline (latency apart), the flush tail
 * counted after the stages that end with the transfer, or RES_COUNT; *term
 * (may be NULL) is its time, tail included.
 */
static enum resource pipeline_slowest(const struct attribution_input *in, const struct ceilings *c,
				      const double need[RES_COUNT], double *term)
{
	enum resource slowest = RES_COUNT;
	double best = 0, tail = flush_tail(in);

	for (int r = 0; r < RES_COUNT; r++) {
		double t = need[r] + (need[r] > 0 && ends_with_transfer(in, c, need, r) ? tail : 0);

		if (r == RES_LATENCY || !(need[r] > 0) || t <= best)
			continue;
		best = t;
		slowest = (enum resource)r;
	}
	if (term)
		*term = best;
	return slowest;
}

/* A request at most this large is a small one (pick_verdict, predict). */
#define REQUEST_PATH_MAX_BYTES (1024.0 * 1024)

static bool small_requests(const struct attribution_input *in)
{
	return in->round_trips > 0 && (double)in->bytes / (double)in->round_trips <= REQUEST_PATH_MAX_BYTES;
}

/*
 * What `files` cold opens wait beyond the CPU they take (open_s at the
 * probed rate): a thread that opens them in turn is charged that CPU in its
 * own, so only the rest is a wait beside it.
 */
static double open_wait(const struct attribution_input *in, const struct ceilings *c, double open_s)
{
	double wait = open_s - (double)in->files * positive(c->src_open_cpu_s);

	return wait > 0 ? wait : 0;
}

/*
 * Our sender's one thread, opening and reading one file at a time: its own
 * CPU and what it waited for a core, then each cold open's wait in turn
 * (open_s: the opens at the probed rate, 0 when the source is warm or the
 * ceiling left out; *wait, may be NULL: that wait). 0 when the strategy has
 * no such sender. In the truth bench of 2026-12-04 (120,000 files, one
 * disk) the pipelines with such a sender ran 0.59-0.74 of a prediction that
 * overlapped the opens with the CPU: tar-ssh 12.34 s where the sender's
 * thread used 4.64 s of CPU and the opens took 7.13 s at the probed rate,
 * zstd-ssh 11.01 s (4.05 s), zstd 9.68 s (4.02 s); 0.81-0.83 of one that
 * added the opens' waits beyond their CPU (2026-12-05), both ends' processes
 * then using 1.2 cores of the 2 the machine has.
 */
static double sender_work(const struct attribution_input *in)
{
	return in->sender_thread_cpu_s > 0 ? in->sender_thread_cpu_s + positive(in->sender_run_delay_s) : 0;
}

static double sender_stage(const struct attribution_input *in, const struct ceilings *c, double open_s,
			   double *wait)
{
	double work = sender_work(in), w = 0, stage = 0;

	/*
	 * Measured in the run: the sender's time less what it waited for the
	 * next stage to take its bytes. Its waits are the source's as they went
	 * beside the rest of the run, where the probe had the disk alone. On
	 * the testbed at 1 Gbit/s and 2 ms (20,000 files, one disk, 2026-12-05)
	 * tar-ssh's sender took 1.68 s of its own in a 1.91 s transfer, 0.7 s
	 * of it CPU and waiting for a core, where the opens at the probed rate
	 * (18,564/s alone) made a stage of 1.3 s: the prediction read 0.70.
	 */
	if (work > 0 && in->sender_own_s > 0) {
		stage = max2(in->sender_own_s, work);
		w = stage - work;
	} else if (work > 0) {
		w = open_s > 0 ? open_wait(in, c, open_s) : 0;
		stage = work + w;
	}

	if (wait)
		*wait = w;
	/* longer than the run itself: its opens overlapped its work after all */
	if (in->wall_s > 0 && stage > in->wall_s * (1 + ATTRIBUTION_CEILING_NOISE))
		return 0;
	return stage;
}

/*
 * Our part of a serial request path: our process's CPU and what its threads
 * waited for a core, each request passing through them in turn. 120,000
 * files through scp on the testbed (2026-12-05, 480,126 requests, 69.2 s):
 * our 21.9 s of CPU and the host's 27.3 s, and the thread of ours that made
 * the requests alone waited 5.5 s for a core; without those waits the path
 * was predicted 0.80 of the run. With them, in a run of 68.3 s: 1.02.
 */
static double own_path_work(const struct attribution_input *in)
{
	return positive(in->own_cpu_s) + positive(in->own_run_delay_s);
}

/* attribution_predict, and whether the serial request path set the time (*path, may be NULL). */
static double predict(const struct attribution_input *in, const struct ceilings *c,
		      unsigned drop, double need[RES_COUNT], enum resource *bound, bool *path)
{
	double create = at_rate((double)in->files, c->create_per_s);
	double open = probed_opens(in, c), opens_waited;
	double read, write;
	double cpu_model = at_rate((double)in->bytes, c->cpu_bps) +
			   at_rate((double)in->wire_bytes, c->cipher_bps);
	double predicted = 0;
	enum resource b = RES_COUNT;

	disk_terms(in, c, &read, &write);
	if (path)
		*path = false;
	need[RES_NETWORK] = at_rate((double)in->wire_bytes, c->net_bps);
	need[RES_LATENCY] = (double)in->round_trips * request_rtt(c) +
			    ((double)in->setup_round_trips + slow_start_round_trips(in, c)) *
				    positive(c->rtt_s);
	need[RES_DISK] = disk_need(in, c, read, write);
	/*
	 * Our sender opening one file at a time spends each open's CPU in its
	 * own thread, measured (sender_stage): of the probe's opens only the
	 * wait beyond their CPU is the source's, and the probe's thread spent
	 * more CPU an open than a sender does. Truth bench of 2026-12-05, 120,000
	 * files: the probe read 10,451/s one at a time, 51 µs of CPU in each
	 * 96 µs open; zstd's sender opened 12,052/s with 34.6 µs of its
	 * thread's CPU a file. The opens at the probe's rate (11.5 s) were then
	 * longer than the run (10.0 s) and left out as understated, with them
	 * the sender's stage's waits (0.59); the stage with them: 10.3 s.
	 */
	if (in->structure == ATTR_PIPELINE && open > 0 && sender_stage(in, c, open, &opens_waited) > 0)
		need[RES_METADATA] = max2(create, opens_waited);
	else
		need[RES_METADATA] = in->structure == ATTR_SERIAL ? create + open : max2(create, open);
	need[RES_CPU] = max2(cpu_model, positive(in->cpu_stage_s));
	if (drop & (1u << RES_CPU)) {
		/*
		 * The probe's rate is what was understated (a zstd probe once read
		 * 1.0 MB/s at level 19 for a run that went 4x faster); the CPU stage
		 * this run measured in /proc stands, when it fits the run.
		 */
		double stage = positive(in->cpu_stage_s);

		need[RES_CPU] = in->wall_s > 0 && stage > in->wall_s * (1 + ATTRIBUTION_CEILING_NOISE) ? 0 : stage;
		drop &= ~(1u << RES_CPU);
	}
	for (int r = 0; r < RES_COUNT; r++)
		if (!isfinite(need[r]) || need[r] < 0 || (drop & (1u << r)))
			need[r] = 0;
	if (!(drop & (1u << RES_LATENCY)))
		need[RES_LATENCY] += attribution_window_wait(in, c, need);

	if (in->structure == ATTR_SERIAL) {
		double waits = 0, biggest = 0;

		for (int r = 0; r < RES_COUNT; r++) {
			if (r == RES_CPU)
				continue;
			waits += need[r];
			if (need[r] > biggest) {
				biggest = need[r];
				b = (enum resource)r;
			}
		}
		predicted = waits;
		if (need[RES_CPU] > predicted) {
			predicted = need[RES_CPU];
			b = RES_CPU;
		}
		if (in->own_cpu_s >= 0 && in->peer_cpu_s >= 0) {
			double own = own_path_work(in);
			/*
			 * The request path's measured work, one request after another:
			 * measured, not a ceiling, so it stands when the request
			 * round trip's ceiling was left out as understated.
			 */
			double waited = in->peer_cpu_s + ((double)in->round_trips +
							  (double)in->setup_round_trips) * rtt_wait(c);

			/*
			 * Every part of it is a request's round trip: our work on it,
			 * the wire, the host's work. It is latency, whichever end's
			 * part is the larger: fewer or overlapped requests remove it.
			 */
			if (small_requests(in)) {
				/*
				 * Small requests, one after another: the path, then
				 * what it waited that no process's CPU holds: the
				 * source's cold opens, the disk, the link. The
				 * creates are not added: the host made them in its
				 * per-request work, in its CPU. In a fresh-clone CI
				 * run the create probe read 1,552/s (its syncfs
				 * flushing what others had written) for 20,000 files
				 * that scp made at 1,258/s in 15.9 s with sshd and
				 * sftp-server at 8.7 s of CPU and ours at 5.2 s:
				 * creates and round trips added came to 20.8 s
				 * (1.31); the path and the opens 15.2 s (0.96).
				 */
				double opens = need[RES_METADATA] > 0 ? open_wait(in, c, open) : 0;
				double beside = need[RES_NETWORK] + need[RES_DISK] + opens;

				need[RES_METADATA] = opens;
				need[RES_LATENCY] = max2(need[RES_LATENCY], waited + own);
				predicted = need[RES_LATENCY] + beside;
				b = RES_LATENCY;
				for (int r = 0; r < RES_COUNT; r++)
					if (r != RES_CPU && need[r] > need[b])
						b = (enum resource)r;
				if (need[RES_CPU] > predicted) {
					predicted = need[RES_CPU];
					b = RES_CPU;
				}
				if (path)
					*path = b == RES_LATENCY;
			} else if (waited + own > predicted &&
				   !(in->wall_s > 0 &&
				     waited + own > in->wall_s * (1 + ATTRIBUTION_MISFIT))) {
				/*
				 * A few large requests: their path only while it fits
				 * the run within a misfit. Beyond, its parts ran side by
				 * side (pick_verdict) and no serial path sets the time:
				 * one 4 GiB file through scp in the truth bench, 27.6 s
				 * of path in 19.3 s, its round trip's ceiling noted as
				 * understated and left out while the prediction took it.
				 */
				predicted = waited + own;
				need[RES_LATENCY] = max2(need[RES_LATENCY], predicted);
				b = RES_LATENCY;
				if (path)
					*path = true;
			}
		}
	} else {
		double slowest, wait, sender = sender_stage(in, c, need[RES_METADATA] > 0 ? open : 0, &wait);
		/* the sender's stage is the opens' when they are most of it, else its CPU's */
		int r = wait >= sender_work(in) ? RES_METADATA : RES_CPU;

		if (sender > need[r] && !(drop & (1u << r)))
			need[r] = sender;
		/*
		 * The round trips nothing flows in (requests, setup, the window's
		 * waits) come first; the slow start then races the slowest stage.
		 * With both added, the 1 Gbit/s + 20 ms truth case (20,000 files,
		 * 2026-12-05) read tar-ssh 1.14, parallel 1.17 and splice 1.05:
		 * 0.22-0.24 s of round trips, 8 of them slow start, in series with
		 * stages that had started.
		 */
		double ramp = 0, race = drop & (1u << RES_LATENCY) ? 0 : slow_start_race(in, c, &ramp);

		b = pipeline_slowest(in, c, need, &slowest);
		predicted = max2(need[RES_LATENCY] - ramp, 0) + max2(slowest, race);
		/* a race the link's rate holds more than its round trips is the network's */
		if (race > slowest)
			b = ramp > race / 2 ? RES_LATENCY : RES_NETWORK;
		if (need[RES_LATENCY] > slowest)
			b = RES_LATENCY;
	}
	if (bound)
		*bound = predicted > 0 ? b : RES_COUNT;
	return predicted;
}

double attribution_predict(const struct attribution_input *in, const struct ceilings *c,
			   unsigned drop, double need[RES_COUNT], enum resource *bound)
{
	return predict(in, c, drop, need, bound, NULL);
}

/* Is stage r on the critical path of the prediction (its share counts)? */
static bool on_critical_path(const struct attribution_input *in, const struct ceilings *c,
			     const double need[RES_COUNT], enum resource bound, bool path, int r)
{
	if (need[r] <= 0)
		return false;
	if (path)
		return r == RES_LATENCY || (small_requests(in) && r != RES_CPU);
	if (in->structure == ATTR_SERIAL)
		return bound == RES_CPU ? r == RES_CPU : r != RES_CPU;
	return r == RES_LATENCY || r == (int)pipeline_slowest(in, c, need, NULL);
}

/*
 * The flush tail's share of a pipeline: the destination disk's, when the
 * slowest stage ended with the transfer and the flush then waited on it
 * (else the disk's own need holds it, or the disk is off the path).
 */
static double tail_share(const struct attribution_input *in, const struct ceilings *c,
			 const double need[RES_COUNT], bool path, double den)
{
	enum resource slowest = pipeline_slowest(in, c, need, NULL);

	if (path || in->structure != ATTR_PIPELINE || slowest == RES_COUNT ||
	    !ends_with_transfer(in, c, need, slowest))
		return 0;
	return flush_tail(in) / den;
}

static void append_busy(char *buf, size_t len, size_t *used, const char *what, double busy)
{
	if (busy >= 0)
		attr_append(buf, len, used, " (%s %.0f%% busy)", what, busy * 100);
}

/*
 * A run a little faster than its ceiling (within ATTRIBUTION_CEILING_NOISE,
 * or the stage would not be the verdict) ran at it: said, so that a line
 * never leaves a rate above a ceiling unexplained.
 */
static void append_at_ceiling(char *buf, size_t len, size_t *used, double ran, double ceiling)
{
	if (ceiling > 0 && ran > ceiling)
		attr_append(buf, len, used, ": at that ceiling (a probe and a run agree within %.0f%%)",
			    ATTRIBUTION_CEILING_NOISE * 100);
}

static void reason_network(const struct attribution_input *in, const struct ceilings *c,
			   double wall, char *buf, size_t len)
{
	char rate[32], ceil_s[32];
	size_t used = 0;

	attr_append(buf, len, &used, "moved %s MB/s over a link measured at %s MB/s",
		    attr_mb_s((double)in->wire_bytes / wall, rate, sizeof(rate)),
		    attr_mb_s(c->net_bps, ceil_s, sizeof(ceil_s)));
	if (in->streams > 1)
		attr_append(buf, len, &used, " with %u streams", in->streams);
	append_at_ceiling(buf, len, &used, (double)in->wire_bytes / wall, c->net_bps);
}

static void reason_latency(const struct attribution_input *in, const struct ceilings *c,
			   double wall, const double need[RES_COUNT], bool understated, char *buf,
			   size_t len)
{
	char n[32], rtt[32];
	size_t used = 0;
	double window_wait = attribution_window_wait(in, c, need);

	/* mostly waiting on a window: say so, with its numbers */
	if (window_wait > need[RES_LATENCY] / 2) {
		attribution_window_reason(in, c, wall, window_wait, buf, len);
		return;
	}
	/* the measured path, also when the request round trip's ceiling was left out */
	if (in->round_trips > 0 && in->peer_cpu_s >= 0 &&
	    (understated || need[RES_LATENCY] > (double)in->round_trips * request_rtt(c) +
							(double)in->setup_round_trips * positive(c->rtt_s) + 1e-9)) {
		char wait[32], beyond[64] = "", core[48] = "";

		if (positive(c->rtt_cpu_s) > 0)
			snprintf(beyond, sizeof(beyond), " (%s of each beyond their CPU)",
				 attr_rtt(rtt_wait(c), wait, sizeof(wait)));
		if (positive(in->own_run_delay_s) > 0)
			snprintf(core, sizeof(core), " and %.1f s waiting for a core", in->own_run_delay_s);
		attr_append(buf, len, &used,
			    "%s requests waited on the host's per-request work (%.1f s of CPU%s%s), ours (%.1f s%s) and %s round trips%s: %.1f s of %.1f s",
			    attr_grouped((double)in->round_trips, n, sizeof(n)), in->peer_cpu_s,
			    in->peer_busiest[0] ? ", most of it " : "", in->peer_busiest,
			    positive(in->own_cpu_s), core, attr_rtt(c->rtt_s, rtt, sizeof(rtt)),
			    beyond, need[RES_LATENCY], wall);
	} else if (in->round_trips > 0)
		attr_append(buf, len, &used, "%s requests × %s waited: %.1f s of %.1f s",
			    attr_grouped((double)in->round_trips, n, sizeof(n)),
			    attr_rtt(request_rtt(c), rtt, sizeof(rtt)), need[RES_LATENCY], wall);
	else
		attr_append(buf, len, &used, "%s round trips × %s waited (handshakes, slow start): %.1f s of %.1f s",
			    attr_grouped(need[RES_LATENCY] / positive(c->rtt_s), n, sizeof(n)),
			    attr_rtt(c->rtt_s, rtt, sizeof(rtt)), need[RES_LATENCY], wall);
}

static void reason_disk(const struct attribution_input *in, const struct ceilings *c,
			double wall, char *buf, size_t len)
{
	double read, write;
	char rate[32], ceil_s[32], ceil_r[32];
	size_t used = 0;

	disk_terms(in, c, &read, &write);
	/* MB/s, not GB/s: 120,000 small files move a few MB/s, which GB/s shows as 0.00 */
	attr_mb_s((double)in->bytes / wall, rate, sizeof(rate));
	if (copy_need(in, c, read, write) > 0) {
		attr_append(buf, len, &used,
			    "read and wrote %s MB/s each on one disk, which read cold and wrote durable %s MB/s each at once in its probe",
			    rate, attr_mb_s(c->disk_copy_bps, ceil_s, sizeof(ceil_s)));
		append_at_ceiling(buf, len, &used, (double)in->bytes / wall, c->disk_copy_bps);
		append_busy(buf, len, &used, "disk", measured(in->dest_disk_busy));
	} else if (in->shared_disk && read > 0 && write > 0) {
		attr_append(buf, len, &used,
			    "read and wrote %s MB/s each on one disk, measured alone at %s MB/s cold and %s MB/s durable: the reads and the writes share it",
			    rate, attr_mb_s(c->disk_read_bps, ceil_r, sizeof(ceil_r)),
			    attr_mb_s(c->disk_write_bps, ceil_s, sizeof(ceil_s)));
		append_busy(buf, len, &used, "disk", measured(in->dest_disk_busy));
	} else if (write >= read) {
		attr_append(buf, len, &used, "wrote %s MB/s to a disk measured at %s MB/s durable", rate,
			    attr_mb_s(c->disk_write_bps, ceil_s, sizeof(ceil_s)));
		append_at_ceiling(buf, len, &used, (double)in->bytes / wall, c->disk_write_bps);
		append_busy(buf, len, &used, "destination disk",
			    in->dest_is_tmpfs ? -1 : measured(in->dest_disk_busy));
		if (in->flush_s > 0 && isfinite(in->flush_s))
			attr_append(buf, len, &used, "; flush to durable took %.1f s", in->flush_s);
	} else {
		attr_append(buf, len, &used, "read %s MB/s from a source disk measured at %s MB/s cold",
			    rate, attr_mb_s(c->disk_read_bps, ceil_s, sizeof(ceil_s)));
		append_at_ceiling(buf, len, &used, (double)in->bytes / wall, c->disk_read_bps);
		append_busy(buf, len, &used, "source disk", in->src_is_warm ? -1 : measured(in->src_disk_busy));
	}
}

static void reason_metadata(const struct attribution_input *in, const struct ceilings *c,
			    double wall, char *buf, size_t len)
{
	double create = at_rate((double)in->files, c->create_per_s);
	double open = probed_opens(in, c);
	char a[32], b[32];
	size_t used = 0;

	double ran = (double)in->files / wall, ceiling = create >= open ? c->create_per_s : c->src_open_per_s;

	attr_grouped(ran, a, sizeof(a));
	attr_grouped(ceiling, b, sizeof(b));
	/*
	 * A run faster than the ceiling (within ATTRIBUTION_CEILING_NOISE, or
	 * the stage would not be the verdict) ran at it: the line says so
	 * rather than set a rate above a ceiling.
	 */
	if (ran > ceiling)
		attr_append(buf, len, &used, "%s ran at %s/s, at the %s ceiling at this concurrency (probed at %s/s: a probe and a run agree within %.0f%%)",
			    create >= open ? "creates" : "opens", a,
			    create >= open ? "destination's" : "source's cold", b, ATTRIBUTION_CEILING_NOISE * 100);
	else if (create >= open)
		attr_append(buf, len, &used,
			    "creates ran at %s/s, the destination's ceiling at this concurrency is %s/s", a, b);
	else
		attr_append(buf, len, &used,
			    "opens ran at %s/s, the source's cold ceiling at this concurrency is %s/s", a, b);
}

static void reason_cpu(const struct attribution_input *in, const struct ceilings *c,
		       double wall, char *buf, size_t len)
{
	double compress = at_rate((double)in->bytes, c->cpu_bps);
	double cipher = at_rate((double)in->wire_bytes, c->cipher_bps);
	char a[32], b[32];
	size_t used = 0;

	if (positive(in->cpu_stage_s) >= compress + cipher)
		attr_append(buf, len, &used, "%s needed %.1f s of the %.1f s on the CPU",
			    in->cpu_stage[0] ? in->cpu_stage : "the busiest process", in->cpu_stage_s,
			    wall);
	else if (compress >= cipher)
		attr_append(buf, len, &used,
			    "compressed at %s MB/s, the measured zstd ceiling at this level is %s MB/s",
			    attr_mb_s((double)in->bytes / wall, a, sizeof(a)),
			    attr_mb_s(c->cpu_bps, b, sizeof(b)));
	else
		attr_append(buf, len, &used,
			    "encrypted at %s MB/s, the measured cipher ceiling is %s MB/s",
			    attr_mb_s((double)in->wire_bytes / wall, a, sizeof(a)),
			    attr_mb_s(c->cipher_bps, b, sizeof(b)));
	append_busy(buf, len, &used, "machine CPU", measured(in->cpu_busy));
}

/* The CPU stage set the time, and most of it was the destination's creates. */
static void reason_creates_on_cpu(const struct attribution_input *in, double wall,
				  const struct attribution *out, char *buf, size_t len)
{
	char n[32];
	size_t used = 0;

	attr_append(buf, len, &used,
		    "the destination's creates ran on the CPU: %s creates, writes and closes took %.1f s of the %.1f s that %s needed, of the %.1f s",
		    attr_grouped((double)in->files, n, sizeof(n)), out->creates_on_cpu_s,
		    out->need_s[RES_CPU], in->cpu_stage[0] ? in->cpu_stage : "the busiest process", wall);
	append_busy(buf, len, &used, "machine CPU", measured(in->cpu_busy));
}

/*
 * The creates' part of a CPU stage that set the time, when it is more than
 * half of it, or when the creates were mostly CPU in their probe and their
 * time at the create ceiling is within the ceiling noise of the CPU stage's:
 * then the two are the same seconds measured twice (0 when neither). A
 * fresh-clone CI run: 20,000 files in 6.49 s, both ends' processes 12.1 s of
 * CPU on 2 cores, creates probed at 3,254/s (crawling), the null sink
 * 0.32 s. On one small machine the receiver's creates are the kernel's CPU, and a run whose creates do not wait on the disk is then
 * cpu-bound in the machine's terms and bound by its creates in the user's:
 * taking the destination's file system away (the null sink) saves what they
 * cost. Measured on the testbed 2026-12-05: 20,000 files through splice in
 * 0.72 s, both ends' processes 1.0 s of CPU on 2 cores, the create probe at
 * 28,657/s; the null sink took 0.30 s, loopback 0.62 s, a warm source 0.61 s.
 */
static double creates_on_cpu(const struct attribution_input *in, const struct attribution *out,
			     bool path)
{
	double cpu = out->need_s[RES_CPU], part = in->cpu_stage_creates_s;

	/*
	 * A create ceiling this run beat (understated) was probed in a crawl the
	 * run did not meet: its CPU a create is that crawl's too, not the run's.
	 */
	if (path || out->verdict != RES_CPU || out->bound != RES_CPU || in->structure != ATTR_PIPELINE ||
	    (out->understated & (1u << RES_METADATA)) || !(cpu > 0) || !(part > 0) ||
	    fabs(cpu - positive(in->cpu_stage_s)) > 1e-9 * cpu)
		return 0;
	if (part > cpu)
		part = cpu;
	if (2 * part > cpu)
		return part;
	return in->creates_are_cpu && out->need_s[RES_METADATA] * (1 + ATTRIBUTION_CEILING_NOISE) >= cpu ?
		       part :
		       0;
}

/* The sender's stage set the verdict's need (sender_stage). */
static bool reason_sender(const struct attribution_input *in, const struct ceilings *c, double wall,
			  const double need[RES_COUNT], enum resource verdict, char *buf, size_t len)
{
	double open = probed_opens(in, c), wait;
	double sender = sender_stage(in, c, need[RES_METADATA] > 0 ? open : 0, &wait);
	char n[32], core[48] = "";
	size_t used = 0;

	if (!is_sender_stage(in, c, need, verdict))
		return false;
	if (positive(in->sender_run_delay_s) > 0)
		snprintf(core, sizeof(core), " and %.1f s waiting for a core", in->sender_run_delay_s);
	if (wait > 0 && in->sender_own_s > 0)
		attr_append(buf, len, &used,
			    "our sender opens one file at a time: in the run its %s cold opens and reads waited %.1f s beyond their CPU (%.1f s at the rate probed with the disk alone), in turn with its thread's %.1f s of work%s: %.1f s of %.1f s",
			    attr_grouped((double)in->files, n, sizeof(n)), wait, open > 0 ? open_wait(in, c, open) : 0,
			    in->sender_thread_cpu_s, core, sender, wall);
	else if (wait > 0)
		attr_append(buf, len, &used,
			    "our sender opens one file at a time: %s cold opens waited %.1f s beyond their CPU, in turn with its thread's %.1f s of work%s: %.1f s of %.1f s",
			    attr_grouped((double)in->files, n, sizeof(n)), wait, in->sender_thread_cpu_s, core,
			    sender, wall);
	else
		attr_append(buf, len, &used, "our sender's one thread needed %.1f s of CPU%s: %.1f s of the %.1f s",
			    in->sender_thread_cpu_s, core, sender, wall);
	return true;
}

static void write_reason(const struct attribution_input *in, const struct ceilings *c, double wall,
			 struct attribution *out)
{
	if ((out->verdict == RES_METADATA || out->verdict == RES_CPU) &&
	    reason_sender(in, c, wall, out->need_s, out->verdict, out->reason, sizeof(out->reason)))
		return;
	if (out->verdict == RES_METADATA && out->creates_on_cpu_s > 0) {
		reason_creates_on_cpu(in, wall, out, out->reason, sizeof(out->reason));
		return;
	}
	switch (out->verdict) {
	case RES_NETWORK:
		reason_network(in, c, wall, out->reason, sizeof(out->reason));
		break;
	case RES_LATENCY:
		reason_latency(in, c, wall, out->need_s, out->understated & (1u << RES_LATENCY),
			       out->reason, sizeof(out->reason));
		break;
	case RES_DISK:
		reason_disk(in, c, wall, out->reason, sizeof(out->reason));
		break;
	case RES_METADATA:
		reason_metadata(in, c, wall, out->reason, sizeof(out->reason));
		break;
	case RES_CPU:
		reason_cpu(in, c, wall, out->reason, sizeof(out->reason));
		break;
	case RES_COUNT:
		snprintf(out->reason, sizeof(out->reason),
			 "no measured ceiling explains this run's work (%.1f s unexplained)", wall);
		break;
	}
}

/*
 * The verdict: the bound stage, unless its need exceeds the wall time (it
 * ran faster than its ceiling allows, so that ceiling is wrong for this
 * run; a shared disk's terms each tested alone); then the largest stage
 * that fits. Understated ceilings go to the note.
 *
 * A serial strategy's measured request path (path) is no ceiling: it is
 * the processes' CPU seconds and the round trips this run made, and it may
 * add up to more than the wall time because its parts overlap a little
 * (on veth the kernel's packet work is in the round trip and in the
 * processes' CPU alike). A fresh-clone CI run's 20,000 files through scp:
 * 26.8 s of path in 23.5 s, which the ceiling test set aside for the CPU
 * stage (10.3 s), reading cpu-bound a run that waited on its requests. It
 * stays the verdict while its requests are small (REQUEST_PATH_MAX_BYTES a
 * request at most), however far it overshoots: another fresh-clone CI run's
 * 20,000 files (60,000 requests of 1.4 KB) added up to 17.5 s in 13.9 s,
 * 26% over, and read cpu-bound again under a misfit bound. A path of few
 * large requests stays the verdict only while it overshoots by no more than
 * a misfit (ATTRIBUTION_MISFIT): beyond, its parts ran side by side and it
 * was no serial path (one 4 GiB file through scp: 6 requests, 716 MB each,
 * both ends' CPU 30.6 s in a 21.2 s run, sshd and sftp-server ciphering
 * while the client did), and the verdict is found as for any stage.
 */
static void pick_verdict(const struct attribution_input *in, const struct ceilings *c, double wall,
			 bool path, struct attribution *out)
{
	double fits = wall * (1 + ATTRIBUTION_CEILING_NOISE);

	if (path && out->bound == RES_LATENCY &&
	    (small_requests(in) || out->need_s[RES_LATENCY] <= wall * (1 + ATTRIBUTION_MISFIT))) {
		out->verdict = RES_LATENCY;
		return;
	}
	out->verdict = RES_COUNT;
	for (int r = 0; r < RES_COUNT; r++) {
		double need = out->need_s[r];

		if (ceiling_need(in, c, out->need_s, r) > fits)
			continue;
		if (need > 0 && (out->verdict == RES_COUNT || need > out->need_s[out->verdict]))
			out->verdict = (enum resource)r;
	}
	if (out->bound != RES_COUNT && out->need_s[out->bound] > 0 &&
	    ceiling_need(in, c, out->need_s, out->bound) <= fits)
		out->verdict = out->bound;
}

int attribution_compute(const struct attribution_input *in, const struct ceilings *c,
			struct attribution *out)
{
	double wall = in->wall_s > 0 ? in->wall_s : in->transfer_s + in->flush_s, den, sum = 0;
	size_t used = 0;
	bool path;

	if (!(wall > 0) || !isfinite(wall))
		return err_set("cannot attribute a run of %g seconds", wall);
	memset(out, 0, sizeof(*out));
	out->measured_s = wall;
	/*
	 * A stage that needs more than the wall time at its ceiling ran faster
	 * than that ceiling allows: the ceiling is wrong for this run (a probe
	 * on a busy machine, a concurrency it did not measure). It is said, and
	 * the prediction is made without it.
	 */
	predict(in, c, 0, out->need_s, NULL, NULL);
	for (int r = 0; r < RES_COUNT; r++)
		if (ceiling_need(in, c, out->need_s, r) > wall * (1 + ATTRIBUTION_CEILING_NOISE)) {
			out->understated |= 1u << r;
			attr_append(out->note, sizeof(out->note), &used,
				    "%s%s ran faster than its measured ceiling allows (%.1f s at the ceiling, %.1f s in all): that ceiling is understated and left out",
				    used ? "; " : "", attribution_resource_name((enum resource)r),
				    out->need_s[r], wall);
		}
	out->predicted_s = predict(in, c, out->understated, out->need_s, &out->bound, &path);

	den = max2(wall, out->predicted_s);
	for (int r = 0; r < RES_COUNT; r++) {
		out->share[r] = on_critical_path(in, c, out->need_s, out->bound, path, r) ? out->need_s[r] / den : 0;
		if (r == RES_DISK && out->share[r] == 0)
			out->share[r] = tail_share(in, c, out->need_s, path, den);
		if (out->share[r] > 1)
			out->share[r] = 1;
		sum += out->share[r];
	}
	out->share[RES_COUNT] = sum < 1 ? 1 - sum : 0;

	pick_verdict(in, c, wall, path, out);
	out->creates_on_cpu_s = creates_on_cpu(in, out, path);
	if (out->creates_on_cpu_s > 0) {
		double moved = fmin(out->creates_on_cpu_s / den, out->share[RES_CPU]);

		out->share[RES_CPU] -= moved;
		out->share[RES_METADATA] += moved;
		out->verdict = out->bound = RES_METADATA;
	}
	write_reason(in, c, wall, out);
	/* creates on the CPU: the CPU stage set the prediction, not the create ceiling */
	out->fitted = in->create_from_run && out->bound == RES_METADATA && !path && !(out->creates_on_cpu_s > 0);
	if (out->fitted) {
		char run[32], probe[32], recheck[32];

		attr_append(out->note, sizeof(out->note), &used,
			    "%sthe create ceiling is this run's own rate (%s/s): the probe read %s/s before it and %s/s right after it, so the prediction is fitted to the run and checks nothing",
			    used ? "; " : "", attr_grouped(c->create_per_s, run, sizeof(run)),
			    attr_grouped(in->create_probe_per_s, probe, sizeof(probe)),
			    attr_grouped(in->create_recheck_per_s, recheck, sizeof(recheck)));
	}

	out->misfit = out->predicted_s > 0 ?
			      fabs(out->predicted_s - wall) > ATTRIBUTION_MISFIT * wall : true;
	if (out->misfit && out->predicted_s < wall) {
		attr_append(out->note, sizeof(out->note), &used,
			    "%spredicted %.2f s, measured %.2f s: %.2f s (%.0f%%) no measured ceiling explains",
			    used ? "; " : "", out->predicted_s, wall, wall - out->predicted_s,
			    (wall - out->predicted_s) / wall * 100);
		/* a shared machine: what others took is a likely cause, said as measured */
		if (in->foreign_cpu_s > 0.1 * wall && isfinite(in->foreign_cpu_s))
			attr_append(out->note, sizeof(out->note), &used,
				    " (processes not ours used %.1f s of this machine's CPU meanwhile)",
				    in->foreign_cpu_s);
	} else if (out->misfit && out->predicted_s > wall) {
		attr_append(out->note, sizeof(out->note), &used,
			    "%spredicted %.2f s, measured %.2f s: the run beat its ceilings by %.2f s",
			    used ? "; " : "", out->predicted_s, wall, out->predicted_s - wall);
	}
	return 0;
}

void attribution_what_if_ceilings(const struct attribution_input *in, const struct ceilings *c,
				  const struct what_if *w, struct ceilings *out)
{
	unsigned streams = in->streams ? in->streams : 1;
	double rtt = positive(w->rtt_s) > 0 ? w->rtt_s : positive(c->rtt_s);

	*out = *c;
	if (positive(w->rate_bits_per_s) > 0) {
		double rate = w->rate_bits_per_s / 8;

		if (!(positive(c->net_bps) > 0) || rate < c->net_bps)
			out->net_bps = rate;
	}
	if (positive(c->window_bytes) > 0 && rtt > 0) {
		double windowed = streams * c->window_bytes / rtt;

		if (!(positive(out->net_bps) > 0) || windowed < out->net_bps)
			out->net_bps = windowed;
	}
	if (positive(w->rtt_s) > 0) {
		/* the peer's own work per request stays: what the request took beyond the TCP round trip */
		double work = positive(c->request_rtt_s) - positive(c->rtt_s);

		out->rtt_s = w->rtt_s;
		/* a window-limited stream carries its window per round trip */
		if (positive(c->stream_cap_bps) > 0 && positive(c->rtt_s) > 0)
			out->stream_cap_bps = c->stream_cap_bps * c->rtt_s / w->rtt_s;
		out->request_rtt_s = positive(c->request_rtt_s) > 0 ? w->rtt_s + (work > 0 ? work : 0) : 0;
	}
}

double attribution_what_if(const struct attribution_input *in, const struct ceilings *c,
			   unsigned drop, const struct what_if *w)
{
	struct ceilings there;
	double need[RES_COUNT];

	attribution_what_if_ceilings(in, c, w, &there);
	return attribution_predict(in, &there, drop, need, NULL);
}
