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
 * Only the kmem system's formats are handed to libtraceevent: pagesim
 * reads the kmem events' fields by name and prints nothing else.  Each is
 * checked first for the shape the kernel writes (printable text; name, ID
 * and format lines; field lines with offset, size and signed; a print fmt
 * whose quotes and brackets close, whose arguments hold only C's
 * expression characters and whose REC->field are fields of the format):
 * libtraceevent's parser can crash on a damaged one.  What passes is
 * parsed in a child process first (parses_in_child()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "trace/perf_tracing.h"
#include "trace/tep_formats.h"

#define MAX_FORMAT (1u << 20)	/* a longer event format is damage */
#define MAX_KMEM 64		/* more kmem events is damage */

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

static int starts(const char *p, const char *end, const char *s)
{
	size_t n = strlen(s);

	return (size_t)(end - p) >= n && !memcmp(p, s, n);
}

/* "KEY<digits>;" at p: past it, or NULL. */
static const char *number_after(const char *p, const char *end, const char *key)
{
	if (!starts(p, end, key))
		return NULL;
	p += strlen(key);
	if (p >= end || *p < '0' || *p > '9')
		return NULL;
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	return p < end && *p == ';' ? p + 1 : NULL;
}

static int is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

#define MAX_FIELDS 64

struct names {
	const char *name[MAX_FIELDS];
	int len[MAX_FIELDS];
	int n;
};

/* The name a field line declares: the last identifier before ';' (past any "[N]"). */
static int add_name(struct names *f, const char *decl, const char *semi)
{
	const char *e = semi, *b;

	while (e > decl && e[-1] == ']') {
		while (e > decl && e[-1] != '[')
			e--;
		if (e > decl)
			e--;
	}
	for (b = e; b > decl && is_ident(b[-1]); b--)
		;
	if (b == e || f->n == MAX_FIELDS)
		return -1;
	f->name[f->n] = b;
	f->len[f->n++] = (int)(e - b);
	return 0;
}

static int declared(const struct names *f, const char *p, const char *end)
{
	const char *e = p;

	while (e < end && is_ident(*e))
		e++;
	for (int i = 0; i < f->n; i++)
		if (f->len[i] == e - p && !memcmp(f->name[i], p, e - p))
			return 1;
	return 0;
}

/* Whether the @n bytes at @t have the shape of a kernel event format (see above). */
static int format_ok(const char *t, size_t n)
{
	const char *p = t, *end = t + n, *eol;
	struct names f = { .n = 0 };
	int depth = 0;

	for (size_t i = 0; i < n; i++)
		if ((t[i] < 0x20 || t[i] > 0x7e) && t[i] != '\t' && t[i] != '\n')
			return 0;
	if (!starts(p, end, "name: ") || !(p = memchr(p, '\n', end - p)) || !starts(++p, end, "ID: ") ||
	    !(p = memchr(p, '\n', end - p)) || !starts(++p, end, "format:\n"))
		return 0;
	p += strlen("format:\n");
	/* field lines, blank lines, then the print fmt */
	while (p < end && !starts(p, end, "print fmt: ")) {
		eol = memchr(p, '\n', end - p);
		if (!eol)
			return 0;
		if (eol > p) {
			const char *semi;

			if (!starts(p, eol, "\tfield:") || !(semi = memchr(p, ';', eol - p)) ||
			    add_name(&f, p, semi) < 0 ||
			    !(p = number_after(semi + 1, eol, "\toffset:")) || !(p = number_after(p, eol, "\tsize:")))
				return 0;
			if (p < eol && !(p = number_after(p, eol, "\tsigned:")))
				return 0;
			if (p != eol)
				return 0;
		}
		p = eol + 1;
	}
	if (!starts(p, end, "print fmt: \""))
		return 0;
	for (p += strlen("print fmt: "); p < end && *p != '\n'; p++) {
		if (*p == '"' || *p == '\'') {
			char q = *p;

			/* a "\n" in the kernel's format string comes out as a newline */
			for (p++; p < end && *p != q; p++)
				if (*p == '\\' && p + 1 < end)
					p++;
			if (p >= end || *p != q)
				return 0;
		} else if (!is_ident(*p) && !strchr(" ()[]{}*+-/%&|^~!<>=?:,.;", *p)) {
			/* outside quotes: C's expression characters only (';': statement expressions) */
			return 0;
		} else if (starts(p, end, "REC->")) {
			/* the arguments read only fields the format declares */
			if (!declared(&f, p + 5, end))
				return 0;
			p += 4;
		} else if (*p == '(' || *p == '[' || *p == '{') {
			depth++;
		} else if (*p == ')' || *p == ']' || *p == '}') {
			if (--depth < 0)
				return 0;
		}
	}
	if (depth)
		return 0;
	while (p < end && (*p == '\n' || *p == ' '))
		p++;
	return p == end;
}

struct fmt {
	const char *text;
	size_t len;
};

/*
 * A new tep_handle holding the @n kmem formats of @f, as trace/tep_formats.c
 * hands them over (print formats lazily), or each format whole (@whole: the
 * trial run, which must meet every print format a later decode may parse).
 */
static struct tep_handle *parse_formats(const struct fmt *f, int n, int long_size, uint32_t page_size, int whole)
{
	struct tep_handle *tep = tep_alloc();

	if (!tep)
		return NULL;
	tep_set_loglevel(TEP_LOG_NONE);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, long_size);
	tep_set_page_size(tep, page_size);
	/* a format libtraceevent cannot parse is left out: its events are skipped, counted */
	for (int i = 0; i < n; i++)
		if (whole)
			ps_tep_parse_whole(tep, f[i].text, f[i].len, "kmem");
		else
			tep_parse_event(tep, f[i].text, f[i].len, "kmem");
	return tep;
}

