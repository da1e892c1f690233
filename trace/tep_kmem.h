/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tep_kmem.h - kmem page events from raw ring-buffer records through
 * libtraceevent, shared by the trace.dat reader (tdat.c) and live recording
 * (tracefs_rec.c).  Fields are looked up by name once per event type and
 * read per record with tep_read_number_field(); nothing assumes an offset.
 *
 * gfp_flags are the kernel's raw bits, whose values changed between
 * releases; each distinct raw value is rendered once through the event's
 * own print format and its symbolic names decoded (gfp.h), then cached.
 * The rendered `fragmenting=` is never used.
 */
#ifndef PS_TEP_KMEM_H
#define PS_TEP_KMEM_H

#include <stdint.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "lib/event.h"

#define PS_TEP_GFP_CACHE 256

struct ps_tep_fields {
	int id;			/* tep event id, -1 when the event is absent */
	struct tep_event *event;
	struct tep_format_field *pfn, *page, *order, *gfp, *mt, *percpu_refill;
	struct tep_format_field *alloc_order, *fallback_order, *alloc_mt, *fallback_mt, *change_ownership;
	/* the page-cache, LRU and reclaim events (ps_event_is_kmem() false) */
	struct tep_format_field *ino, *index, *dev, *lru, *file, *flags, *nid, *zid;
	struct tep_format_field *nr_scanned, *nr_reclaimed, *nr_taken, *nr_skipped, *priority;
};

struct ps_tep_kmem {
	struct tep_handle *tep;
	struct ps_tep_fields f[PS_EV_NR];
	struct tep_format_field *common_type, *common_pid;	/* of the first kmem event found */
	int swap;			/* the trace's byte order is not the host's */
	uint64_t gfp_raw[PS_TEP_GFP_CACHE];
	uint32_t gfp_ps[PS_TEP_GFP_CACHE];
	int gfp_used;
	struct trace_seq seq;
};

/*
 * Looks up the events of lib/event.h (by ps_event_systems[] and name;
 * vmscan:mm_vmscan_writepage, the name before folios, for
 * mm_vmscan_write_folio) and their fields in @tep; returns how many exist.
 */
int ps_tep_kmem_init(struct ps_tep_kmem *k, struct tep_handle *tep);
/*
 * Whether the formats of the events found give the fields pagesim reads,
 * as numbers it can read: -1 with @msg naming the event and the field.
 */
int ps_tep_kmem_check(const struct ps_tep_kmem *k, char *msg, size_t len);
/* The same from @from, looked up once already (no gfp cached); returns how many exist. */
int ps_tep_kmem_copy(struct ps_tep_kmem *k, const struct ps_tep_kmem *from);
void ps_tep_kmem_free(struct ps_tep_kmem *k);

/*
 * A number field of @rec: the field's offset and size come from the trace's
 * own format (looked up by name); same result as tep_read_number_field(),
 * without the call per field when the trace has the host's byte order.
 */
static inline int ps_tep_read(const struct ps_tep_kmem *k, const struct tep_format_field *fl,
			      const struct tep_record *rec, unsigned long long *v)
{
	const unsigned char *p;

	if (!fl)
		return -1;
	if (k->swap)
		return tep_read_number_field((struct tep_format_field *)fl, rec->data, v);
	p = (const unsigned char *)rec->data + fl->offset;
	switch (fl->size) {
	case 1:
		*v = p[0];
		return 0;
	case 2: {
		uint16_t x;

		memcpy(&x, p, 2);
		*v = x;
		return 0;
	}
	case 4: {
		uint32_t x;

		memcpy(&x, p, 4);
		*v = x;
		return 0;
	}
	case 8: {
		uint64_t x;

		memcpy(&x, p, 8);
		*v = x;
		return 0;
	}
	}
	return -1;
}

/* tep_data_type() of @rec. */
static inline int ps_tep_kmem_id(const struct ps_tep_kmem *k, struct tep_record *rec)
{
	unsigned long long v;

	if (!k->common_type || ps_tep_read(k, k->common_type, rec, &v) < 0)
		return tep_data_type(k->tep, rec);
	return (int)v;
}

/* PS_EV_* of a tep event id, or -1 (an event the formats lack has id -1). */
static inline int ps_tep_kmem_type(const struct ps_tep_kmem *k, int id)
{
	if (id < 0)
		return -1;
	for (int t = 0; t < PS_EV_NR; t++)
		if (k->f[t].id == id)
			return t;
	return -1;
}

/*
 * Fills @ev (all but comm, which is NULL) from @rec of event @type, reading
 * migratetypes in @kver's numbering.  *from_page is set when the pfn was
 * derived from a struct page address.  Returns 0, or -1 when a field is
 * missing or out of range (a value that does not fit its ps_event field).
 * The page-cache, LRU and reclaim events are read by the names of the
 * fields each kernel gives them: mm_vmscan_lru_isolate's lru (4.11+;
 * before, only whether it was a file list: taken as that type's inactive
 * list) with or without isolate_mode (gone in 6.12), a folio or page
 * pointer beside the pfn, kswapd's zid where the event has one.
 */
int ps_tep_kmem_fill(struct ps_tep_kmem *k, int type, struct tep_record *rec, int kver,
		     struct ps_event *ev, int *from_page);

#endif
