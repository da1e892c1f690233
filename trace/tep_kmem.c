// SPDX-License-Identifier: GPL-2.0-or-later
/* tep_kmem.c - the page events of lib/event.h from libtraceevent records (see tep_kmem.h). */
#include <stdio.h>
#include <string.h>

#include "trace/gfp.h"
#include "lib/kver.h"
#include "trace/reader-local.h"
#include "trace/tep_formats.h"
#include "trace/tep_kmem.h"

static struct tep_format_field *field(struct tep_event *e, const char *name)
{
	return e ? tep_find_field(e, name) : NULL;
}

/* The event of @type in @tep, under its name or the name older kernels gave it. */
static struct tep_event *find_event(struct tep_handle *tep, int type)
{
	struct tep_event *e = tep_find_event_by_name(tep, ps_event_systems[type], ps_event_names[type]);

	if (!e && type == PS_EV_WRITE_FOLIO)
		e = tep_find_event_by_name(tep, "vmscan", "mm_vmscan_writepage");
	return e;
}

static void find_x_fields(struct ps_tep_fields *f, struct tep_event *e)
{
	if (!f->page)
		f->page = field(e, "folio");	/* 5.16+: the folio's address, its head page's */
	f->ino = field(e, "i_ino");
	f->index = field(e, "index");
	f->dev = field(e, "s_dev");
	f->lru = field(e, "lru");
	f->file = field(e, "file");		/* mm_vmscan_lru_isolate before 4.11 */
	f->flags = field(e, "flags");
	if (!f->flags)
		f->flags = field(e, "reclaim_flags");
	f->nid = field(e, "nid");
	f->zid = field(e, "zid");
	f->nr_scanned = field(e, "nr_scanned");
	f->nr_reclaimed = field(e, "nr_reclaimed");
	f->nr_taken = field(e, "nr_taken");
	f->nr_skipped = field(e, "nr_skipped");
	f->priority = field(e, "priority");
}

int ps_tep_kmem_init(struct ps_tep_kmem *k, struct tep_handle *tep)
{
	int found = 0;

	memset(k, 0, sizeof(*k));
	for (int t = 0; t < PS_EV_NR; t++)
		k->f[t].id = -1;	/* an event id 0 is a record's, never a match */
	k->tep = tep;
	trace_seq_init(&k->seq);
	for (int t = 0; t < PS_EV_NR; t++) {
		struct ps_tep_fields *f = &k->f[t];
		struct tep_event *e = find_event(tep, t);

		f->id = e ? e->id : -1;
		f->event = e;
		f->pfn = field(e, "pfn");
		f->page = field(e, "page");
		f->order = field(e, "order");
		f->gfp = field(e, "gfp_flags");
		f->mt = field(e, "migratetype");
		f->percpu_refill = field(e, "percpu_refill");
		f->alloc_order = field(e, "alloc_order");
		f->fallback_order = field(e, "fallback_order");
		f->alloc_mt = field(e, "alloc_migratetype");
		f->fallback_mt = field(e, "fallback_migratetype");
		f->change_ownership = field(e, "change_ownership");
		if (!ps_event_is_kmem(t))
			find_x_fields(f, e);
		found += e != NULL;
		if (e && !k->common_type) {
			k->common_type = tep_find_common_field(e, "common_type");
			k->common_pid = tep_find_common_field(e, "common_pid");
		}
	}
	k->swap = tep_is_file_bigendian(tep) != tep_is_local_bigendian(tep);
	return found;
}

