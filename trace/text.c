// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * text.c - ftrace text, as the kernel writes it (tracefs `trace`,
 * `trace_pipe`) and as `trace-cmd report` prints it.
 *
 *   <comm>-<pid> [<cpu>] <flags> <secs>.<frac>: <event>: <field>=<value> ...
 *
 * The flags column ("d..1.") is absent in trace-cmd report and in the
 * kernel's output with the irq-info option off.  Comms may hold spaces and
 * dashes, so the line is anchored on the "-<pid> [<cpu>]" pattern.  Fields
 * are found by name; the rendered `fragmenting=` is ignored (libtraceevent
 * prints it wrongly) and recomputed by consumers from fallback_order.
 *
 * Kernel differences handled here: pfn in decimal (<= 5.10) or hex; `page=`
 * with or without `pfn=` (a pfn is derived from the struct page address if
 * it is the only one given); failed allocations (page null, pfn 0 or -1);
 * pre-4.4 migratetype numbering (from the kernel release); zone_locked
 * without a percpu_refill field (derived as order == 0, as the kernel's
 * print format did).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/gfp.h"
#include "lib/kver.h"
#include "trace/reader-local.h"

struct text_state {
	uint64_t line;
	int report;		/* trace-cmd report text */
};

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static uint64_t parse_u64(const char *s, const char *end, int *ok)
{
	uint64_t v = 0;
	int base = 10;

	*ok = 0;
	if (s < end && *s == '-') {
		/* "-1" style pfn of a failed allocation */
		*ok = 1;
		return PS_PFN_NONE;
	}
	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (s >= end)
		return 0;
	for (; s < end; s++) {
		int d;

		if (is_digit(*s))
			d = *s - '0';
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			return 0;
		if (v > (UINT64_MAX - d) / base)
			return 0;	/* past 64 bits: not a number the kernel prints */
		v = v * base + d;
	}
	*ok = 1;
	return v;
}

/* "%p" output: hex with or without 0x; "(null)" and all zeros are NULL. */
static uint64_t parse_ptr(const char *s, const char *end, int *ok, int *null)
{
	uint64_t v = 0;

	*ok = 0;
	*null = 0;
	if (end - s == 6 && !memcmp(s, "(null)", 6)) {
		*ok = *null = 1;
		return 0;
	}
	if (end - s > 2 && s[0] == '0' && s[1] == 'x')
		s += 2;
	if (s >= end)
		return 0;
	for (; s < end; s++) {
		int d;

		if (is_digit(*s))
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else
			return 0;
		if (v >> 60)
			return 0;	/* more than 16 hex digits */
		v = (v << 4) | d;
	}
	*ok = 1;
	*null = v == 0;
	return v;
}

/* Seconds with a fraction of up to 9 digits -> ns. */
static int parse_ts(const char *s, const char *end, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0;
	int digits = 0;

	if (s >= end || !is_digit(*s))
		return -1;
	while (s < end && is_digit(*s)) {
		sec = sec * 10 + (*s++ - '0');
		if (sec > PS_EV_MAX_TS / 1000000000ull - 1)
			return -1;	/* past 2^63 ns (292 years, event.h) */
	}
	if (s < end && *s == '.') {
		s++;
		while (s < end && is_digit(*s)) {
			if (digits < 9) {
				frac = frac * 10 + (*s - '0');
				digits++;
			}
			s++;
		}
	}
	if (s != end)
		return -1;
	while (digits++ < 9)
		frac *= 10;
	*ns = sec * 1000000000ull + frac;
	return 0;
}

/*
 * A lost-events marker is a whole line: "[LOST 12 EVENTS]", "[LOST EVENTS]"
 * (the kernel), "[12 EVENTS DROPPED]" or "[EVENTS DROPPED]" (trace-cmd
 * report), after an optional "CPU:<n> ".  An event line
 * whose task is named like one ("[LOST 9 EVENTS]-123 [001] ...") is an
 * event.  Sets *@n (-1: no count); returns 1 for a marker.
 */
