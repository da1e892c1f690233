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
	int perf;		/* perf script text: an event line of its form was seen */
};

/* The first perf script line: the format is named after it. */
static void text_perf_script(struct ps_reader *r, struct text_state *st)
{
	const char *comp = ps_stream_compression(r->stream);

	st->perf = 1;
	snprintf(r->format, sizeof(r->format), "perf script text%s%s%s", comp ? " (" : "",
		 comp ? comp : "", comp ? ")" : "");
}

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
	while (s < end && is_digit(*s))
		sec = sec * 10 + (*s++ - '0');
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

/* "[LOST 12 EVENTS]", "CPU:1 [LOST 12 EVENTS]", "CPU:1 [12 EVENTS DROPPED]", "[LOST EVENTS]" */
static int parse_lost(struct ps_reader *r, const char *line)
{
	const char *p = strstr(line, "EVENTS");
	const char *b = strchr(line, '[');
	uint64_t n = 0;
	int have_n = 0;

	if (!p || !b || b > p || !(strstr(line, "LOST") || strstr(line, "DROPPED")))
		return 0;
	for (const char *q = b; q < p; q++) {
		if (is_digit(*q)) {
			n = n * 10 + (*q - '0');
			have_n = 1;
		}
	}
	r->stats.lost_markers++;
	if (have_n)
		r->stats.lost_events += n;
	else
		r->stats.lost_unknown++;
	return 1;
}

static void parse_header(struct ps_reader *r, const char *line)
{
	const char *p = strstr(line, "entries-in-buffer/entries-written:");
	unsigned long long in, written;
	int cpus;

	if (p && sscanf(p, "entries-in-buffer/entries-written: %llu/%llu", &in, &written) == 2 &&
	    written > in)
		r->stats.lost_overwritten = written - in;
	p = strstr(line, "#P:");
	if (p && sscanf(p, "#P:%d", &cpus) == 1)
		r->nr_cpus = cpus;
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
 * Finds "<comm>-<pid> [<cpu>]" (ftrace) or "<comm> <pid> [<cpu>]" and
 * "<comm> <pid>/<tid> [<cpu>]" (perf script) and returns the position of
 * '[' (or NULL); *comm_end is set past the comm, *pid to the task's id (the
 * tid of a pid/tid pair), *perf when the line is perf script's.
 */
static const char *find_cpu_bracket(const char *line, const char *end, const char **comm_end,
				    const char **pid, int *perf)
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
		/* digits of the pid, then '-' (ftrace) or a blank (perf script) */
		q = s;
		while (q > line && is_digit(q[-1]))
			q--;
		if (q == s || q == line)
			continue;
		*pid = q;
		if (q[-1] == '/') {
			/* perf script -F pid,tid: "<pid>/<tid>" */
			q--;
			while (q > line && is_digit(q[-1]))
				q--;
			if (q == line || q[-1] != ' ' || !is_digit(*q))
				continue;
		}
		if (q[-1] == '-' && *pid == q) {
			*comm_end = q - 1;
			*perf = 0;
			return b;
		}
		if (q[-1] != ' ' && q[-1] != '\t')
			continue;
		while (q > line && (q[-1] == ' ' || q[-1] == '\t'))
			q--;
		if (q == line)
			continue;
		*comm_end = q;
		*perf = 1;
		return b;
	}
	return NULL;
}

/*
 * perf script's callchain lines under an event: a tab (event lines start
 * with the comm, padded with spaces), an address in hex, a blank, the symbol.
 */
static int is_callchain(const char *line, const char *end)
{
	const char *p = line;

	if (p >= end || *p != '\t')
		return 0;
	while (p < end && (*p == '\t' || *p == ' '))
		p++;
	if (p >= end || !isxdigit((unsigned char)*p))
		return 0;
	while (p < end && isxdigit((unsigned char)*p))
		p++;
	return p < end && *p == ' ';
}