int ps_tep_kmem_check(const struct ps_tep_kmem *k, char *msg, size_t len)
{
	/* the fields each event needs, besides pfn or page (what the text reader requires) */
	static const char *const need[PS_EV_NR][5] = {
		[PS_EV_ALLOC] = { "order" },
		[PS_EV_FREE] = { "order" },
		[PS_EV_ZONE_LOCKED] = { "order", "migratetype" },
		[PS_EV_PCPU_DRAIN] = { "order", "migratetype" },
		[PS_EV_EXTFRAG] = { "alloc_order", "fallback_order", "alloc_migratetype", "fallback_migratetype",
				    "change_ownership" },
	};

	for (int t = 0; t < PS_EV_NR; t++) {
		const struct ps_tep_fields *f = &k->f[t];
		const struct tep_format_field *fl;

		if (!f->event)
			continue;
		/* the page-cache, LRU and reclaim events' own fields are checked as each record is read */
		if (ps_event_is_kmem(t) && !f->pfn && !f->page) {
			snprintf(msg, len, "format of %s:%s has neither a 'pfn' nor a 'page' field", ps_event_systems[t], ps_event_names[t]);
			return -1;
		}
		for (int i = 0; i < 5 && need[t][i]; i++)
			if (!field(f->event, need[t][i])) {
				snprintf(msg, len, "format of %s:%s has no field '%s'", ps_event_systems[t], ps_event_names[t], need[t][i]);
				return -1;
			}
		/*
		 * The common fields open every record, 16 bytes at most (type,
		 * flags, preempt count, pid; lock_depth before 3.x): common_type
		 * a u16 at 0 (the event id), common_pid an int, in every kernel.
		 */
		for (fl = f->event->format.common_fields; fl; fl = fl->next)
			if (fl->offset < 0 || fl->size <= 0 || fl->offset + fl->size > 16 ||
			    (!strcmp(fl->name, "common_type") && (fl->offset != 0 || fl->size != 2)) ||
			    (!strcmp(fl->name, "common_pid") && fl->size != 4)) {
				snprintf(msg, len, "format of %s:%s puts common field '%s' at offset %d, %d bytes (the common fields are the first bytes of a record)",
					 ps_event_systems[t], ps_event_names[t], fl->name, fl->offset, fl->size);
				return -1;
			}
		/* the fields read as numbers: a record is at most a ring-buffer page */
		for (fl = f->event->format.fields; fl; fl = fl->next) {
			int used = fl == f->pfn || fl == f->page || fl == f->order || fl == f->gfp || fl == f->mt ||
				   fl == f->percpu_refill || fl == f->alloc_order || fl == f->fallback_order ||
				   fl == f->alloc_mt || fl == f->fallback_mt || fl == f->change_ownership;

			if (used && ((fl->size != 1 && fl->size != 2 && fl->size != 4 && fl->size != 8) ||
				     fl->offset < 0 || fl->offset > 65536)) {
				snprintf(msg, len, "format of %s:%s gives field '%s' %d bytes at offset %d (a number of 1, 2, 4 or 8 bytes within the record)",
					 ps_event_systems[t], ps_event_names[t], fl->name, fl->size, fl->offset);
				return -1;
			}
		}
	}
	return 0;
}

int ps_tep_kmem_copy(struct ps_tep_kmem *k, const struct ps_tep_kmem *from)
{
	int found = 0;

	*k = *from;
	k->gfp_used = 0;
	trace_seq_init(&k->seq);
	for (int t = 0; t < PS_EV_NR; t++)
		found += k->f[t].event != NULL;
	return found;
}

void ps_tep_kmem_free(struct ps_tep_kmem *k)
{
	trace_seq_destroy(&k->seq);
}


/* Raw kernel gfp -> PS_GFP_*, via the event's own print format. */
static uint32_t decode_gfp(struct ps_tep_kmem *k, struct tep_record *rec, uint64_t raw)
{
	struct tep_handle *tep;
	const char *p, *e;
	uint32_t bits;

	for (int i = 0; i < k->gfp_used; i++)
		if (k->gfp_raw[i] == raw)
			return k->gfp_ps[i];
	/* tep_formats.c hands the print format over lazily, to a second handle */
	tep = ps_tep_print_handle(k->tep, ps_tep_kmem_id(k, rec));
	if (!tep)
		return PS_GFP_UNKNOWN;
	trace_seq_reset(&k->seq);
	tep_print_event(tep, &k->seq, rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&k->seq);
	p = strstr(k->seq.buffer, "gfp_flags=");
	if (!p) {
		bits = PS_GFP_UNKNOWN;
	} else {
		p += strlen("gfp_flags=");
		e = p;
		while (*e && *e != ' ')
			e++;
		bits = ps_gfp_parse(p, e - p);
	}
	if (k->gfp_used < PS_TEP_GFP_CACHE) {
		k->gfp_raw[k->gfp_used] = raw;
		k->gfp_ps[k->gfp_used++] = bits;
	}
	return bits;
}

