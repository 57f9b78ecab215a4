/* The live status line (live.h). */
#include "report/live.h"
#include "report/live_fit.h"
#include "report/text_wrap.h"

#include "clock.h"
#include "err.h"
#include "sent_progress.h"
#include "sample/procstat.h"
#include "units.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Twice a second: fast enough to look alive, slow enough to cost nothing. */
#define LIVE_TICK_MS 500
/* The rate shown: each tick weighs this much against the history (about 2 s of memory). */
#define LIVE_RATE_WEIGHT 0.3

void live_duration(char *buf, size_t len, double s)
{
	if (s < 9.95)
		snprintf(buf, len, "%.1f s", s);
	else if (s < 59.5)
		snprintf(buf, len, "%.0f s", s);
	else if (s < 3600)
		snprintf(buf, len, "%d min %02d s", (int)(s + 0.5) / 60, (int)(s + 0.5) % 60);
	else
		snprintf(buf, len, "%d h %02d min", (int)s / 3600, (int)s % 3600 / 60);
}

/* The line's fields, most important first; live_format drops them from the end of its order. */
enum live_field { F_HEAD, F_AMOUNT, F_FILES, F_RATE, F_ELAPSED, F_FORECAST, F_ETA, F_COUNT };

void live_format(char *buf, size_t len, const struct live_view *v, unsigned width)
{
	/* what goes first when the line is too wide: the ETA's long words, then these, in order */
	static const unsigned drop[] = { F_RATE, F_FORECAST, F_ELAPSED, F_FILES, F_ETA };
	struct live_fields f = { 0 };
	char *text[F_COUNT], pos[24] = "", runs_text[24] = "", d[32], eta_short[LIVE_FIELD_LEN] = "";
	size_t max = width > 1 ? width - 1 : 1;

	if (!len)
		return;
	for (int i = 0; i < F_COUNT; i++)
		text[i] = live_fields_add(&f, i == F_HEAD ? NULL : i == F_FILES ? " " : "  ");
	if (v->count > 0)
		snprintf(pos, sizeof(pos), "[%u/%u] ", v->index, v->count);
	if (v->runs > 1)
		snprintf(runs_text, sizeof(runs_text), " run %u/%u", v->run, v->runs);
	snprintf(text[F_HEAD], LIVE_FIELD_LEN, "%s%.32s%s", pos, v->name, runs_text);
	if (v->phase)
		snprintf(text[F_AMOUNT], LIVE_FIELD_LEN, "%s", v->phase);
	else if (v->expect) {
		double pct = 100.0 * (double)v->done / (double)v->expect;

		/* 100% only once it is over: the flush and the verify follow the last byte */
		snprintf(text[F_AMOUNT], LIVE_FIELD_LEN, "%s%.0f%%", v->wire ? "~" : "", pct > 99 ? 99 : pct);
	} else
		snprintf(text[F_AMOUNT], LIVE_FIELD_LEN, "%.1f MB", v->done / 1e6);
	if (v->files > 0 && v->files_total > 0) {
		char a[32], b[32];

		/* 120000 as "120,000": the file counts are read at a glance */
		units_format_count(v->files > v->files_total ? v->files_total : v->files, a, sizeof(a));
		units_format_count(v->files_total, b, sizeof(b));
		snprintf(text[F_FILES], LIVE_FIELD_LEN, "%s/%s files", a, b);
	}
	/* the rate means nothing once the bytes are sent */
	if (!v->phase)
		snprintf(text[F_RATE], LIVE_FIELD_LEN, "%.1f MB/s", v->rate / 1e6);
	live_duration(text[F_ELAPSED], LIVE_FIELD_LEN, v->elapsed);
	/* the forecast made before it began: a run can be read against it as it goes */
	if (v->forecast > 0) {
		live_duration(d, sizeof(d), v->forecast);
		snprintf(text[F_FORECAST], LIVE_FIELD_LEN, "forecast %s", d);
	}
	if (v->left >= 0) {
		live_duration(d, sizeof(d), v->left);
		snprintf(text[F_ETA], LIVE_FIELD_LEN, "comparison ETA %s", d);
		snprintf(eta_short, sizeof(eta_short), "left %s", d);
	}
	if (live_fields_join(buf, len, &f) <= max)
		return;
	memcpy(text[F_ETA], eta_short, sizeof(eta_short));
	live_fields_fit(buf, len, &f, drop, sizeof(drop) / sizeof(drop[0]), max);
}