static int match_lost(const char *p, const char *end, long long *n)
{
	const char *q;
	uint64_t v = 0;
	int digits = 0;

	while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (end - p > 4 && !memcmp(p, "CPU:", 4)) {
		for (q = p + 4; q < end && is_digit(*q); q++)
			;
		if (q == p + 4 || q >= end || *q != ' ')
			return 0;
		p = q + 1;
	}
	if (end - p < 2 || *p != '[' || end[-1] != ']')
		return 0;
	p++;
	end--;
	if (end - p >= 5 && !memcmp(p, "LOST ", 5)) {
		p += 5;
		if (end - p == 6 && !memcmp(p, "EVENTS", 6)) {
			*n = -1;
			return 1;
		}
		for (; p < end && is_digit(*p) && digits < 19; p++, digits++)
			v = v * 10 + (*p - '0');
		if (!digits || end - p != 7 || memcmp(p, " EVENTS", 7))
			return 0;
	} else if (end - p == 14 && !memcmp(p, "EVENTS DROPPED", 14)) {
		*n = -1;	/* trace-cmd report: a loss of unknown size */
		return 1;
	} else {
		for (; p < end && is_digit(*p) && digits < 19; p++, digits++)
			v = v * 10 + (*p - '0');
		if (!digits || end - p != 15 || memcmp(p, " EVENTS DROPPED", 15))
			return 0;
	}
	*n = (long long)v;
	return 1;
}

static int parse_lost(struct ps_reader *r, const char *line, const char *end)
{
	long long n;

	if (!match_lost(line, end, &n))
		return 0;
	r->stats.lost_markers++;
	if (n >= 0)
		r->stats.lost_events += (uint64_t)n;
	else
		r->stats.lost_unknown++;
	return 1;
}

/* A decimal count of at most 2^48 at @p (what a header may print); NULL if none. */
static const char *header_count(const char *p, uint64_t *v)
{
	const char *q = p;

	*v = 0;
	while (is_digit(*q) && *v <= (1ull << 48))
		*v = *v * 10 + (*q++ - '0');
	return q == p || *v > (1ull << 48) ? NULL : q;
}

/*
 * The tracefs header: "entries-in-buffer/entries-written: 8/8   #P:2".
 * Returns -1 when it gives counts no ring buffer holds (more than 2^48
 * entries, written below in-buffer is fine: nothing was overwritten) or a
 * CPU count above the limit: the caller skips the line as malformed.
 */
static int parse_header(struct ps_reader *r, const char *line)
{
	static const char key[] = "entries-in-buffer/entries-written:";
	const char *p = strstr(line, key);
	uint64_t in, written, cpus;

	if (p) {
		p += sizeof(key) - 1;
		while (*p == ' ')
			p++;
		if (!(p = header_count(p, &in)) || *p++ != '/' || !(p = header_count(p, &written)))
			return -1;
		if (written > in)
			r->stats.lost_overwritten = written - in;
	}
	p = strstr(line, "#P:");
	if (p) {
		if (!header_count(p + 3, &cpus) || cpus > PS_READER_MAX_CPUS)
			return -1;
		r->nr_cpus = (int)cpus;
	}
	return 0;
}

enum field_id {
	F_PAGE, F_PFN, F_ORDER, F_MT, F_GFP, F_ALLOC_ORDER, F_FALLBACK_ORDER, F_PAGEBLOCK_ORDER,
	F_ALLOC_MT, F_FALLBACK_MT, F_CHANGE_OWNERSHIP, F_PERCPU_REFILL, F_NR
};

static const struct {
	const char *name;
	int len;
} field_names[F_NR] = {
#define F(id, s) [id] = { s, sizeof(s) - 1 }
	F(F_PAGE, "page"), F(F_PFN, "pfn"), F(F_ORDER, "order"), F(F_MT, "migratetype"),
	F(F_GFP, "gfp_flags"), F(F_ALLOC_ORDER, "alloc_order"), F(F_FALLBACK_ORDER, "fallback_order"),
	F(F_PAGEBLOCK_ORDER, "pageblock_order"), F(F_ALLOC_MT, "alloc_migratetype"),
	F(F_FALLBACK_MT, "fallback_migratetype"), F(F_CHANGE_OWNERSHIP, "change_ownership"),
	F(F_PERCPU_REFILL, "percpu_refill"),
#undef F
};

