/* The live status line (live.h). */
#include "report/live.h"

#include "clock.h"
#include "err.h"
#include "sent_progress.h"
#include "sample/procstat.h"
#include "units.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Twice a second: fast enough to look alive, slow enough to cost nothing. */
#define LIVE_TICK_MS 500
/* The rate shown: each tick weighs this much against the history (about 2 s of memory). */
#define LIVE_RATE_WEIGHT 0.3
/* An ETA only once the rate means something (seen: "ETA 52 h" at the first tick). */
#define LIVE_ETA_AFTER_S 2.0

static void duration(char *buf, size_t len, double s)
{
	if (s < 60)
		snprintf(buf, len, "%.0f s", s);
	else if (s < 3600)
		snprintf(buf, len, "%d min %02d s", (int)s / 60, (int)s % 60);
	else
		snprintf(buf, len, "%d h %02d min", (int)s / 3600, (int)s % 3600 / 60);
}

void live_format(char *buf, size_t len, const char *name, unsigned run, unsigned runs,
		 double elapsed, uint64_t files, uint64_t files_total, uint64_t done,
		 uint64_t expect, bool wire, double rate, double forecast)
{
	char el[32], eta[32] = "", of[48] = "", runs_text[24] = "", files_text[80] = "", fc[40] = "";
	int n;

	duration(el, sizeof(el), elapsed);
	if (runs > 1)
		snprintf(runs_text, sizeof(runs_text), " (%u/%u)", run, runs);
	if (expect) {
		double pct = 100.0 * (double)done / (double)expect;

		snprintf(of, sizeof(of), " of %s%.1f MB (%.0f%%)", wire ? "~" : "", expect / 1e6,
			 pct > 99 ? 99 : pct);
		/* the first second's rate is mostly set-up: no ETA from it */
		if (rate > 0 && done < expect && elapsed >= LIVE_ETA_AFTER_S) {
			char d[24];

			duration(d, sizeof(d), (double)(expect - done) / rate);
			snprintf(eta, sizeof(eta), ", ETA %s", d);
		}
	}
	if (files > 0 && files_total > 0) {
		char a[32], b[32];

		/* 120000 as "120,000": the file counts are read at a glance */
		units_format_count(files > files_total ? files_total : files, a, sizeof(a));
		units_format_count(files_total, b, sizeof(b));
		snprintf(files_text, sizeof(files_text), " %s of %s files,", a, b);
	}
	/* the forecast made before it began: a run can be read against it as it goes */
	if (forecast > 0) {
		char d[24];

		duration(d, sizeof(d), forecast);
		snprintf(fc, sizeof(fc), " (forecast %s)", d);
	}
	n = snprintf(buf, len, "%s%s:%s %.1f MB%s, %.1f MB/s, %s%s%s", name, runs_text, files_text,
		     done / 1e6, of, rate / 1e6, el, fc, eta);
	if (n > 100 && len > 100)
		buf[100] = '\0';
}

static uint64_t tx_now(const struct live *l)
{
	struct net_counters c;

	if (!l->iface[0] || procstat_read_net(l->iface, &c) < 0)
		return 0;
	return c.tx_bytes;
}

/*
 * Called with the lock held: draws the current strategy's line. What our
 * senders counted is exact (content bytes of the tree's total); before they
 * count anything, and for a reference tool, the interface's bytes stand in
 * ("~": framing, cipher and other traffic included). The rate is that of
 * the measure shown, restarted when the measure changes.
 */
static void draw(struct live *l)
{
	char line[160];
	uint64_t now = clock_now(), tx = tx_now(l), files, sent, done, expect;
	double dt = clock_seconds(l->last_ns, now);
	bool wire;

	if (!l->current)
		return;
	sent_progress_read(&files, &sent);
	wire = files == 0 && sent == 0;
	done = wire ? (tx > l->tx0 ? tx - l->tx0 : 0) : sent;
	expect = wire ? (l->iface[0] ? l->expect : 0) : l->content_total;
	if (wire != l->last_wire)
		l->rate = 0;
	else if (dt > 0 && done >= l->last_done) {
		double r = (double)(done - l->last_done) / dt;

		l->rate = l->rate > 0 ? l->rate * (1 - LIVE_RATE_WEIGHT) + r * LIVE_RATE_WEIGHT : r;
	}
	l->last_ns = now;
	l->last_done = done;
	l->last_wire = wire;
	live_format(line, sizeof(line), l->current->name, l->run, l->runs, clock_seconds(l->t0_ns, now),
		    files, l->files_total, done, expect, wire, l->rate, l->forecast);
	fprintf(stderr, "\r\033[K%s", line);
	fflush(stderr);
	l->drawn = true;
}

static void clear_locked(struct live *l)
{
	if (l->drawn) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		l->drawn = false;
	}
}

static void *ticker(void *arg)
{
	struct live *l = arg;
	struct timespec until;

	pthread_mutex_lock(&l->lock);
	while (!l->stopping) {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += LIVE_TICK_MS * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		if (pthread_cond_timedwait(&l->wake, &l->lock, &until) == ETIMEDOUT && !l->stopping)
			draw(l);
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

int live_start(struct live *l, const char *agent_host)
{
	memset(l, 0, sizeof(*l));
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->wake, NULL);
	if (!agent_host || procstat_iface_for_addr(agent_host, l->iface, sizeof(l->iface)) < 0)
		l->iface[0] = '\0';
	err_clear();
	if (pthread_create(&l->thread, NULL, ticker, l) != 0)
		return err_set("cannot start the progress thread");
	l->thread_running = true;
	return 0;
}

void live_begin(struct live *l, const struct strategy *s, unsigned run, unsigned runs,
		uint64_t files_total, uint64_t content_total, uint64_t expect, double forecast)
{
	pthread_mutex_lock(&l->lock);
	l->current = s;
	l->forecast = forecast;
	l->run = run;
	l->runs = runs;
	l->files_total = files_total;
	l->content_total = content_total;
	l->expect = expect;
	sent_progress_reset();
	l->t0_ns = l->last_ns = clock_now();
	l->tx0 = tx_now(l);
	l->last_done = 0;
	l->last_wire = true;
	l->rate = 0;
	pthread_mutex_unlock(&l->lock);
}

void live_end(struct live *l, const struct strategy_result *done, uint64_t files)
{
	double t = done->median.transfer + done->median.flush;

	pthread_mutex_lock(&l->lock);
	clear_locked(l);
	l->current = NULL;
	if (done->status == RESULT_OK)
		fprintf(stderr, "  %s: ok, %.2f s, %.1f MB/s, %.0f files/s, %s\n", done->strategy->name,
			t, t > 0 ? (double)done->sent.bytes_read / t / 1e6 : 0.0,
			t > 0 ? (double)files / t : 0.0, done->verified ? "verified" : "NOT verified");
	else
		fprintf(stderr, "  %s %s: %s\n", done->strategy->name,
			done->status == RESULT_SKIPPED ? "skipped" : "failed", done->error);
	pthread_mutex_unlock(&l->lock);
}

void live_clear(struct live *l)
{
	pthread_mutex_lock(&l->lock);
	clear_locked(l);
	l->current = NULL;
	pthread_mutex_unlock(&l->lock);
}

void live_stop(struct live *l)
{
	if (!l->thread_running)
		return;
	pthread_mutex_lock(&l->lock);
	l->stopping = true;
	clear_locked(l);
	pthread_cond_signal(&l->wake);
	pthread_mutex_unlock(&l->lock);
	pthread_join(l->thread, NULL);
	l->thread_running = false;
}