double live_comparison_left(double forecast, double elapsed, double done, unsigned run, unsigned runs,
			    double after)
{
	double now = forecast - elapsed;

	if (forecast <= 0 || after < 0)
		return -1;
	if (done >= 1)
		now = 0;
	else if (done >= LIVE_PROGRESS_ETA && elapsed > 0)
		now = elapsed * (1 - done) / done;
	return (now > 0 ? now : 0) + (runs > run ? runs - run : 0) * forecast + after;
}

unsigned live_width(void)
{
	unsigned cols = text_terminal_columns(STDERR_FILENO);

	return cols ? cols : 80;
}

static uint64_t tx_now(const struct live *l)
{
	struct net_counters c;

	if (!l->iface[0] || procstat_read_net(l->iface, &c) < 0)
		return 0;
	return c.tx_bytes;
}

/* Called with the lock held: the line of the probe measuring. */
static void draw_probe(struct live *l)
{
	char line[256];

	live_probe_format(line, sizeof(line), l->probe, l->probe_index, l->probe_count,
			  clock_seconds(l->t0_ns, clock_now()), live_width());
	fprintf(stderr, "\r\033[K%s", line);
	fflush(stderr);
	l->drawn = true;
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
	char line[256];
	struct live_view v;
	uint64_t now = clock_now(), tx = tx_now(l), files, sent, done, expect;
	double dt = clock_seconds(l->last_ns, now);
	bool wire;

	if (!l->current) {
		if (l->probe)
			draw_probe(l);
		return;
	}
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
	v = (struct live_view){
		.name = l->current->name, .index = l->index, .count = l->count, .run = l->run,
		.runs = l->runs, .elapsed = clock_seconds(l->t0_ns, now), .files = files,
		.files_total = l->files_total, .done = done, .expect = expect, .wire = wire,
		.rate = l->rate, .forecast = l->forecast, .phase = l->phase,
	};
	v.left = live_comparison_left(l->forecast, v.elapsed, expect ? (double)done / (double)expect : -1,
				      l->run, l->runs, l->after);
	live_format(line, sizeof(line), &v, live_width());
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
	l->after = -1;
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
	l->phase = NULL;
	pthread_mutex_unlock(&l->lock);
}

void live_position(struct live *l, unsigned index, unsigned count, double after)
{
	pthread_mutex_lock(&l->lock);
	l->index = index;
	l->count = count;
	l->after = after;
	pthread_mutex_unlock(&l->lock);
}

void live_phase(struct live *l, const char *phase)
{
	pthread_mutex_lock(&l->lock);
	l->phase = phase;
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

void live_probe(struct live *l, const struct probe_step *step)
{
	char line[256];

	pthread_mutex_lock(&l->lock);
	if (!step->done) {
		l->probe = step->name;
		l->probe_index = step->index;
		l->probe_count = step->count;
		l->t0_ns = clock_now();
		/* at once: a probe may end before the first tick */
		draw_probe(l);
	} else {
		clear_locked(l);
		l->probe = NULL;
		live_probe_result(line, sizeof(line), step, live_width());
		fprintf(stderr, "%s\n", line);
		fflush(stderr);
	}
	pthread_mutex_unlock(&l->lock);
}

void live_clear(struct live *l)
{
	pthread_mutex_lock(&l->lock);
	clear_locked(l);
	l->current = NULL;
	l->probe = NULL;
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