static int field_lookup(const char *k, int len)
{
	for (int i = 0; i < F_NR; i++)
		if (field_names[i].len == len && !memcmp(field_names[i].name, k, len))
			return i;
	return -1;
}

/* Which fields each event must carry to be usable (besides pfn or page). */
static const unsigned int required[PS_EV_NR] = {
	[PS_EV_ALLOC] = 1u << F_ORDER,
	[PS_EV_FREE] = 1u << F_ORDER,
	[PS_EV_FREE_BATCHED] = 0,
	[PS_EV_ZONE_LOCKED] = 1u << F_ORDER | 1u << F_MT,
	[PS_EV_PCPU_DRAIN] = 1u << F_ORDER | 1u << F_MT,
	[PS_EV_EXTFRAG] = 1u << F_ALLOC_ORDER | 1u << F_FALLBACK_ORDER | 1u << F_ALLOC_MT |
			  1u << F_FALLBACK_MT | 1u << F_CHANGE_OWNERSHIP,
};

/* Parses the fields after "<event>: " into @ev.  Returns 0 or -1 (bad field). */
static int parse_fields(struct ps_reader *r, const char *p, const char *end, struct ps_event *ev)
{
	unsigned int seen = 0;
	uint64_t page = 0;
	int page_null = 0, ok;
	int64_t v;

	while (p < end) {
		const char *k, *eq, *val, *vend;
		int id;

		while (p < end && *p == ' ')
			p++;
		if (p >= end)
			break;
		k = p;
		while (p < end && *p != ' ' && *p != '=')
			p++;
		if (p >= end || *p != '=')
			return -1;
		eq = p;
		val = eq + 1;
		vend = val;
		while (vend < end && *vend != ' ')
			vend++;
		p = vend;
		id = field_lookup(k, eq - k);
		if (id < 0)
			continue;	/* fields pagesim does not use (cold=, fragmenting=) */
		seen |= 1u << id;
		switch (id) {
		case F_PAGE:
			page = parse_ptr(val, vend, &ok, &page_null);
			if (!ok)
				return -1;
			break;
		case F_PFN:
			ev->pfn = parse_u64(val, vend, &ok);
			if (!ok)
				return -1;
			break;
		case F_GFP:
			ev->gfp = ps_gfp_parse(val, vend - val);
			break;
		default: {
			int neg = val < vend && *val == '-';
			uint64_t u = parse_u64(val + neg, vend, &ok);

			if (!ok || u > 1000)
				return -1;
			v = neg ? -(int64_t)u : (int64_t)u;
			switch (id) {
			case F_ORDER:
				if (v < 0 || v > PS_EV_MAX_ORDER)
					return -1;
				ev->order = v;
				break;
			case F_MT:
				ev->migratetype = ps_mt_from_kernel(v, r->kver);
				break;
			case F_ALLOC_ORDER:
				if (v < 0 || v > PS_EV_MAX_ORDER)
					return -1;
				ev->alloc_order = v;
				ev->order = v;
				break;
			case F_FALLBACK_ORDER:
				if (v < 0 || v > PS_EV_MAX_ORDER)
					return -1;
				ev->fallback_order = v;
				break;
			case F_PAGEBLOCK_ORDER:
				/* x86-64: HUGETLB_PAGE_ORDER, or MAX_PAGE_ORDER without hugetlb */
				if (v < 1 || v > PS_EV_MAX_ORDER)
					return -1;
				if (r->pageblock_order < 0)
					r->pageblock_order = v;
				break;
			case F_ALLOC_MT:
				ev->alloc_migratetype = ps_mt_from_kernel(v, r->kver);
				break;
			case F_FALLBACK_MT:
				ev->fallback_migratetype = ps_mt_from_kernel(v, r->kver);
				break;
			case F_CHANGE_OWNERSHIP:
				ev->change_ownership = v != 0;
				break;
			case F_PERCPU_REFILL:
				ev->percpu_refill = v != 0;
				ev->flags |= PS_EVF_PCPU_REFILL_KNOWN;
				break;
			}
		}
		}
	}
	if ((seen & required[ev->type]) != required[ev->type])
		return -1;
	if (ev->type == PS_EV_ZONE_LOCKED && !(seen & (1u << F_PERCPU_REFILL)))
		ev->percpu_refill = ev->order == 0;
	if (!(seen & (1u << F_PFN))) {
		if (!(seen & (1u << F_PAGE)))
			return -1;
		if (page_null) {
			ev->pfn = PS_PFN_NONE;
		} else {
			ev->pfn = ps_pfn_from_page_addr(page);
			if (ev->pfn == PS_PFN_NONE)
				return -1;
			r->stats.pfn_from_page++;
		}
	} else if ((seen & (1u << F_PAGE)) && page_null) {
		ev->pfn = PS_PFN_NONE;
	} else if (ev->type == PS_EV_ALLOC && ev->pfn == 0 && !(seen & (1u << F_PAGE))) {
		ev->pfn = PS_PFN_NONE;	/* the kernel prints pfn 0 for a failure */
	}
	if (ev->pfn == PS_PFN_NONE && ev->type != PS_EV_ALLOC)
		return -1;
	return 0;
}

