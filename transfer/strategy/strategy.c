/*
 * What every strategy may use beside the interface (strategy.h). Knows no
 * strategy and not the table, so that a strategy calling in here does not
 * call back into the table that lists it.
 */
#include "strategy/strategy.h"

#include "client/raw_stream.h"
#include "probe/net_sweep.h"
#include "ssh/ssh_exec.h"
#include "stream/sock_size.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int strategy_open_one_stream(struct xfer_run *run, const char *receiver, int *fd,
			     unsigned char key[WIRE_KEY_BYTES])
{
	double bdp = net_window_bdp_bytes(run->opts->path_bytes_per_s * 8, run->opts->path_rtt_s);
	struct sockbuf_limits lim;

	memset(&run->sizing, 0, sizeof(run->sizing));
	if (raw_stream_open_sized(run->target->agent, run->job, receiver, 1, bdp, fd,
				  (unsigned char (*)[WIRE_KEY_BYTES])key) < 0)
		return -1;
	if (!(bdp > 0))
		return 0;
	sock_size_limits(SOCKBUF_SEND, &lim);
	sockbuf_plan_make(SOCKBUF_SEND, bdp, &lim, &run->sizing.send);
	run->sizing.sndbuf_bytes = sock_size_apply(*fd, &run->sizing.send);
	run->sizing.sized = true;
	return 0;
}

void strategy_one_stream_sent(struct xfer_run *run, int fd)
{
	const struct sockbuf_plan asis = { .side = SOCKBUF_SEND };

	if (run->sizing.sized && fd >= 0)
		run->sizing.sndbuf_bytes = sock_size_apply(fd, &asis);
}

int strategy_needs_ssh(const struct xfer_target *target, char *why, size_t len)
{
	if (target->ssh)
		return 0;
	snprintf(why, len, "needs an SSH host (xfercmp [OPTIONS] HOST)");
	return 1;
}

void strategy_free(const struct strategy *s)
{
	if (s && s->release)
		s->release(s);
}

/* whether the word w (all capitals) starts at p, not inside a longer word nor an option (nc -N) */
static bool word_at(const char *start, const char *p, const char *w)
{
	size_t n = strlen(w);

	return !strncmp(p, w, n) && (p == start || (!isalnum((unsigned char)p[-1]) && p[-1] != '-')) &&
	       !isalnum((unsigned char)p[n]) && p[n] != '_';
}

/* What a word may hold and still be typed to a POSIX shell as it is. */
#define SHELL_PLAIN "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789@%+=:,./_-"

/*
 * w as one word of a shell command line: w itself when it needs no quotes
 * (or is NULL or empty), else 'w' in *q, malloc'ed for the caller to free
 * (w itself, *q NULL, when out of memory).
 */
static const char *shell_word(const char *w, char **q)
{
	size_t cap;

	*q = NULL;
	if (!w || !w[strspn(w, SHELL_PLAIN)])
		return w;
	cap = 4 * strlen(w) + 3;
	*q = malloc(cap);
	if (*q && ssh_shell_quote(w, *q, cap) >= 0)
		return *q;
	free(*q);
	*q = NULL;
	return w;
}

int strategy_real_command(const struct strategy *s, unsigned streams, const char *host, const char *addr,
			  const char *dir, char *buf, size_t len)
{
	const char *t = s->real_command;
	char n[16], *qhost, *qaddr, *qdir;
	size_t used = 0;

	if (!t || !len)
		return 0;
	snprintf(n, sizeof(n), "%u", streams);
	/* a tree named "My Photos" must reach tar as one word: the command is run as printed */
	/* nc's address: the one given, else the host's name, else the word HOST for the user */
	addr = shell_word(addr && *addr ? addr : host && *host ? host : "HOST", &qaddr);
	host = shell_word(host, &qhost);
	dir = shell_word(dir, &qdir);
	for (const char *p = t; *p && used + 1 < len;) {
		const char *with = NULL;
		size_t skip = 0;

		if (streams && word_at(t, p, "N"))
			with = n, skip = 1;
		else if (host && *host && word_at(t, p, "HOST"))
			with = host, skip = 4;
		else if (word_at(t, p, "ADDR"))
			with = addr, skip = 4;
		else if (dir && *dir && word_at(t, p, "DIR"))
			with = dir, skip = 3;
		if (with) {
			int k = snprintf(buf + used, len - used, "%s", with);

			used = k > 0 && used + (size_t)k < len ? used + (size_t)k : len - 1;
			p += skip;
		} else {
			buf[used++] = *p++;
		}
	}
	buf[used] = '\0';
	free(qhost);
	free(qaddr);
	free(qdir);
	return (int)used;
}
