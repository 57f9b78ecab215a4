/* Wrapping text at a column count (text_wrap.h). */
#include "report/text_wrap.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

static size_t width_now = TEXT_WIDTH_MAX;

size_t text_width_for(unsigned cols)
{
	if (cols == 0 || cols >= TEXT_WIDTH_MAX)
		return TEXT_WIDTH_MAX;
	return cols < TEXT_WIDTH_MIN ? TEXT_WIDTH_MIN : cols;
}

size_t text_width(void)
{
	return width_now;
}

void text_width_set(size_t width)
{
	width_now = text_width_for(width > 10000 ? 0 : (unsigned)width);
}

unsigned text_terminal_columns(int fd)
{
	struct winsize ws;
	const char *columns;

	if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	columns = getenv("COLUMNS");
	if (columns) {
		char *end;
		long c = strtol(columns, &end, 10);

		if (end != columns && !*end && c > 0 && c < 10000)
			return (unsigned)c;
	}
	return 0;
}

/* The length of the ANSI escape sequence at s ("\033[1m", "\033[0m"), 0 if none. */
static size_t escape_len(const char *s, size_t n)
{
	size_t i = 2;

	if (n < 2 || s[0] != '\033' || s[1] != '[')
		return 0;
	while (i < n && !(s[i] >= '@' && s[i] <= '~'))
		i++;
	return i < n ? i + 1 : n;
}

size_t text_columns(const char *s, size_t n)
{
	size_t cols = 0;

	for (size_t i = 0; i < n;) {
		size_t esc = escape_len(s + i, n - i);

		if (esc) {
			i += esc;
			continue;
		}
		/* a UTF-8 continuation byte (10xxxxxx) belongs to the character before */
		if (((unsigned char)s[i] & 0xC0) != 0x80)
			cols++;
		i++;
	}
	return cols;
}

static void spaces(FILE *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fputc(' ', out);
}

void text_wrap(FILE *out, const char *lead, size_t indent, const char *text, size_t width)
{
	size_t col = text_columns(lead, strlen(lead)), line_start = col;
	const char *p = text;

	fputs(lead, out);
	while (*p) {
		const char *gap = p, *word;
		size_t gap_len, word_len, word_cols;

		while (*p == ' ')
			p++;
		gap_len = (size_t)(p - gap);
		if (*p == '\n') {
			fputc('\n', out);
			spaces(out, indent);
			col = line_start = indent;
			p++;
			continue;
		}
		if (!*p)
			break;
		word = p;
		while (*p && *p != ' ' && *p != '\n')
			p++;
		word_len = (size_t)(p - word);
		word_cols = text_columns(word, word_len);
		if (col > line_start && col + gap_len + word_cols > width) {
			fputc('\n', out);
			spaces(out, indent);
			col = line_start = indent;
			gap_len = 0;
		}
		fwrite(gap, 1, gap_len, out);
		fwrite(word, 1, word_len, out);
		col += gap_len + word_cols;
	}
	fputc('\n', out);
}

void text_wrap_block(FILE *out, const char *block, size_t width, int indent)
{
	const char *line = block;

	while (*line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line), lead = 0;
		char lead_text[TEXT_WIDTH_MAX + 1];
		size_t hang;

		if (text_columns(line, len) <= width) {
			fwrite(line, 1, len, out);
			fputc('\n', out);
		} else {
			char *rest = strndup(line, len);

			while (lead < len && line[lead] == ' ')
				lead++;
			if (lead > width / 2)
				lead = width / 2;
			if (lead > sizeof(lead_text) - 1)
				lead = sizeof(lead_text) - 1;
			hang = indent >= 0 ? (size_t)indent : lead + 2;
			if (hang > width / 2)
				hang = width / 2;
			memset(lead_text, ' ', lead);
			lead_text[lead] = '\0';
			if (rest) {
				text_wrap(out, lead_text, hang, rest + lead, width);
				free(rest);
			} else {
				/* no memory for the copy: the line as it is, too long but whole */
				fwrite(line, 1, len, out);
				fputc('\n', out);
			}
		}
		if (!end)
			break;
		line = end + 1;
	}
}

void text_wrap_written(FILE *out, int indent, void (*write)(const void *ctx, FILE *f), const void *ctx)
{
	char *text = NULL;
	size_t len = 0;
	FILE *buf = open_memstream(&text, &len);

	if (!buf) {
		write(ctx, out);
		return;
	}
	write(ctx, buf);
	if (fclose(buf) != 0 || !text) {
		free(text);
		write(ctx, out);
		return;
	}
	text_wrap_block(out, text, text_width(), indent);
	free(text);
}