/*
 * libtraceevent's parser still crashes on some damaged formats that pass
 * format_ok() (a missing comma between two arguments): the formats are
 * parsed once in a child process first.  Returns 1 when it lived (or
 * could not be started: then the parse is left to chance), 0 when it died.
 */
static int parses_in_child(const struct fmt *f, int n, int long_size, uint32_t page_size)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return 1;
	if (pid == 0) {
		parse_formats(f, n, long_size, page_size, 1);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

struct tep_handle *ps_perf_tracing_parse(const uint8_t *buf, size_t len, const char *path,
					 struct tep_handle *lent, struct ps_error *err)
{
	static const uint8_t magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct cur c = { buf, buf + len };
	struct fmt kmem[MAX_KMEM];
	const uint8_t *p;
	const char *what = "the header";
	struct tep_handle *tep;
	uint32_t page_size, count, systems;
	int long_size, nkmem = 0;

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
	for (uint32_t s = 0; s < systems; s++) {
		const char *sys = take_str(&c);

		if (!sys || take_u32(&c, &count) < 0)
			goto damaged;
		for (uint32_t i = 0; i < count; i++) {
			uint64_t n;

			if (take_u64(&c, &n) < 0 || n > MAX_FORMAT || take(&c, n, &p) < 0)
				goto damaged;
			/* only the kmem events' are parsed: the less libtraceevent parses, the less can go wrong */
			if (strcmp(sys, "kmem"))
				continue;
			if (nkmem == MAX_KMEM)
				goto damaged;
			if (!format_ok((const char *)p, n)) {
				const char *name = (const char *)p + 6;
				int nlen = 0;

				while (n > 6 && nlen < 40 && (size_t)nlen < n - 6 && is_ident(name[nlen]))
					nlen++;
				ps_err(err, "%s: the perf.data's tracing data is damaged: the format of kmem:%.*s (at byte %llu of it) is not one the kernel writes",
				       path, nlen, name, (unsigned long long)(p - buf));
				return NULL;
			}
			kmem[nkmem].text = (const char *)p;
			kmem[nkmem++].len = n;
		}
	}
	if (lent)
		return lent;
	if (!parses_in_child(kmem, nkmem, long_size, page_size)) {
		ps_err(err, "%s: the perf.data's kmem event formats are damaged: libtraceevent cannot parse them (it crashed on them in a trial run)",
		       path);
		return NULL;
	}
	tep = parse_formats(kmem, nkmem, long_size, page_size, 0);
	if (!tep)
		ps_err(err, "out of memory");
	return tep;
damaged:
	ps_err(err, "%s: the perf.data's tracing data is damaged (in %s, byte %llu of %zu)", path, what,
	       (unsigned long long)(c.p - buf), len);
	return NULL;
}
