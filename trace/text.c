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

/*
 * The next field of an event line at *@p: its name [*@k, *@kend) and value
 * [*@val, *@vend); *@p moves past it.  Returns 1, 0 at the line's end, or
 * -1 for a field without '=' (with @spaced, "dev 0:3" and "ino fe00010",
 * as the filemap events print them, are fields: a name, a space, the value).
 */
static inline int next_field(const char **p, const char *end, int spaced, const char **k, const char **kend,
			     const char **val, const char **vend)
{
	const char *q = *p, *v;

	while (q < end && *q == ' ')
		q++;
	if (q >= end) {
		*p = q;
		return 0;
	}
	*k = q;
	while (q < end && *q != ' ' && *q != '=')
		q++;
	*kend = q;
	if (q < end && *q == '=') {
		v = q + 1;
	} else {
		if (!spaced || q - *k != 3 || (memcmp(*k, "dev", 3) && memcmp(*k, "ino", 3)))
			return -1;
		v = q;
		while (v < end && *v == ' ')
			v++;
	}
	*val = v;
	while (v < end && *v != ' ')
		v++;
	*vend = *p = v;
	return 1;
}

/* Parses the fields after "<event>: " into @ev.  Returns 0 or -1 (bad field). */
static int parse_fields(struct ps_reader *r, const char *p, const char *end, struct ps_event *ev)
{
	unsigned int seen = 0;
	uint64_t page = 0;
	int page_null = 0, ok;
	int64_t v;

	for (;;) {
		const char *k, *eq, *val, *vend;
		int id, got = next_field(&p, end, 0, &k, &eq, &val, &vend);

		if (got <= 0) {
			if (got < 0)
				return -1;
			break;
		}
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
				if (v < 0 || v > PS_MAX_PAGE_ORDER)
					return -1;
				ev->order = v;
				break;
			case F_MT:
				ev->migratetype = ps_mt_from_kernel(v, r->kver);
				break;
			case F_ALLOC_ORDER:
				if (v < 0 || v > PS_MAX_PAGE_ORDER)
					return -1;
				ev->alloc_order = v;
				ev->order = v;
				break;
			case F_FALLBACK_ORDER:
				if (v < 0 || v > PS_MAX_PAGE_ORDER)
					return -1;
				ev->fallback_order = v;
				break;
			case F_PAGEBLOCK_ORDER:
				/* x86-64: HUGETLB_PAGE_ORDER, or MAX_PAGE_ORDER without hugetlb */
				if (v < 1 || v > PS_MAX_PAGE_ORDER)
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
 * The page-cache, LRU and reclaim events, each with its own fields (below);
 * kept apart from the kmem events' so that their lines cost nothing more.
 * Their print formats (include/trace/events/{filemap,pagemap,vmscan}.h):
 *
 *   mm_filemap_*: dev 0:3 ino fe00010 pfn=0x10787c ofs=17371136 order=0
 *   mm_lru_insertion: folio=0x... pfn=0x109365 lru=0 flags=Ma bd
 *   mm_vmscan_lru_isolate: [isolate_mode=2] classzone=2 order=0 nr_requested=32
 *       nr_scanned=32 nr_skipped=0 nr_taken=32 lru=inactive_file
 *   mm_vmscan_lru_shrink_inactive: nid=0 nr_scanned=32 nr_reclaimed=13 ...
 *       priority=4 flags=RECLAIM_WB_FILE|RECLAIM_WB_ASYNC
 *
 * dev and ino are "name value" pairs; ofs is the index in bytes (index <<
 * PAGE_SHIFT, 12 on x86-64); mm_lru_insertion's flags are six positional
 * characters (M, a or f, s, b, d, B, or a space each), the last field of the
 * line; lru is a number there and a name in mm_vmscan_lru_isolate, which
 * before 4.11 gave only file=0/1 (taken as that type's inactive list) and
 * until 6.12 isolate_mode (ignored).  The kernel's own `trace` file hashes
 * %p (folio=, page=): only pfn= is used where the event has one.  Fields the
 * format does not print stay -1 (kswapd's zid) or 0.
 */
enum xfield_id {
	X_PFN, X_PAGE, X_FOLIO, X_DEV, X_INO, X_OFS, X_ORDER, X_LRU, X_FLAGS, X_NID, X_ZID, X_GFP,
	X_NR_SCANNED, X_NR_RECLAIMED, X_NR_TAKEN, X_NR_SKIPPED, X_PRIORITY, X_FILE, X_NR
};

static const struct {
	const char *name;
	int len;
} xfield_names[X_NR] = {
#define F(id, s) [id] = { s, sizeof(s) - 1 }
	F(X_PFN, "pfn"), F(X_PAGE, "page"), F(X_FOLIO, "folio"), F(X_DEV, "dev"), F(X_INO, "ino"),
	F(X_OFS, "ofs"), F(X_ORDER, "order"), F(X_LRU, "lru"), F(X_FLAGS, "flags"), F(X_NID, "nid"),
	F(X_ZID, "zid"), F(X_GFP, "gfp_flags"), F(X_NR_SCANNED, "nr_scanned"),
	F(X_NR_RECLAIMED, "nr_reclaimed"), F(X_NR_TAKEN, "nr_taken"), F(X_NR_SKIPPED, "nr_skipped"),
	F(X_PRIORITY, "priority"), F(X_FILE, "file"),
#undef F
};

#define XB(id) (1u << (id))

/* What each event must print (a pfn may come from page=/folio= instead) */
static const unsigned int xrequired[PS_EV_NR] = {
	[PS_EV_PC_ADD] = XB(X_PFN) | XB(X_DEV) | XB(X_INO) | XB(X_OFS),
	[PS_EV_PC_DEL] = XB(X_PFN) | XB(X_DEV) | XB(X_INO) | XB(X_OFS),
	[PS_EV_LRU_ADD] = XB(X_PFN) | XB(X_LRU) | XB(X_FLAGS),
	[PS_EV_LRU_ACTIVATE] = XB(X_PFN),
	[PS_EV_KSWAPD_WAKE] = XB(X_NID) | XB(X_ORDER),
	[PS_EV_KSWAPD_SLEEP] = XB(X_NID),
	[PS_EV_WAKEUP_KSWAPD] = XB(X_NID) | XB(X_ORDER),
	[PS_EV_DIRECT_BEGIN] = XB(X_ORDER),
	[PS_EV_DIRECT_END] = XB(X_NR_RECLAIMED),
	[PS_EV_NODE_RECLAIM_BEGIN] = XB(X_NID) | XB(X_ORDER),
	[PS_EV_NODE_RECLAIM_END] = XB(X_NR_RECLAIMED),
	[PS_EV_LRU_ISOLATE] = XB(X_NR_SCANNED) | XB(X_NR_TAKEN) | XB(X_ORDER),
	[PS_EV_SHRINK_INACTIVE] = XB(X_NR_SCANNED) | XB(X_NR_RECLAIMED) | XB(X_PRIORITY) | XB(X_FLAGS),
	[PS_EV_SHRINK_ACTIVE] = XB(X_NR_TAKEN) | XB(X_PRIORITY) | XB(X_FLAGS),
	[PS_EV_WRITE_FOLIO] = XB(X_PFN) | XB(X_FLAGS),
};

static int xfield_lookup(const char *k, int len)
{
	for (int i = 0; i < X_NR; i++)
		if (xfield_names[i].len == len && !memcmp(xfield_names[i].name, k, len))
			return i;
	return -1;
}

/* A signed decimal within lo..hi. */
static int parse_int_range(const char *s, const char *end, long long lo, long long hi, long long *out)
{
	int neg = s < end && *s == '-', ok;
	uint64_t u;

	if (neg)
		s++;
	if (s >= end || !is_digit(*s))
		return -1;
	u = parse_u64(s, end, &ok);
	if (!ok || u > (uint64_t)INT64_MAX)
		return -1;
	*out = neg ? -(long long)u : (long long)u;
	return *out < lo || *out > hi ? -1 : 0;
}

/* "a|b|c" of RECLAIM_WB_* names, or RECLAIM_WB_NONE. */
static int parse_reclaim_flags(const char *s, const char *end, uint16_t *flags)
{
	static const struct {
		const char *name;
		uint16_t bit;
	} names[] = {
		{ "ANON", PS_RECLAIM_WB_ANON }, { "FILE", PS_RECLAIM_WB_FILE }, { "MIXED", PS_RECLAIM_WB_MIXED },
		{ "SYNC", PS_RECLAIM_WB_SYNC }, { "ASYNC", PS_RECLAIM_WB_ASYNC }, { "NONE", 0 },
	};

	*flags = 0;
	while (s < end) {
		const char *bar = memchr(s, '|', end - s), *e = bar ? bar : end;
		size_t i;

		if (e - s < 11 || memcmp(s, "RECLAIM_WB_", 11))
			return -1;
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if ((size_t)(e - s - 11) == strlen(names[i].name) && !memcmp(s + 11, names[i].name, e - s - 11))
				break;
		if (i == sizeof(names) / sizeof(names[0]))
			return -1;
		*flags |= names[i].bit;
		s = bar ? bar + 1 : end;
	}
	return 0;
}

/* mm_lru_insertion's six flag characters from @s (fewer when the line ends first: spaces). */
static int parse_pagemap_flags(const char *s, const char *end, uint16_t *flags)
{
	static const struct {
		char c;
		uint16_t bit;
	} pos[6] = {
		{ 'M', PS_PAGEMAP_MAPPED }, { 'a', PS_PAGEMAP_ANONYMOUS }, { 's', PS_PAGEMAP_SWAPCACHE },
		{ 'b', PS_PAGEMAP_SWAPBACKED }, { 'd', PS_PAGEMAP_MAPPEDDISK }, { 'B', PS_PAGEMAP_BUFFERS },
	};

	*flags = 0;
	for (int i = 0; i < 6; i++) {
		char c = s + i < end ? s[i] : ' ';

		if (c == pos[i].c)
			*flags |= pos[i].bit;
		else if (i == 1 && c == 'f')
			*flags |= PS_PAGEMAP_FILE;
		else if (c != ' ')
			return -1;
	}
	return 0;
}

static int lru_from_name(const char *s, const char *end)
{
	static const char *const names[PS_NR_LRU] = { "inactive_anon", "active_anon", "inactive_file", "active_file",
						      "unevictable" };

	for (int i = 0; i < PS_NR_LRU; i++)
		if ((size_t)(end - s) == strlen(names[i]) && !memcmp(s, names[i], end - s))
			return i;
	return -1;
}

/* The fields of a page-cache, LRU or reclaim event into @ev.  Returns 0 or -1 (bad field). */
static int parse_x_fields(struct ps_reader *r, const char *p, const char *end, struct ps_event *ev)
{
	unsigned int seen = 0;
	uint64_t page = 0, ofs = 0;
	int page_null = 0, ok, type = ev->type;
	long long v;

	ev->pfn = PS_PFN_NONE;
	switch (type) {
	case PS_EV_KSWAPD_WAKE:
	case PS_EV_KSWAPD_SLEEP:
	case PS_EV_WAKEUP_KSWAPD:
	case PS_EV_NODE_RECLAIM_BEGIN:
		ev->x.ks.nid = ev->x.ks.zid = -1;
		break;
	case PS_EV_DIRECT_END:
	case PS_EV_NODE_RECLAIM_END:
	case PS_EV_LRU_ISOLATE:
	case PS_EV_SHRINK_INACTIVE:
	case PS_EV_SHRINK_ACTIVE:
	case PS_EV_WRITE_FOLIO:
		ev->x.rc.nid = -1;
		break;
	}
	for (;;) {
		const char *k, *kend, *val, *vend;
		int id, got = next_field(&p, end, 1, &k, &kend, &val, &vend);

		if (got <= 0) {
			if (got < 0)
				return -1;
			break;
		}
		id = xfield_lookup(k, kend - k);
		if (id < 0)
			continue;	/* classzone=, nr_requested=, nr_dirty=, isolate_mode=, ... */
		if (id == X_FLAGS && type == PS_EV_LRU_ADD) {
			/* positional, spaces included: always the line's last field */
			if (parse_pagemap_flags(val, end, &ev->x.lru.flags) < 0)
				return -1;
			p = val + 6 < end ? val + 6 : end;
			seen |= XB(id);
			continue;
		}
		seen |= XB(id);
		switch (id) {
		case X_PFN:
			ev->pfn = parse_u64(val, vend, &ok);
			if (!ok || ev->pfn == PS_PFN_NONE)
				return -1;
			break;
		case X_PAGE:
		case X_FOLIO:
			page = parse_ptr(val, vend, &ok, &page_null);
			if (!ok)
				return -1;
			break;
		case X_DEV: {
			const char *colon = memchr(val, ':', vend - val);
			long long maj, min;

			if (!colon || parse_int_range(val, colon, 0, 4095, &maj) < 0 ||
			    parse_int_range(colon + 1, vend, 0, (1 << 20) - 1, &min) < 0)
				return -1;
			ev->x.pc.dev = (uint32_t)(maj << 20 | min);
			break;
		}
		case X_INO: {
			uint64_t x = 0;

			/* %lx, without 0x */
			if (val >= vend || vend - val > 16)
				return -1;
			for (const char *q = val; q < vend; q++) {
				int d = is_digit(*q) ? *q - '0' : *q >= 'a' && *q <= 'f' ? *q - 'a' + 10 : -1;

				if (d < 0)
					return -1;
				x = x << 4 | (uint64_t)d;
			}
			ev->x.pc.ino = x;
			break;
		}
		case X_OFS:
			ofs = parse_u64(val, vend, &ok);
			if (!ok || ofs == PS_PFN_NONE || (ofs & 4095))
				return -1;
			ev->x.pc.index = ofs >> 12;
			break;
		case X_ORDER:
			if (parse_int_range(val, vend, 0, PS_MAX_PAGE_ORDER, &v) < 0)
				return -1;
			ev->order = (uint8_t)v;
			break;
		case X_LRU:
			if (type == PS_EV_LRU_ADD) {
				if (parse_int_range(val, vend, 0, PS_NR_LRU - 1, &v) < 0)
					return -1;
				ev->x.lru.lru = (uint8_t)v;
			} else if (type == PS_EV_LRU_ISOLATE) {
				int l = lru_from_name(val, vend);

				if (l < 0 && parse_int_range(val, vend, 0, PS_NR_LRU - 1, &v) == 0)
					l = (int)v;
				if (l < 0)
					return -1;
				ev->x.rc.lru = (uint8_t)l;
			}
			break;
		case X_FILE:
			if (type == PS_EV_LRU_ISOLATE) {
				if (parse_int_range(val, vend, 0, 1, &v) < 0)
					return -1;
				ev->x.rc.lru = v ? PS_LRU_INACTIVE_FILE : PS_LRU_INACTIVE_ANON;
			}
			break;
		case X_FLAGS:
			if (parse_reclaim_flags(val, vend, &ev->x.rc.flags) < 0)
				return -1;
			break;
		case X_GFP:
			ev->gfp = ps_gfp_parse(val, vend - val);
			break;
		case X_NID:
		case X_ZID:
			if (parse_int_range(val, vend, -1, INT16_MAX, &v) < 0)
				return -1;
			if (type == PS_EV_KSWAPD_WAKE || type == PS_EV_KSWAPD_SLEEP || type == PS_EV_WAKEUP_KSWAPD ||
			    type == PS_EV_NODE_RECLAIM_BEGIN) {
				if (id == X_NID)
					ev->x.ks.nid = (int16_t)v;
				else
					ev->x.ks.zid = (int16_t)v;
			} else if (id == X_NID && (type == PS_EV_SHRINK_INACTIVE || type == PS_EV_SHRINK_ACTIVE)) {
				ev->x.rc.nid = (int16_t)v;
			}
			break;
		case X_PRIORITY:
			if (parse_int_range(val, vend, INT8_MIN, INT8_MAX, &v) < 0)
				return -1;
			ev->x.rc.priority = (int8_t)v;
			break;
		default:	/* the counts */
			if (parse_int_range(val, vend, 0, UINT32_MAX, &v) < 0)
				return -1;
			if (id == X_NR_SCANNED)
				ev->x.rc.nr_scanned = (uint32_t)v;
			else if (id == X_NR_RECLAIMED)
				ev->x.rc.nr_reclaimed = (uint32_t)v;
			else if (id == X_NR_TAKEN)
				ev->x.rc.nr_taken = (uint32_t)v;
			else
				ev->x.rc.nr_skipped = (uint32_t)v;
			break;
		}
	}
	/* a pfn from the folio's (page's) address when pfn= is not printed */
	if (!(seen & XB(X_PFN)) && (seen & (XB(X_PAGE) | XB(X_FOLIO))) && (xrequired[type] & XB(X_PFN))) {
		if (page_null || (ev->pfn = ps_pfn_from_page_addr(page)) == PS_PFN_NONE)
			return -1;
		r->stats.pfn_from_page++;
		seen |= XB(X_PFN);
	}
	if (type == PS_EV_LRU_ISOLATE && !(seen & (XB(X_LRU) | XB(X_FILE))))
		return -1;
	if ((seen & xrequired[type]) != xrequired[type])
		return -1;
	/* the fields of events that do not carry them (an lru= on another event) are not kept */
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

/* The digits at @p (a pid or a CPU, checked by find_cpu_bracket; a pid ends at a '/' or blank) as a number up to @max. */
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
		const char *line, *end, *p, *b, *comm_end, *pid, *tok, *tend, *name;
		uint64_t id;
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
			if (parse_header(r, p) < 0) {
				if (skip_line(r, st, PS_SKIP_MALFORMED, p, end - p, err) < 0)
					return -1;
			}
			continue;
		}
		if (parse_lost(r, p, end))
			continue;
		if (st->perf && is_callchain(line, end))
			continue;
		b = find_cpu_bracket(p, end, &comm_end, &pid, &perf);
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
		if (parse_id(pid, &id, INT32_MAX) < 0) {
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
		if (p + 1 < end && *p == ':' && p[1] != ' ') {
			/* perf script: "kmem:mm_page_alloc:", the event's system first */
			name = ++p;
			while (p < end && *p != ' ' && *p != ':')
				p++;
		}
		if (p >= end || *p != ':') {
			/* function tracer and the like: "func <-parent" */
			if (skip_line(r, st, PS_SKIP_OTHER_EVENT, name, end - name, err) < 0)
				return -1;
			continue;
		}
		type = ps_event_type_from_name(name, p - name);
		if (type < 0 && p - name == 19 && !memcmp(name, "mm_vmscan_writepage", 19))
			type = PS_EV_WRITE_FOLIO;	/* its name before folios */
		if (type < 0) {
			if (skip_line(r, st, PS_SKIP_OTHER_EVENT, name, end - name, err) < 0)
				return -1;
			continue;
		}
		ev->type = type;
		ok = (ps_event_is_kmem(type) ? parse_fields(r, p + 1, end, ev) : parse_x_fields(r, p + 1, end, ev)) == 0;
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
