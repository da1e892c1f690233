/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pgs_x.h - the page-cache, LRU and reclaim events in pagesim files
 * (format version 2; docs/pagesim-format.md): their control byte's type is
 * PS_PGS_C_XTYPE, their PS_EV_* type is in the xtype column and the fields
 * of their member of struct ps_event's x union in the column of its family.
 * Shared by the writer and both decoders of the reader.
 */
#ifndef PS_PGS_X_H
#define PS_PGS_X_H

#include <stdint.h>
#include <string.h>

#include "lib/event.h"
#include "trace/pgs.h"

/* Which member of ev->x an event type carries, and so its column. */
enum ps_pgs_xfamily {
	PS_PGS_XF_PC,		/* x.pc: ino, index, dev */
	PS_PGS_XF_LRU,		/* x.lru: lru, flags */
	PS_PGS_XF_KS,		/* x.ks: nid, zid */
	PS_PGS_XF_RC,		/* x.rc: the counts, nid, priority, lru, flags */
};

static inline int ps_pgs_xfamily(int type)
{
	switch (type) {
	case PS_EV_PC_ADD:
	case PS_EV_PC_DEL:
		return PS_PGS_XF_PC;
	case PS_EV_LRU_ADD:
	case PS_EV_LRU_ACTIVATE:
		return PS_PGS_XF_LRU;
	case PS_EV_KSWAPD_WAKE:
	case PS_EV_KSWAPD_SLEEP:
	case PS_EV_WAKEUP_KSWAPD:
	case PS_EV_DIRECT_BEGIN:
	case PS_EV_NODE_RECLAIM_BEGIN:
		return PS_PGS_XF_KS;
	default:
		return PS_PGS_XF_RC;
	}
}

/* The events whose gfp_flags the gfp column always carries (others: only when extended). */
static inline int ps_pgs_x_has_gfp(int type)
{
	return type == PS_EV_WAKEUP_KSWAPD || type == PS_EV_DIRECT_BEGIN || type == PS_EV_NODE_RECLAIM_BEGIN;
}

/* Predictors of the pc column, restarted with each frame. */
struct ps_pgs_xpred {
	uint64_t ino, index;
};

/* worst-case bytes per event in the xtype, pc, lru, ks and rc columns */
#define PS_PGS_XMAX_TYPE 1
#define PS_PGS_XMAX_PC (10 + 10 + 5)
#define PS_PGS_XMAX_LRU (1 + 3)
#define PS_PGS_XMAX_KS (3 + 3)
#define PS_PGS_XMAX_RC (4 * 5 + 3 + 1 + 1 + 3)

static inline uint8_t *ps_pgs_xput_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)v | 0x80;
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/*
 * Appends the x fields of @ev (type >= PS_EV_KMEM_NR) to the columns
 * @col with lengths @len (indexed by enum ps_pgs_col).
 */
static inline void ps_pgs_put_x(uint8_t *const *col, size_t *len, const struct ps_event *ev,
				struct ps_pgs_xpred *pred)
{
	uint8_t *p;

	col[PS_PGS_COL_XTYPE][len[PS_PGS_COL_XTYPE]++] = ev->type;
	switch (ps_pgs_xfamily(ev->type)) {
	case PS_PGS_XF_PC:
		p = col[PS_PGS_COL_XPC] + len[PS_PGS_COL_XPC];
		/* files are read in runs: the same inode, the next index */
		p = ps_pgs_xput_varint(p, ps_zigzag((int64_t)(ev->x.pc.ino - pred->ino)));
		p = ps_pgs_xput_varint(p, ps_zigzag((int64_t)(ev->x.pc.index - pred->index)));
		p = ps_pgs_xput_varint(p, ev->x.pc.dev);
		pred->ino = ev->x.pc.ino;
		pred->index = ev->x.pc.index;
		len[PS_PGS_COL_XPC] = p - col[PS_PGS_COL_XPC];
		break;
	case PS_PGS_XF_LRU:
		p = col[PS_PGS_COL_XLRU] + len[PS_PGS_COL_XLRU];
		*p++ = ev->x.lru.lru;
		p = ps_pgs_xput_varint(p, ev->x.lru.flags);
		len[PS_PGS_COL_XLRU] = p - col[PS_PGS_COL_XLRU];
		break;
	case PS_PGS_XF_KS:
		p = col[PS_PGS_COL_XKS] + len[PS_PGS_COL_XKS];
		p = ps_pgs_xput_varint(p, ps_zigzag(ev->x.ks.nid));
		p = ps_pgs_xput_varint(p, ps_zigzag(ev->x.ks.zid));
		len[PS_PGS_COL_XKS] = p - col[PS_PGS_COL_XKS];
		break;
	default:
		p = col[PS_PGS_COL_XRC] + len[PS_PGS_COL_XRC];
		p = ps_pgs_xput_varint(p, ev->x.rc.nr_scanned);
		p = ps_pgs_xput_varint(p, ev->x.rc.nr_reclaimed);
		p = ps_pgs_xput_varint(p, ev->x.rc.nr_taken);
		p = ps_pgs_xput_varint(p, ev->x.rc.nr_skipped);
		p = ps_pgs_xput_varint(p, ps_zigzag(ev->x.rc.nid));
		*p++ = (uint8_t)ev->x.rc.priority;
		*p++ = ev->x.rc.lru;
		p = ps_pgs_xput_varint(p, ev->x.rc.flags);
		len[PS_PGS_COL_XRC] = p - col[PS_PGS_COL_XRC];
		break;
	}
}