static int text_next(struct ps_reader *r, struct ps_event *ev, struct ps_error *err)
{
	struct text_state *st = r->priv;
	char where[32];

	for (;;) {
		const char *line, *end, *p, *b, *comm_end, *pid, *tok, *tend, *name;
		long len;
		int type, ok, perf;

		line = ps_stream_getline(r->stream, &len, err);
		if (!line) {
			if (len < 0) {
				/* a truncated compressed stream ends the trace; the caller reports it */
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
			parse_header(r, p);
			continue;
		}
		if (parse_lost(r, p))
			continue;
		if (st->perf && is_callchain(line, end))
			continue;
		b = find_cpu_bracket(p, end, &comm_end, &pid, &perf);
		if (!b) {
			if (st->line <= 3 && (!strncmp(p, "cpus=", 5) || !strncmp(p, "version", 7))) {
				if (!strncmp(p, "cpus=", 5))
					r->nr_cpus = atoi(p + 5);
				st->report = 1;
				continue;
			}
			if (!strncmp(p, "CPU ", 4) && strstr(p, " is empty"))
				continue;
			snprintf(where, sizeof(where), "line %llu", (unsigned long long)st->line);
			if (ps_reader_skip(r, PS_SKIP_MALFORMED, where, p, end - p, err) < 0)
				return -1;
			continue;
		}
		memset(ev, 0, sizeof(*ev));
		ev->migratetype = PS_MT_UNKNOWN;
		ev->alloc_migratetype = ev->fallback_migratetype = PS_MT_UNKNOWN;
		ev->pid = (int32_t)strtol(pid, NULL, 10);
		ev->cpu = (uint16_t)strtoul(b + 1, NULL, 10);
		if (perf && !st->perf)
			text_perf_script(r, st);
		if (r->opts.flags & PS_RD_COMM) {
			((char *)comm_end)[0] = 0;	/* the line buffer is ours until the next call */
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
		snprintf(where, sizeof(where), "line %llu", (unsigned long long)st->line);
		if (!tok) {
			if (ps_reader_skip(r, PS_SKIP_MALFORMED, where, line, end - line, err) < 0)
				return -1;
			continue;
		}
		p = tok;
		while (p < end && *p == ' ')
			p++;
		name = p;
		while (p < end && *p != ' ' && *p != ':')
			p++;
		if (p + 1 < end && *p == ':' && p[1] != ' ') {
			/* perf script: "kmem:mm_page_alloc:", the event's system first */
			name = ++p;
			while (p < end && *p != ' ' && *p != ':')
				p++;
		}
		if (p >= end || *p != ':') {
			/* function tracer and the like: "func <-parent" */
			if (ps_reader_skip(r, PS_SKIP_OTHER_EVENT, where, name, end - name, err) < 0)
				return -1;
			continue;
		}
		type = ps_event_type_from_name(name, p - name);
		if (type < 0) {
			if (ps_reader_skip(r, PS_SKIP_OTHER_EVENT, where, name, end - name, err) < 0)
				return -1;
			continue;
		}
		ev->type = type;
		ok = parse_fields(r, p + 1, end, ev) == 0;
		if (!ok) {
			if (ps_reader_skip(r, PS_SKIP_BAD_FIELD, where, name, end - name, err) < 0)
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
	const char *comp;
	size_t got;

	if (!st)
		return ps_err(err, "out of memory");
	r->priv = st;
	r->ops = &text_ops;
	head = ps_stream_peek(r->stream, 8, &got, err);
	if (head && got >= 5 && (!memcmp(head, "cpus=", 5) || !memcmp(head, "version", 7 < got ? 7 : got)))
		st->report = 1;
	comp = ps_stream_compression(r->stream);
	snprintf(r->format, sizeof(r->format), "%s%s%s%s", st->report ? "trace-cmd report text" : "ftrace text",
		 comp ? " (" : "", comp ? comp : "", comp ? ")" : "");
	return 0;
}
