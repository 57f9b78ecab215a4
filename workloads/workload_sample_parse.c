/* --sample's argument, and the names and sizes the sample's strata go by. See workload_sample.h. */
#include "workload_sample.h"

#include "err.h"
#include "units.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int workload_sample_parse(const char *text, struct workload_sample_request *req)
{
	size_t n = strlen(text);
	uint64_t v;

	memset(req, 0, sizeof(*req));
	req->text = text;
	if (n > 1 && text[n - 1] == '%') {
		char *end;
		double p = strtod(text, &end);

		if (end != text + n - 1 || !isdigit((unsigned char)text[0]) || !(p > 0) || !(p < 100))
			return err_set("--sample '%s': a percentage is above 0%% and below 100%%, e.g. 5%%", text);
		req->unit = WORKLOAD_SAMPLE_PERCENT;
		req->value = p;
		return 0;
	}
	if (n > 0 && strspn(text, "0123456789") == n) {
		if (units_parse_count(text, UINT64_MAX, &v) < 0 || v == 0)
			return err_set("--sample '%s': expected a number of files above 0, a size such as 2G or a percentage such as 5%%",
				       text);
		req->unit = WORKLOAD_SAMPLE_FILES;
		req->value = (double)v;
		return 0;
	}
	if (units_parse_size(text, &v) < 0 || v == 0)
		return err_set("--sample '%s': expected a size such as 2G, a percentage such as 5%% or a number of files such as 10000",
			       text);
	req->unit = WORKLOAD_SAMPLE_BYTES;
	req->value = (double)v;
	return 0;
}

unsigned workload_sample_class(uint64_t size)
{
	unsigned k = 0;

	while (size) {
		k++;
		size >>= 1;
	}
	return k;
}

bool workload_sample_compressed_name(const char *path)
{
	static const char *const ext[] = {
		"gz", "tgz", "bz2", "tbz2", "xz", "txz", "zst", "tzst", "lz4", "lzma", "7z", "zip",
		"rar", "jar", "apk", "deb", "rpm", "jpg", "jpeg", "png", "gif", "webp", "heic", "avif",
		"mp3", "mp4", "m4a", "m4v", "mkv", "mov", "webm", "ogg", "opus", "flac", "aac",
		"docx", "xlsx", "pptx", "odt",
	};
	const char *base = strrchr(path, '/'), *dot;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	if (!dot || dot == base)
		return false;
	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++)
		if (!strcasecmp(dot + 1, ext[i]))
			return true;
	return false;
}