/* A varint within [*p, end) no larger than @max; 0, or -1 (runs past the end, too long, too large). */
static inline int ps_pgs_xget(const uint8_t **p, const uint8_t *end, uint64_t max, uint64_t *v)
{
	const uint8_t *q = *p;
	uint64_t x = 0;

	for (int shift = 0; q < end && shift < 64; shift += 7) {
		uint8_t b = *q++;

		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			if (x > max)
				return -1;
			*v = x;
			*p = q;
			return 0;
		}
	}
	return -1;
}

/* A zigzag varint that fits int16_t. */
static inline int ps_pgs_xget16(const uint8_t **p, const uint8_t *end, int16_t *v)
{
	uint64_t u;

	if (ps_pgs_xget(p, end, 0xffff, &u) < 0)
		return -1;
	*v = (int16_t)ps_unzigzag(u);
	return 0;
}

/*
 * Reads the x fields of an event with control type PS_PGS_C_XTYPE into @e
 * (its type and x; ev->x zeroed first), advancing the cursors @cur within
 * @end.  Returns 0, or -1 on a damaged record: a cursor past its column, a
 * type that is not one of these events, a value beyond its field.
 */
static inline int ps_pgs_get_x(const uint8_t **cur, const uint8_t *const *end, struct ps_event *e,
			       struct ps_pgs_xpred *pred)
{
	const uint8_t *p;
	uint64_t a, b, c;
	int type;

	if (cur[PS_PGS_COL_XTYPE] >= end[PS_PGS_COL_XTYPE])
		return -1;
	type = *cur[PS_PGS_COL_XTYPE]++;
	if (type < PS_EV_KMEM_NR || type >= PS_EV_NR)
		return -1;
	e->type = type;
	memset(&e->x, 0, sizeof(e->x));
	switch (ps_pgs_xfamily(type)) {
	case PS_PGS_XF_PC:
		p = cur[PS_PGS_COL_XPC];
		if (ps_pgs_xget(&p, end[PS_PGS_COL_XPC], UINT64_MAX, &a) < 0 ||
		    ps_pgs_xget(&p, end[PS_PGS_COL_XPC], UINT64_MAX, &b) < 0 ||
		    ps_pgs_xget(&p, end[PS_PGS_COL_XPC], UINT32_MAX, &c) < 0)
			return -1;
		pred->ino += (uint64_t)ps_unzigzag(a);
		pred->index += (uint64_t)ps_unzigzag(b);
		e->x.pc.ino = pred->ino;
		e->x.pc.index = pred->index;
		e->x.pc.dev = (uint32_t)c;
		cur[PS_PGS_COL_XPC] = p;
		break;
	case PS_PGS_XF_LRU:
		p = cur[PS_PGS_COL_XLRU];
		if (p >= end[PS_PGS_COL_XLRU] || *p >= PS_NR_LRU)
			return -1;
		e->x.lru.lru = *p++;
		if (ps_pgs_xget(&p, end[PS_PGS_COL_XLRU], 0xffff, &a) < 0)
			return -1;
		e->x.lru.flags = (uint16_t)a;
		cur[PS_PGS_COL_XLRU] = p;
		break;
	case PS_PGS_XF_KS:
		p = cur[PS_PGS_COL_XKS];
		if (ps_pgs_xget16(&p, end[PS_PGS_COL_XKS], &e->x.ks.nid) < 0 ||
		    ps_pgs_xget16(&p, end[PS_PGS_COL_XKS], &e->x.ks.zid) < 0)
			return -1;
		cur[PS_PGS_COL_XKS] = p;
		break;
	default:
		p = cur[PS_PGS_COL_XRC];
		if (ps_pgs_xget(&p, end[PS_PGS_COL_XRC], UINT32_MAX, &a) < 0)
			return -1;
		e->x.rc.nr_scanned = (uint32_t)a;
		if (ps_pgs_xget(&p, end[PS_PGS_COL_XRC], UINT32_MAX, &a) < 0)
			return -1;
		e->x.rc.nr_reclaimed = (uint32_t)a;
		if (ps_pgs_xget(&p, end[PS_PGS_COL_XRC], UINT32_MAX, &a) < 0)
			return -1;
		e->x.rc.nr_taken = (uint32_t)a;
		if (ps_pgs_xget(&p, end[PS_PGS_COL_XRC], UINT32_MAX, &a) < 0)
			return -1;
		e->x.rc.nr_skipped = (uint32_t)a;
		if (ps_pgs_xget16(&p, end[PS_PGS_COL_XRC], &e->x.rc.nid) < 0)
			return -1;
		if (end[PS_PGS_COL_XRC] - p < 2 || p[1] >= PS_NR_LRU)
			return -1;
		e->x.rc.priority = (int8_t)p[0];
		e->x.rc.lru = p[1];
		p += 2;
		if (ps_pgs_xget(&p, end[PS_PGS_COL_XRC], 0xffff, &a) < 0)
			return -1;
		e->x.rc.flags = (uint16_t)a;
		cur[PS_PGS_COL_XRC] = p;
		break;
	}
	return 0;
}

#endif