/* A field as a signed value when the format says it is signed (nid -1). */
static int read_s(const struct ps_tep_kmem *k, const struct tep_format_field *fl, const struct tep_record *rec,
		  long long *v)
{
	unsigned long long u;

	if (ps_tep_read(k, fl, rec, &u) < 0)
		return -1;
	if ((fl->flags & TEP_FIELD_IS_SIGNED) && fl->size < 8) {
		int sh = 64 - 8 * fl->size;

		*v = (long long)(u << sh) >> sh;
	} else {
		*v = (long long)u;
	}
	return 0;
}

/* @fl into *@out when it lies in lo..hi; -1 when absent, unreadable or outside. */
static int read_range(const struct ps_tep_kmem *k, const struct tep_format_field *fl, const struct tep_record *rec,
		      long long lo, long long hi, long long *out)
{
	long long v;

	if (!fl || read_s(k, fl, rec, &v) < 0 || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

#define X_U32 0xffffffffll

/* The pfn of a page-cache or LRU event, from pfn or the folio's (page's) address. */
static int x_pfn(struct ps_tep_kmem *k, const struct ps_tep_fields *f, struct tep_record *rec,
		 struct ps_event *ev, int *from_page)
{
	unsigned long long v;

	if (f->pfn) {
		if (ps_tep_read(k, f->pfn, rec, &v) < 0 || v == (unsigned long long)-1 ||
		    (f->pfn->size == 4 && v == 0xffffffffull))
			return -1;
		ev->pfn = v;
		return 0;
	}
	if (!f->page || ps_tep_read(k, f->page, rec, &v) < 0)
		return -1;
	ev->pfn = ps_pfn_from_page_addr(v);
	*from_page = 1;
	return ev->pfn == PS_PFN_NONE ? -1 : 0;
}

/*
 * The page-cache, LRU and reclaim events: the fields lib/event.h keeps,
 * each required but where a kernel version lacks it (then -1, or 0 for a
 * page-cache folio's order before large folios).
 */
static int fill_x(struct ps_tep_kmem *k, int type, struct tep_record *rec, struct ps_event *ev, int *from_page)
{
	const struct ps_tep_fields *f = &k->f[type];
	long long v;

	ev->pfn = PS_PFN_NONE;
	if ((type <= PS_EV_LRU_ACTIVATE || type == PS_EV_WRITE_FOLIO) && x_pfn(k, f, rec, ev, from_page) < 0)
		return -1;
	/* the order of the request (vmscan) or of the folio (filemap) */
	if (type == PS_EV_KSWAPD_WAKE || type == PS_EV_WAKEUP_KSWAPD || type == PS_EV_DIRECT_BEGIN ||
	    type == PS_EV_NODE_RECLAIM_BEGIN || type == PS_EV_LRU_ISOLATE ||
	    ((type == PS_EV_PC_ADD || type == PS_EV_PC_DEL) && f->order)) {
		if (read_range(k, f->order, rec, 0, PS_MAX_PAGE_ORDER, &v) < 0)
			return -1;
		ev->order = (uint8_t)v;
	}
	if ((type == PS_EV_WAKEUP_KSWAPD || type == PS_EV_DIRECT_BEGIN || type == PS_EV_NODE_RECLAIM_BEGIN) &&
	    f->gfp && ps_tep_read(k, f->gfp, rec, (unsigned long long *)&v) == 0)
		ev->gfp = decode_gfp(k, rec, (uint64_t)v);
	switch (type) {
	case PS_EV_PC_ADD:
	case PS_EV_PC_DEL: {
		unsigned long long u;

		if (!f->ino || !f->index || ps_tep_read(k, f->ino, rec, &u) < 0)
			return -1;
		ev->x.pc.ino = u;
		if (ps_tep_read(k, f->index, rec, &u) < 0)
			return -1;
		ev->x.pc.index = u;
		if (read_range(k, f->dev, rec, 0, X_U32, &v) < 0)
			return -1;
		ev->x.pc.dev = (uint32_t)v;
		break;
	}
	case PS_EV_LRU_ADD:
		if (read_range(k, f->lru, rec, 0, PS_NR_LRU - 1, &v) < 0)
			return -1;
		ev->x.lru.lru = (uint8_t)v;
		if (read_range(k, f->flags, rec, 0, 0xffff, &v) < 0)
			return -1;
		ev->x.lru.flags = (uint16_t)v;
		break;
	case PS_EV_LRU_ACTIVATE:
		break;
	case PS_EV_KSWAPD_WAKE:
	case PS_EV_KSWAPD_SLEEP:
	case PS_EV_WAKEUP_KSWAPD:
	case PS_EV_NODE_RECLAIM_BEGIN:
		if (read_range(k, f->nid, rec, -1, INT16_MAX, &v) < 0)
			return -1;
		ev->x.ks.nid = (int16_t)v;
		ev->x.ks.zid = -1;
		if (f->zid && read_range(k, f->zid, rec, -1, INT16_MAX, &v) < 0)
			return -1;
		if (f->zid)
			ev->x.ks.zid = (int16_t)v;
		break;
	case PS_EV_DIRECT_BEGIN:
		break;		/* order and gfp_flags only */
	case PS_EV_DIRECT_END:
	case PS_EV_NODE_RECLAIM_END:
		if (read_range(k, f->nr_reclaimed, rec, 0, X_U32, &v) < 0)
			return -1;
		ev->x.rc.nr_reclaimed = (uint32_t)v;
		ev->x.rc.nid = -1;
		break;
	case PS_EV_LRU_ISOLATE:
		if (read_range(k, f->nr_scanned, rec, 0, X_U32, &v) < 0)
			return -1;
		ev->x.rc.nr_scanned = (uint32_t)v;
		if (read_range(k, f->nr_taken, rec, 0, X_U32, &v) < 0)
			return -1;
		ev->x.rc.nr_taken = (uint32_t)v;
		if (f->nr_skipped && read_range(k, f->nr_skipped, rec, 0, X_U32, &v) < 0)
			return -1;
		ev->x.rc.nr_skipped = f->nr_skipped ? (uint32_t)v : 0;
		if (f->lru) {
			if (read_range(k, f->lru, rec, 0, PS_NR_LRU - 1, &v) < 0)
				return -1;
			ev->x.rc.lru = (uint8_t)v;
		} else {
			/* before 4.11: file or anon only */
			if (read_range(k, f->file, rec, 0, 1, &v) < 0)
				return -1;
			ev->x.rc.lru = v ? PS_LRU_INACTIVE_FILE : PS_LRU_INACTIVE_ANON;
		}
		ev->x.rc.nid = -1;
		break;
	case PS_EV_SHRINK_INACTIVE:
	case PS_EV_SHRINK_ACTIVE:
		if (type == PS_EV_SHRINK_INACTIVE) {
			if (read_range(k, f->nr_scanned, rec, 0, X_U32, &v) < 0)
				return -1;
			ev->x.rc.nr_scanned = (uint32_t)v;
			if (read_range(k, f->nr_reclaimed, rec, 0, X_U32, &v) < 0)
				return -1;
			ev->x.rc.nr_reclaimed = (uint32_t)v;
		} else {
			if (read_range(k, f->nr_taken, rec, 0, X_U32, &v) < 0)
				return -1;
			ev->x.rc.nr_taken = (uint32_t)v;
		}
		ev->x.rc.nid = -1;
		/* before 4.8 (per-zone LRUs) a zid, not a nid */
		if (f->nid && read_range(k, f->nid, rec, -1, INT16_MAX, &v) < 0)
			return -1;
		if (f->nid)
			ev->x.rc.nid = (int16_t)v;
		if (read_range(k, f->priority, rec, INT8_MIN, INT8_MAX, &v) < 0)
			return -1;
		ev->x.rc.priority = (int8_t)v;
		if (read_range(k, f->flags, rec, 0, 0xffff, &v) < 0)
			return -1;
		ev->x.rc.flags = (uint16_t)v;
		break;
	case PS_EV_WRITE_FOLIO:
		if (read_range(k, f->flags, rec, 0, 0xffff, &v) < 0)
			return -1;
		ev->x.rc.flags = (uint16_t)v;
		ev->x.rc.nid = -1;
		break;
	}
	return 0;
}

int ps_tep_kmem_fill(struct ps_tep_kmem *k, int type, struct tep_record *rec, int kver,
		     struct ps_event *ev, int *from_page)
{
	struct ps_tep_fields *f = &k->f[type];
	unsigned long long v;

	memset(ev, 0, sizeof(*ev));
	*from_page = 0;
	ev->type = type;
	ev->ts_ns = rec->ts;
	if (rec->ts > PS_EV_MAX_TS)
		return -1;	/* a damaged time stamp or OFFSET option (event.h) */
	ev->cpu = rec->cpu;
	if (k->common_pid && ps_tep_read(k, k->common_pid, rec, &v) == 0)
		ev->pid = (int)v;
	else
		ev->pid = tep_data_pid(k->tep, rec);
	ev->migratetype = ev->alloc_migratetype = ev->fallback_migratetype = PS_MT_UNKNOWN;
	if (!ps_event_is_kmem(type))
		return fill_x(k, type, rec, ev, from_page);
	if (f->pfn) {
		if (ps_tep_read(k, f->pfn, rec, &v) < 0)
			return -1;
		ev->pfn = v == (unsigned long long)-1 || (f->pfn->size == 4 && v == 0xffffffffull) ? PS_PFN_NONE : v;
	} else if (f->page) {
		if (ps_tep_read(k, f->page, rec, &v) < 0)
			return -1;
		if (v == 0) {
			ev->pfn = PS_PFN_NONE;
		} else {
			ev->pfn = ps_pfn_from_page_addr(v);
			if (ev->pfn == PS_PFN_NONE)
				return -1;
			*from_page = 1;
		}
	} else {
		return -1;
	}
	if (ev->pfn == PS_PFN_NONE && type != PS_EV_ALLOC)
		return -1;
	if (f->order) {
		if (ps_tep_read(k, f->order, rec, &v) < 0 || v > PS_MAX_PAGE_ORDER)
			return -1;
		ev->order = v;
	} else if (type != PS_EV_FREE_BATCHED && type != PS_EV_EXTFRAG) {
		return -1;
	}
	if (f->mt) {
		if (ps_tep_read(k, f->mt, rec, &v) < 0)
			return -1;
		ev->migratetype = ps_mt_from_kernel((int)v, kver);
	}
	switch (type) {
	case PS_EV_ALLOC:
		if (f->gfp && ps_tep_read(k, f->gfp, rec, &v) == 0)
			ev->gfp = decode_gfp(k, rec, v);
		break;
	case PS_EV_ZONE_LOCKED:
		if (f->percpu_refill && ps_tep_read(k, f->percpu_refill, rec, &v) == 0) {
			ev->percpu_refill = v != 0;
			ev->flags |= PS_EVF_PCPU_REFILL_KNOWN;
		} else {
			ev->percpu_refill = ev->order == 0;
		}
		break;
	case PS_EV_EXTFRAG:
		if (ps_tep_read(k, f->alloc_order, rec, &v) < 0 || v > PS_MAX_PAGE_ORDER)
			return -1;
		ev->alloc_order = v;
		ev->order = v;
		if (ps_tep_read(k, f->fallback_order, rec, &v) < 0 || v > PS_MAX_PAGE_ORDER)
			return -1;
		ev->fallback_order = v;
		if (ps_tep_read(k, f->alloc_mt, rec, &v) < 0)
			return -1;
		ev->alloc_migratetype = ps_mt_from_kernel((int)v, kver);
		if (ps_tep_read(k, f->fallback_mt, rec, &v) < 0)
			return -1;
		ev->fallback_migratetype = ps_mt_from_kernel((int)v, kver);
		if (ps_tep_read(k, f->change_ownership, rec, &v) < 0)
			return -1;
		ev->change_ownership = v != 0;
		break;
	}
	return 0;
}