/*
 * Finds "-<pid> [<cpu>]" and returns the position of '[' (or NULL); sets the
 * comm and pid bounds.
 */
static const char *find_cpu_bracket(const char *line, const char *end, const char **dash)
{
	for (const char *b = memchr(line, '[', end - line); b; b = memchr(b + 1, '[', end - b - 1)) {
		const char *q = b + 1, *s;

		if (q >= end || !is_digit(*q))
			continue;
		while (q < end && is_digit(*q))
			q++;
		if (q >= end || *q != ']')
			continue;
		s = b;
		while (s > line && s[-1] == ' ')
			s--;
		if (s == b)
			continue;
		/* digits of the pid, then '-' */
		q = s;
		while (q > line && is_digit(q[-1]))
			q--;
		if (q == s || q == line || q[-1] != '-')
			continue;
		*dash = q - 1;
		return b;
	}
	return NULL;
}

/* The digits at @p (a pid or a CPU, checked by find_cpu_bracket) as a number up to @max. */
static int parse_id(const char *p, uint64_t *v, uint64_t max)
{
	*v = 0;
	for (; is_digit(*p); p++) {
		*v = *v * 10 + (*p - '0');
		if (*v > max)
			return -1;
	}
	return 0;
}

/* Counts a skip of the current line (the place is formatted only then). */
static int skip_line(struct ps_reader *r, const struct text_state *st, enum ps_skip_reason reason,
		     const char *sample, long len, struct ps_error *err)
{
	char where[32];

	snprintf(where, sizeof(where), "line %llu", (unsigned long long)st->line);
	return ps_reader_skip(r, reason, where, sample, (int)len, err);
}

