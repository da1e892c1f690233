// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perf_tracing.c - a perf.data's tracing data into libtraceevent (see
 * perf_tracing.h).
 *
 * Layout (tools/perf/util/trace-event-info.c writes it, trace-event-read.c
 * reads it; trace-cmd's files start the same way): "\027\010\104tracing",
 * a version string ("0.6"), the byte order (1: big-endian), the size of a
 * long, the page size (u32); "header_page\0" and "header_event\0", each a
 * u64 size and that many bytes; the ftrace formats: a u32 count, each a u64
 * size and the format; the event systems: a u32 count, each a name, a u32
 * count and as many formats (u64 size, then the text); then kallsyms,
 * printk formats and saved cmdlines, which pagesim does not use.
 *
 * Only the event systems' formats are handed to libtraceevent: pagesim
 * reads the kmem events' fields by name and prints nothing else.
 */
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "trace/perf_tracing.h"

#define MAX_FORMAT (1u << 20)	/* a longer event format is damage */

struct cur {
	const uint8_t *p, *end;
};

static int take(struct cur *c, size_t n, const uint8_t **out)
{
	if ((size_t)(c->end - c->p) < n)
		return -1;
	*out = c->p;
	c->p += n;
	return 0;
}

static int take_u32(struct cur *c, uint32_t *v)
{
	const uint8_t *p;

	if (take(c, 4, &p) < 0)
		return -1;
	memcpy(v, p, 4);
	return 0;
}

static int take_u64(struct cur *c, uint64_t *v)
{
	const uint8_t *p;

	if (take(c, 8, &p) < 0)
		return -1;
	memcpy(v, p, 8);
	return 0;
}

/* A NUL-terminated string; NULL when none ends before the data does. */
static const char *take_str(struct cur *c)
{
	const uint8_t *z = memchr(c->p, 0, c->end - c->p);
	const char *s = (const char *)c->p;

	if (!z)
		return NULL;
	c->p = z + 1;
	return s;
}

/* A u64 size, then that many bytes: skipped. */
static int skip_sized(struct cur *c)
{
	const uint8_t *p;
	uint64_t n;

	if (take_u64(c, &n) < 0 || n > (uint64_t)(c->end - c->p))
		return -1;
	return take(c, n, &p);
}

struct tep_handle *ps_perf_tracing_parse(const uint8_t *buf, size_t len, const char *path,
					 struct ps_error *err)
{
	static const uint8_t magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct cur c = { buf, buf + len };
	const uint8_t *p;
	const char *what = "the header";
	struct tep_handle *tep;
	uint32_t page_size, count, systems;
	int long_size;

	if (take(&c, sizeof(magic), &p) < 0 || memcmp(p, magic, sizeof(magic))) {
		ps_err(err, "%s: the perf.data's tracing data does not start with the tracing magic: the file is damaged", path);
		return NULL;
	}
	if (!take_str(&c) || take(&c, 2, &p) < 0 || take_u32(&c, &page_size) < 0)
		goto damaged;
	if (p[0]) {
		ps_err(err, "%s: the perf.data's tracing data is big-endian: pagesim reads little-endian ones; run 'perf script' on it and give that text",
		       path);
		return NULL;
	}
	long_size = p[1];
	if ((long_size != 4 && long_size != 8) || page_size < 256 || page_size > (1u << 24) ||
	    (page_size & (page_size - 1)))
		goto damaged;
	what = "the header page and event formats";
	if (take(&c, 12, &p) < 0 || memcmp(p, "header_page", 12) || skip_sized(&c) < 0 ||
	    take(&c, 13, &p) < 0 || memcmp(p, "header_event", 13) || skip_sized(&c) < 0)
		goto damaged;
	what = "the ftrace formats";
	if (take_u32(&c, &count) < 0)
		goto damaged;
	for (uint32_t i = 0; i < count; i++)
		if (skip_sized(&c) < 0)
			goto damaged;
	what = "the event formats";
	if (take_u32(&c, &systems) < 0)
		goto damaged;
	tep = tep_alloc();
	if (!tep) {
		ps_err(err, "out of memory");
		return NULL;
	}
	tep_set_loglevel(TEP_LOG_NONE);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, long_size);
	tep_set_page_size(tep, page_size);
	for (uint32_t s = 0; s < systems; s++) {
		const char *sys = take_str(&c);

		if (!sys || take_u32(&c, &count) < 0)
			goto damaged_tep;
		for (uint32_t i = 0; i < count; i++) {
			uint64_t n;

			if (take_u64(&c, &n) < 0 || n > MAX_FORMAT || take(&c, n, &p) < 0)
				goto damaged_tep;
			/* a format libtraceevent cannot parse is left out: its events are skipped, counted */
			tep_parse_event(tep, (const char *)p, n, sys);
		}
	}
	return tep;
damaged_tep:
	tep_free(tep);
damaged:
	ps_err(err, "%s: the perf.data's tracing data is damaged (in %s, byte %llu of %zu)", path, what,
	       (unsigned long long)(c.p - buf), len);
	return NULL;
}