static int text_next(struct ps_reader *r, struct ps_event *ev, struct ps_error *err)
{
	struct text_state *st = r->priv;

	for (;;) {
		const char *line, *end, *p, *b, *dash, *tok, *tend, *name;
		uint64_t id;
		long len;
		int type, ok;

		line = ps_stream_getline(r->stream, &len, err);
		if (!line) {
			if (len < 0) {
				/* a truncated zstd stream ends the trace; the caller reports it */
				r->stats.truncated = 1;
				snprintf(r->stats.truncated_msg, sizeof(r->stats.truncated_msg), "%s", err->msg);
			}
			return 0;
		}
		st->line++;
		r->stats.lines++;
		end = line + len;
		if (len && end[-1] == '\r')
			end--;
		p = line;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p == end)
			continue;
		if (*p == '#') {
			if (parse_header(r, p) < 0) {
				if (skip_line(r, st, PS_SKIP_MALFORMED, p, end - p, err) < 0)
					return -1;
			}
			continue;
		}
		if (parse_lost(r, p, end))
			continue;
		b = find_cpu_bracket(p, end, &dash);
		if (!b) {
			if (st->line <= 3 && (!strncmp(p, "cpus=", 5) || !strncmp(p, "version", 7))) {
				uint64_t cpus;

				if (!strncmp(p, "cpus=", 5)) {
					if (!header_count(p + 5, &cpus) || cpus > PS_READER_MAX_CPUS) {
						if (skip_line(r, st, PS_SKIP_MALFORMED, p, end - p, err) < 0)
							return -1;
						continue;
					}
					r->nr_cpus = (int)cpus;
				}
				st->report = 1;
				continue;
			}
			if (!strncmp(p, "CPU ", 4) && strstr(p, " is empty"))
				continue;
			if (skip_line(r, st, PS_SKIP_MALFORMED, p, end - p, err) < 0)
				return -1;
			continue;
		}
		memset(ev, 0, sizeof(*ev));
		ev->migratetype = PS_MT_UNKNOWN;
		ev->alloc_migratetype = ev->fallback_migratetype = PS_MT_UNKNOWN;
		if (parse_id(dash + 1, &id, INT32_MAX) < 0) {
			if (skip_line(r, st, PS_SKIP_BAD_FIELD, p, end - p, err) < 0)
				return -1;
			continue;
		}
		ev->pid = (int32_t)id;
		if (parse_id(b + 1, &id, UINT16_MAX) < 0) {
			/* a CPU number past what an event record holds (the kernel's limit is 8192) */
			if (skip_line(r, st, PS_SKIP_BAD_FIELD, p, end - p, err) < 0)
				return -1;
			continue;
		}
		ev->cpu = (uint16_t)id;
		if (r->opts.flags & PS_RD_COMM) {
			((char *)dash)[0] = 0;	/* the line buffer is ours until the next call */
			ps_event_set_comm(ev, p);
		}
		/* after "]": optional flags, then "<ts>:" */
		p = strchr(b, ']') + 1;
		tok = NULL;
		for (int i = 0; i < 3; i++) {
			while (p < end && *p == ' ')
				p++;
			tend = p;
			while (tend < end && *tend != ' ')
				tend++;
			if (tend > p && tend[-1] == ':' && parse_ts(p, tend - 1, &ev->ts_ns) == 0) {
				tok = tend;
				break;
			}
			p = tend;
		}
		if (!tok) {
			if (skip_line(r, st, PS_SKIP_MALFORMED, line, end - line, err) < 0)
				return -1;
			continue;
		}
		p = tok;
		while (p < end && *p == ' ')
			p++;
		name = p;
		while (p < end && *p != ' ' && *p != ':')
			p++;
		if (p >= end || *p != ':') {
			/* function tracer and the like: "func <-parent" */
			if (skip_line(r, st, PS_SKIP_OTHER_EVENT, name, end - name, err) < 0)
				return -1;
			continue;
		}
		type = ps_event_type_from_name(name, p - name);
		if (type < 0) {
			if (skip_line(r, st, PS_SKIP_OTHER_EVENT, name, end - name, err) < 0)
				return -1;
			continue;
		}
		ev->type = type;
		ok = parse_fields(r, p + 1, end, ev) == 0;
		if (!ok) {
			if (skip_line(r, st, PS_SKIP_BAD_FIELD, name, end - name, err) < 0)
				return -1;
			continue;
		}
		ps_reader_account(r, ev);
		return 1;
	}
}

static void text_close(struct ps_reader *r)
{
	free(r->priv);
	r->priv = NULL;
}

static const struct ps_reader_ops text_ops = {
	.name = "ftrace text",
	.next = text_next,
	.close = text_close,
};

int ps_text_open(struct ps_reader *r, struct ps_error *err)
{
	struct text_state *st = calloc(1, sizeof(*st));
	const uint8_t *head;
	size_t got;

	if (!st)
		return ps_err(err, "out of memory");
	r->priv = st;
	r->ops = &text_ops;
	head = ps_stream_peek(r->stream, 8, &got, err);
	if (head && got >= 5 && (!memcmp(head, "cpus=", 5) || !memcmp(head, "version", 7 < got ? 7 : got)))
		st->report = 1;
	snprintf(r->format, sizeof(r->format), "%s%s", st->report ? "trace-cmd report text" : "ftrace text",
		 ps_stream_is_zstd(r->stream) ? " (zstd)" : "");
	return 0;
}
