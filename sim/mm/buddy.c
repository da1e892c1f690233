// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * buddy.c - one zone's buddy allocator under a kernel profile.
 *
 * Notes (what this model simplifies relative to the kernel):
 *  - Orders 0..10 (NR_PAGE_ORDERS = 11) as on x86-64 in every version.
 *  - The zone's arrays start at its first pfn rounded down to 1024 and end
 *    rounded up, so that buddy alignment is on absolute pfns; pages outside
 *    the zone's span are permanently allocated.  Holes inside the span are
 *    not known (no memory map is recorded): they are allocated pages the
 *    trace never frees.
 *  - "Movable" pages for the 4.12+ claim threshold (free + alike) are pages
 *    allocated with the MOVABLE migratetype; the kernel counts PageLRU and
 *    __PageMovable pages, which the trace does not show.
 *  - CMA areas are not modelled (no CMA list is ever filled).
 *  - Compaction capture, isolation and page reporting, which change free
 *    lists without kmem events, are not modelled.
 *  - HIGHATOMIC reserves are kept as lists and pageblock types; reserving
 *    and unreserving follow the simulate-mode allocation path (replay.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/bytescan.h"
#include "sim/mm/buddy.h"
#include "sim/mm/watermark.h"

/* Fallback preference, identical by name from v4.0 to v6.18. */
static const int fallbacks[3][2] = {
	[PS_MT_UNMOVABLE] = { PS_MT_RECLAIMABLE, PS_MT_MOVABLE },
	[PS_MT_MOVABLE] = { PS_MT_RECLAIMABLE, PS_MT_UNMOVABLE },
	[PS_MT_RECLAIMABLE] = { PS_MT_UNMOVABLE, PS_MT_MOVABLE },
};

static inline int list_index(int mt)
{
	return mt == PS_MT_RESERVE ? PS_MT_HIGHATOMIC : (mt < 0 || mt >= PS_MIGRATE_TYPES ? PS_MT_MOVABLE : mt);
}

int ps_zone_create(struct ps_zone *z, const struct ps_zone_desc *d, int index,
		   const struct ps_profile *prof, int pageblock_order)
{
	uint64_t base, end, n;

	ps_zone_desc_blocks(d, &base, &end);
	n = end - base;
	memset(z, 0, sizeof(*z));
	if (n >= PS_NIL || pageblock_order < 1 || pageblock_order > PS_MAX_PAGE_ORDER)
		return -1;
	z->index = index;
	z->node = d->node;
	z->type = d->type;
	z->start_pfn = base;
	z->nr_pages = n;
	z->prof = prof;
	z->kver = prof ? prof->kver_min : 0;	/* the profile's first release until the model says which */
	z->pageblock_order = pageblock_order;
	z->nr_pageblocks = n >> pageblock_order;
	z->wmark_min = d->wmark_min;
	z->wmark_low = d->wmark_low;
	z->wmark_high = d->wmark_high;
	z->managed = d->managed;
	z->boost_factor = 15000;
	memcpy(z->lowmem_reserve, d->lowmem_reserve, sizeof(z->lowmem_reserve));
	z->next = malloc(n * sizeof(uint32_t));
	z->prev = malloc(n * sizeof(uint32_t));
	z->state = malloc(n);
	z->mt = calloc(n, 1);
	z->pb_mt = malloc(z->nr_pageblocks);
	if (!z->next || !z->prev || !z->state || !z->mt || !z->pb_mt) {
		ps_zone_destroy(z);
		return -1;
	}
	memset(z->state, PG_STATE(PG_ALLOC, 1, 0), n);
	z->span_start = d->start_pfn - base;
	z->span_end = d->start_pfn + d->spanned - base;
	/* pages outside the zone's span: allocated for good, marked with type 0xff */
	memset(z->mt, 0xff, z->span_start);
	memset(z->mt + z->span_end, 0xff, n - z->span_end);
	/* holes are not recorded: the present pages are taken to be the first ones */
	z->present_end = z->span_start + (d->present && d->present < d->spanned ? d->present : d->spanned);
	memset(z->pb_mt, PS_MT_MOVABLE, z->nr_pageblocks);
	for (int o = 0; o < PS_NR_PAGE_ORDERS; o++)
		for (int m = 0; m < PS_MIGRATE_TYPES; m++)
			z->free_area[o].free_list[m].head = z->free_area[o].free_list[m].tail = PS_NIL;
	return 0;
}

void ps_zone_destroy(struct ps_zone *z)
{
	free(z->next);
	free(z->prev);
	free(z->state);
	free(z->mt);
	free(z->pb_mt);
	free(z->lru);
	z->next = z->prev = NULL;
	z->state = z->mt = z->pb_mt = z->lru = NULL;
}

double ps_zone_bytes_per_page(const struct ps_zone *z)
{
	return 2 * sizeof(uint32_t) + 2 + (z->lru ? 1 : 0) + 1.0 / (1u << z->pageblock_order);
}

void ps_set_pageblock_mt(struct ps_zone *z, uint32_t idx, int mt)
{
	uint32_t pb = idx >> z->pageblock_order;
	int old = z->pb_mt[pb];

	if (mt == PS_MT_RESERVE)
		mt = PS_MT_HIGHATOMIC;
	if (old == mt)
		return;
	if (old == PS_MT_ISOLATE)
		z->nr_isolate_pageblock--;
	if (mt == PS_MT_ISOLATE)
		z->nr_isolate_pageblock++;
	z->pb_mt[pb] = mt;
}

int ps_zone_block_of(const struct ps_zone *z, uint32_t idx, uint32_t *head, int *order)
{
	for (int o = 0; o < PS_NR_PAGE_ORDERS; o++) {
		uint32_t h = idx & ~((1u << o) - 1);
		uint8_t s = z->state[h];

		if ((s & PG_HEAD) && PG_ORDER(s) >= o) {
			*head = h;
			*order = PG_ORDER(s);
			return PG_KIND(s);
		}
	}
	return -1;
}

void ps_zone_mark(struct ps_zone *z, uint32_t idx, int order, int kind, int mt)
{
	uint32_t n = 1u << order;

	/* most blocks are order 0: two stores, not two calls to memset */
	if (n <= 8) {
		for (uint32_t i = 1; i < n; i++) {
			z->state[idx + i] = PG_STATE(kind, 0, 0);
			z->mt[idx + i] = mt;
		}
		z->mt[idx] = mt;
	} else {
		memset(z->state + idx, PG_STATE(kind, 0, 0), n);
		memset(z->mt + idx, mt, n);
	}
	z->state[idx] = PG_STATE(kind, 1, order);
}

void ps_list_add(struct ps_zone *z, struct ps_list *l, uint32_t idx)
{
	z->prev[idx] = PS_NIL;
	z->next[idx] = l->head;
	if (l->head != PS_NIL)
		z->prev[l->head] = idx;
	else
		l->tail = idx;
	l->head = idx;
}

void ps_list_add_tail(struct ps_zone *z, struct ps_list *l, uint32_t idx)
{
	z->next[idx] = PS_NIL;
	z->prev[idx] = l->tail;
	if (l->tail != PS_NIL)
		z->next[l->tail] = idx;
	else
		l->head = idx;
	l->tail = idx;
}

void ps_list_del(struct ps_zone *z, struct ps_list *l, uint32_t idx)
{
	uint32_t n = z->next[idx], p = z->prev[idx];

	if (p != PS_NIL)
		z->next[p] = n;
	else
		l->head = n;
	if (n != PS_NIL)
		z->prev[n] = p;
	else
		l->tail = p;
}

void ps_add_free(struct ps_zone *z, uint32_t idx, int order, int mt, int tail)
{
	struct ps_free_area *a = &z->free_area[order];

	mt = list_index(mt);
	ps_zone_mark(z, idx, order, PG_FREE, mt);
	if (tail)
		ps_list_add_tail(z, &a->free_list[mt], idx);
	else
		ps_list_add(z, &a->free_list[mt], idx);
	a->nr_free++;
	a->nr_free_mt[mt]++;
	z->nr_free_pages += 1u << order;
}

/* Unlinks a free block head without touching page states. */
void ps_del_free(struct ps_zone *z, uint32_t idx)
{
	int order = PG_ORDER(z->state[idx]), mt = z->mt[idx];
	struct ps_free_area *a = &z->free_area[order];

	ps_list_del(z, &a->free_list[mt], idx);
	a->nr_free--;
	a->nr_free_mt[mt]--;
	z->nr_free_pages -= 1u << order;
}

static inline int mergeable(int mt)
{
	return mt < PS_MIGRATE_PCPTYPES;
}

static inline int is_free_head(const struct ps_zone *z, uint32_t idx, int order)
{
	return idx < z->nr_pages && z->state[idx] == PG_STATE(PG_FREE, 1, order);
}

void ps_free_one_page(struct ps_zone *z, uint32_t idx, int order, int mt, int fpi_tail)
{
	const struct ps_profile *p = z->prof;
	int pb = z->pageblock_order, tail = 0;
	uint32_t buddy = PS_NIL;

	mt = list_index(mt);
	while (order < PS_MAX_PAGE_ORDER) {
		buddy = idx ^ (1u << order);
		if (!is_free_head(z, buddy, order))
			break;
		if (order >= pb) {
			int bmt = ps_pageblock_mt(z, buddy), mymt = mt;

			if (p->merge == PS_MERGE_ISOLATE_CAP) {
				if (mymt == PS_MT_ISOLATE)
					break;
			} else if (p->merge == PS_MERGE_ISOLATE_CHECK) {
				if (z->nr_isolate_pageblock && bmt != mymt &&
				    (bmt == PS_MT_ISOLATE || mymt == PS_MT_ISOLATE))
					break;
			} else if (bmt != mymt) {
				if (!mergeable(bmt) || !mergeable(mymt))
					break;
				if (p->merge == PS_MERGE_RETYPE)
					for (uint32_t b = buddy; b < buddy + (1u << order); b += 1u << pb)
						ps_set_pageblock_mt(z, b, mymt);
			}
		}
		ps_del_free(z, buddy);
		z->state[buddy] = PG_STATE(PG_FREE, 0, 0);
		idx &= buddy;
		order++;
		buddy = PS_NIL;
	}
	if (fpi_tail && p->fpi_tail) {
		tail = 1;
	} else if (order < PS_MAX_PAGE_ORDER - 1) {
		/* buddy_merge_likely: the parent's buddy is free, so this block may merge soon */
		uint32_t b = idx ^ (1u << order), combined = idx & b;
		uint32_t higher = combined ^ (1u << (order + 1));

		if (b < z->nr_pages && is_free_head(z, higher, order + 1))
			tail = 1;
	}
	ps_add_free(z, idx, order, mt, tail);
}

void ps_free_block(struct ps_zone *z, uint32_t idx, int order)
{
	int pb = z->pageblock_order;

	if (z->prof->split_large_free && order > pb) {
		for (uint32_t b = idx; b < idx + (1u << order); b += 1u << pb)
			ps_free_one_page(z, b, pb, ps_pageblock_mt(z, b), 0);
		return;
	}
	ps_free_one_page(z, idx, order, ps_pageblock_mt(z, idx), 0);
}

/* expand(): the upper halves go back on the head of @mt's lists. */
static void expand(struct ps_zone *z, uint32_t idx, int low, int high, int mt)
{
	while (high > low) {
		high--;
		ps_add_free(z, idx + (1u << high), high, mt, 0);
	}
}

static uint32_t rmqueue_smallest(struct ps_zone *z, int order, int mt)
{
	for (int o = order; o < PS_NR_PAGE_ORDERS; o++) {
		uint32_t idx = z->free_area[o].free_list[mt].head;

		if (idx == PS_NIL)
			continue;
		ps_del_free(z, idx);
		expand(z, idx, order, o, mt);
		ps_zone_mark(z, idx, order, PG_ALLOC, mt);
		return idx;
	}
	return PS_NIL;
}

uint32_t ps_rmqueue_smallest(struct ps_zone *z, int order, int mt)
{
	return rmqueue_smallest(z, order, list_index(mt));
}

static int can_steal(const struct ps_zone *z, int o, int start)
{
	return o >= z->pageblock_order || o >= z->pageblock_order / 2 || start != PS_MT_MOVABLE;
}

/* First fallback type with a free block at order @o, or -1. */
static int find_fallback(const struct ps_zone *z, int o, int start)
{
	if (start >= PS_MIGRATE_PCPTYPES)
		return -1;
	for (int i = 0; i < 2; i++) {
		int fb = fallbacks[start][i];

		if (z->free_area[o].free_list[fb].head != PS_NIL)
			return fb;
	}
	return -1;
}

/* Block bounds of @idx's pageblock and whether it lies wholly in the zone's real span. */
static void block_range(const struct ps_zone *z, uint32_t idx, uint32_t *start, uint32_t *end)
{
	*start = idx & ~((1u << z->pageblock_order) - 1);
	*end = *start + (1u << z->pageblock_order);
}

static int count_block(const struct ps_zone *z, uint32_t idx, int *free, int *movable)
{
	uint32_t b, e, p;

	block_range(z, idx, &b, &e);
	*free = *movable = 0;
	for (p = b; p < e;) {
		uint8_t s = z->state[p];

		if (s & PG_HEAD && PG_KIND(s) == PG_FREE) {
			*free += 1 << PG_ORDER(s);
			p += 1u << PG_ORDER(s);
			continue;
		}
		if (PG_KIND(s) == PG_ALLOC && z->mt[p] == PS_MT_MOVABLE)
			(*movable)++;
		p++;
	}
	return 0;
}

/*
 * Zone boundaries as 4.0-6.9's move_freepages_block: a block whose last page
 * lies outside the zone moves nothing; one whose first page does is scanned
 * from @idx (the found page) on.  6.10+ callers refuse such blocks earlier.
 */
int ps_move_freepages_block(struct ps_zone *z, uint32_t idx, int mt, int *movable)
{
	uint32_t b, e, p;
	int moved = 0;

	block_range(z, idx, &b, &e);
	if (movable)
		*movable = 0;
	if (e > z->span_end)
		return 0;
	if (b < z->span_start)
		b = idx;
	for (p = b; p < e;) {
		uint8_t s = z->state[p];

		if ((s & PG_HEAD) && PG_KIND(s) == PG_FREE) {
			int o = PG_ORDER(s);

			ps_del_free(z, p);
			ps_add_free(z, p, o, mt, z->prof->move_tail);
			moved += 1 << o;
			p += 1u << o;
			continue;
		}
		if (movable && PG_KIND(s) == PG_ALLOC && z->mt[p] == PS_MT_MOVABLE)
			(*movable)++;
		p++;
	}
	return moved;
}

/* free + alike >= half a pageblock (4.12+), or free >= half (<= 4.11) */
static int claim_threshold_met(const struct ps_zone *z, uint32_t idx, int start, int free, int movable)
{
	int half = 1 << (z->pageblock_order - 1), alike = 0;

	if (z->prof->alike) {
		if (start == PS_MT_MOVABLE)
			alike = movable;
		else if (ps_pageblock_mt(z, idx) == PS_MT_MOVABLE)
			alike = (1 << z->pageblock_order) - free - movable;
	}
	return free + alike >= half;
}

static void set_range_mt(struct ps_zone *z, uint32_t idx, int order, int mt)
{
	uint32_t n = 1u << (order > z->pageblock_order ? order : z->pageblock_order);

	for (uint32_t b = idx; b < idx + n; b += 1u << z->pageblock_order)
		ps_set_pageblock_mt(z, b, mt);
}

void ps_zone_boost_watermark(struct ps_zone *z)
{
	int boosted;

	if (!z->prof->boost)
		return;
	z->watermark_boost = ps_wmark_boost(z->kver, (int)z->boost_factor, z->managed, z->wmark_high,
					    z->watermark_boost, z->pageblock_order, &boosted);
	z->boosts += boosted;
}

static void emit_extfrag(struct ps_zone *z, uint32_t idx, int order, int fallback_order, int start, int fb)
{
	struct ps_event ev;

	z->fallbacks++;
	if (fallback_order < z->pageblock_order)
		z->fallbacks_fragmenting++;
	if (!z->extfrag)
		return;
	memset(&ev, 0, sizeof(ev));
	ev.type = PS_EV_EXTFRAG;
	ev.ts_ns = z->now_ns;
	ev.cpu = z->now_cpu;
	ev.pid = -1;
	ev.pfn = z->start_pfn + idx;
	ev.order = order;
	ev.alloc_order = order;
	ev.fallback_order = fallback_order;
	ev.alloc_migratetype = start;
	ev.fallback_migratetype = fb;
	ev.migratetype = PS_MT_UNKNOWN;
	ev.change_ownership = ps_pageblock_mt(z, idx) == start;
	z->extfrag(z->extfrag_ctx, &ev);
}

static int straddles_zone(const struct ps_zone *z, uint32_t idx)
{
	uint32_t b, e;

	block_range(z, idx, &b, &e);
	/* pages outside the span are permanent PG_ALLOC order-0 heads with mt 0xff */
	return z->mt[b] == 0xff || z->mt[e - 1] == 0xff;
}

/* Largest-first search; returns the order found (and *fbp, *canp) or -1. */
static int search_fallback(struct ps_zone *z, int order, int start, int *fbp, int *canp)
{
	int min_order = order;

	if (z->nofragment && (order < z->pageblock_order || !z->prof->zone_locked_in_smallest))
		min_order = z->pageblock_order;
	for (int o = PS_MAX_PAGE_ORDER; o >= min_order; o--) {
		int fb = find_fallback(z, o, start), can;

		if (fb < 0)
			continue;
		can = can_steal(z, o, start);
		if (z->prof->movable_smallest && !can && start == PS_MT_MOVABLE && o > order) {
			for (int o2 = order; o2 < PS_NR_PAGE_ORDERS; o2++) {
				int fb2 = find_fallback(z, o2, start);

				if (fb2 >= 0) {
					o = o2;
					fb = fb2;
					can = can_steal(z, o2, start);
					break;
				}
			}
		}
		*fbp = fb;
		*canp = can;
		return o;
	}
	return -1;
}

/* 4.0-4.11: steal and return the found page itself. */
static uint32_t fallback_steal_return(struct ps_zone *z, int order, int start)
{
	int fb, can, o = search_fallback(z, order, start, &fb, &can);
	uint32_t idx;

	if (o < 0)
		return PS_NIL;
	idx = z->free_area[o].free_list[fb].head;
	if (z->prof->skip_highatomic_steal && ps_pageblock_mt(z, idx) == PS_MT_HIGHATOMIC) {
		/* stale list: no stealing */
	} else if (o >= z->pageblock_order) {
		set_range_mt(z, idx, o, start);
		z->claims++;
	} else if (can) {
		int moved = ps_move_freepages_block(z, idx, start, NULL);

		if (moved >= 1 << (z->pageblock_order - 1)) {
			ps_set_pageblock_mt(z, idx, start);
			z->claims++;
		}
	}
	ps_del_free(z, idx);
	expand(z, idx, order, o, start);
	ps_zone_mark(z, idx, order, PG_ALLOC, start);
	emit_extfrag(z, idx, order, o, start, fb);
	return idx;
}

/* 4.12-6.9: move (block or page) to start's lists; the caller retries smallest. */
static int fallback_move(struct ps_zone *z, int order, int start)
{
	int fb, can, o = search_fallback(z, order, start, &fb, &can);
	uint32_t idx;

	if (o < 0)
		return 0;
	idx = z->free_area[o].free_list[fb].head;
	if (z->prof->skip_highatomic_steal && ps_pageblock_mt(z, idx) == PS_MT_HIGHATOMIC)
		goto single;
	if (o >= z->pageblock_order) {
		set_range_mt(z, idx, o, start);
		z->claims++;
		goto single;
	}
	ps_zone_boost_watermark(z);
	if (!can)
		goto single;
	{
		int movable, free;
		uint32_t b, e;

		/* <= 6.9: a block whose last page lies outside the zone moves nothing */
		block_range(z, idx, &b, &e);
		if (e > z->span_end)
			goto single;
		free = ps_move_freepages_block(z, idx, start, &movable);
		if (!free)
			goto single;
		if (claim_threshold_met(z, idx, start, free, movable)) {
			ps_set_pageblock_mt(z, idx, start);
			z->claims++;
		}
	}
	goto out;
single:
	ps_del_free(z, idx);
	ps_add_free(z, idx, o, start, z->prof->move_tail);
out:
	emit_extfrag(z, idx, order, o, start, fb);
	return 1;
}

/* 6.10-6.14: claim and take the smallest, or take the found page keeping fb's lists. */
static uint32_t fallback_hygiene(struct ps_zone *z, int order, int start)
{
	int fb, can, o = search_fallback(z, order, start, &fb, &can);
	uint32_t idx, page;

	if (o < 0)
		return PS_NIL;
	idx = z->free_area[o].free_list[fb].head;
	if (ps_pageblock_mt(z, idx) == PS_MT_HIGHATOMIC)
		goto single;
	if (o >= z->pageblock_order) {
		ps_del_free(z, idx);
		set_range_mt(z, idx, o, start);
		z->claims++;
		expand(z, idx, order, o, start);
		ps_zone_mark(z, idx, order, PG_ALLOC, start);
		page = idx;
		goto out;
	}
	ps_zone_boost_watermark(z);
	if (!can || straddles_zone(z, idx))
		goto single;
	{
		int free, movable;

		count_block(z, idx, &free, &movable);
		if (claim_threshold_met(z, idx, start, free, movable)) {
			ps_move_freepages_block(z, idx, start, NULL);
			ps_set_pageblock_mt(z, idx, start);
			z->claims++;
			page = rmqueue_smallest(z, order, start);
			goto out;
		}
	}
single:
	ps_del_free(z, idx);
	expand(z, idx, order, o, fb);
	ps_zone_mark(z, idx, order, PG_ALLOC, start);
	page = idx;
out:
	if (page != PS_NIL)
		emit_extfrag(z, page, order, o, start, fb);
	return page;
}

/* 6.15+: __rmqueue_claim */
static uint32_t rmqueue_claim(struct ps_zone *z, int order, int start)
{
	int pb = z->pageblock_order;
	int min_order = (order < pb && z->nofragment) ? pb : order;

	for (int o = PS_MAX_PAGE_ORDER; o >= min_order; o--) {
		int fb, free, movable;
		uint32_t idx, page = PS_NIL;

		if (!can_steal(z, o, start))
			break;
		fb = find_fallback(z, o, start);
		if (fb < 0)
			continue;
		idx = z->free_area[o].free_list[fb].head;
		if (o >= pb) {
			ps_del_free(z, idx);
			set_range_mt(z, idx, o, start);
			z->claims++;
			expand(z, idx, order, o, start);
			ps_zone_mark(z, idx, order, PG_ALLOC, start);
			page = idx;
		} else {
			ps_zone_boost_watermark(z);
			if (straddles_zone(z, idx))
				continue;
			count_block(z, idx, &free, &movable);
			if (!claim_threshold_met(z, idx, start, free, movable))
				continue;
			ps_move_freepages_block(z, idx, start, NULL);
			ps_set_pageblock_mt(z, idx, start);
			z->claims++;
			page = rmqueue_smallest(z, order, start);
		}
		if (page != PS_NIL) {
			emit_extfrag(z, page, order, o, start, fb);
			return page;
		}
	}
	return PS_NIL;
}

/* 6.15+: __rmqueue_steal */
static uint32_t rmqueue_steal(struct ps_zone *z, int order, int start)
{
	for (int o = order; o < PS_NR_PAGE_ORDERS; o++) {
		int fb = find_fallback(z, o, start);
		uint32_t idx;

		if (fb < 0)
			continue;
		idx = z->free_area[o].free_list[fb].head;
		ps_del_free(z, idx);
		expand(z, idx, order, o, fb);
		ps_zone_mark(z, idx, order, PG_ALLOC, start);
		emit_extfrag(z, idx, order, o, start, fb);
		return idx;
	}
	return PS_NIL;
}

enum { MODE_NORMAL, MODE_CLAIM, MODE_STEAL };

uint32_t ps_rmqueue(struct ps_zone *z, int order, int mt, int *mode)
{
	const struct ps_profile *p = z->prof;
	int start = list_index(mt);
	uint32_t idx;

	if (start >= PS_MIGRATE_PCPTYPES)
		return rmqueue_smallest(z, order, start);
	switch (p->fallback) {
	case PS_FB_STEAL_RETURN:
		idx = rmqueue_smallest(z, order, start);
		if (idx == PS_NIL)
			idx = fallback_steal_return(z, order, start);
		if (idx == PS_NIL && p->old_mt)
			idx = rmqueue_smallest(z, order, PS_MT_HIGHATOMIC);	/* MIGRATE_RESERVE */
		return idx;
	case PS_FB_MOVE_RETRY:
		for (;;) {
			idx = rmqueue_smallest(z, order, start);
			if (idx != PS_NIL || !fallback_move(z, order, start))
				return idx;
		}
	case PS_FB_HYGIENE:
		idx = rmqueue_smallest(z, order, start);
		if (idx == PS_NIL)
			idx = fallback_hygiene(z, order, start);
		return idx;
	case PS_FB_CLAIM_STEAL: {
		int m = mode ? *mode : MODE_NORMAL;

		if (m == MODE_NORMAL) {
			idx = rmqueue_smallest(z, order, start);
			if (idx != PS_NIL)
				return idx;
			m = MODE_CLAIM;
		}
		if (m == MODE_CLAIM) {
			idx = rmqueue_claim(z, order, start);
			if (idx != PS_NIL) {
				if (mode)
					*mode = MODE_NORMAL;
				return idx;
			}
		}
		if (!z->nofragment) {
			idx = rmqueue_steal(z, order, start);
			if (idx != PS_NIL) {
				if (mode)
					*mode = MODE_STEAL;
				return idx;
			}
		}
		return PS_NIL;
	}
	}
	return PS_NIL;
}

int ps_zone_take_free_at(struct ps_zone *z, uint32_t idx, int order, uint32_t h, int k)
{
	int m = z->mt[h];

	ps_del_free(z, h);
	while (k > order) {
		k--;
		if (idx < h + (1u << k)) {
			ps_add_free(z, h + (1u << k), k, m, 0);
		} else {
			ps_add_free(z, h, k, m, 0);
			h += 1u << k;
		}
	}
	return m;
}

int ps_zone_take_free(struct ps_zone *z, uint32_t idx, int order)
{
	uint32_t h;
	int k;

	if (ps_zone_block_of(z, idx, &h, &k) != PG_FREE || k < order)
		return -1;
	ps_zone_mark(z, idx, order, PG_ALLOC, ps_zone_take_free_at(z, idx, order, h, k));
	return 0;
}

int ps_zone_check(const struct ps_zone *z, char *msg, int len)
{
	uint64_t heads[PS_NR_PAGE_ORDERS][PS_MIGRATE_TYPES], free_pages = 0;
	uint32_t p;

	memset(heads, 0, sizeof(heads));
	for (p = 0; p < z->nr_pages;) {
		uint8_t s = z->state[p];
		int o = PG_ORDER(s), k = PG_KIND(s);

		if (s == PG_STATE(PG_ALLOC, 1, 0)) {
			/* a run of allocated order-0 pages (most of a zone's holes) */
			p = ps_bytes_skip(z->state, p, z->nr_pages, s);
			continue;
		}
		if (!(s & PG_HEAD)) {
			snprintf(msg, len, "zone %d: page %u is not covered by a block head", z->index, p);
			return -1;
		}
		if (o >= PS_NR_PAGE_ORDERS || (p & ((1u << o) - 1)) || p + (1u << o) > z->nr_pages) {
			snprintf(msg, len, "zone %d: block %u has a bad order %d", z->index, p, o);
			return -1;
		}
		for (uint32_t i = 1; i < (1u << o); i++)
			if (z->state[p + i] != PG_STATE(k, 0, 0)) {
				snprintf(msg, len, "zone %d: page %u inside block %u (kind %d) has state %#x",
					 z->index, p + i, p, k, z->state[p + i]);
				return -1;
			}
		if (k == PG_FREE) {
			if (z->mt[p] >= PS_MIGRATE_TYPES) {
				snprintf(msg, len, "zone %d: free block %u on bad list %d", z->index, p, z->mt[p]);
				return -1;
			}
			heads[o][z->mt[p]]++;
			free_pages += 1u << o;
		}
		p += 1u << o;
	}
	for (int o = 0; o < PS_NR_PAGE_ORDERS; o++) {
		uint64_t total = 0;

		for (int m = 0; m < PS_MIGRATE_TYPES; m++) {
			const struct ps_list *l = &z->free_area[o].free_list[m];
			uint64_t n = 0;
			uint32_t prev = PS_NIL;

			for (uint32_t i = l->head; i != PS_NIL; i = z->next[i]) {
				if (z->state[i] != PG_STATE(PG_FREE, 1, o) || z->mt[i] != m || z->prev[i] != prev) {
					snprintf(msg, len, "zone %d: list order %d mt %d holds page %u with state %#x mt %d",
						 z->index, o, m, i, z->state[i], z->mt[i]);
					return -1;
				}
				prev = i;
				if (++n > z->nr_pages)
					break;
			}
			if (l->tail != prev || n != heads[o][m] || n != z->free_area[o].nr_free_mt[m]) {
				snprintf(msg, len, "zone %d: list order %d mt %d: %llu linked, %llu free heads, nr_free_mt %llu",
					 z->index, o, m, (unsigned long long)n, (unsigned long long)heads[o][m],
					 (unsigned long long)z->free_area[o].nr_free_mt[m]);
				return -1;
			}
			total += n;
		}
		if (total != z->free_area[o].nr_free) {
			snprintf(msg, len, "zone %d: order %d nr_free %llu, lists hold %llu", z->index, o,
				 (unsigned long long)z->free_area[o].nr_free, (unsigned long long)total);
			return -1;
		}
	}
	if (free_pages != z->nr_free_pages) {
		snprintf(msg, len, "zone %d: NR_FREE_PAGES %llu, free blocks hold %llu", z->index,
			 (unsigned long long)z->nr_free_pages, (unsigned long long)free_pages);
		return -1;
	}
	return 0;
}

/* Makes [idx, 2^order) one allocated block, splitting or joining allocated blocks. */
int ps_zone_reshape_alloc(struct ps_zone *z, uint32_t idx, int order)
{
	uint32_t h, end = idx + (1u << order);
	int k, mt = z->mt[idx];

	if (end > z->nr_pages)
		return -1;
	if (order == 0 && z->state[idx] == PG_STATE(PG_ALLOC, 1, 0))
		return 0;	/* already so (most frees) */
	for (uint32_t p = idx; p < end;) {
		if (ps_zone_block_of(z, p, &h, &k) != PG_ALLOC)
			return -1;
		if (h < idx || h + (1u << k) > end) {
			/* a larger allocated block (split_page): cut it into order-0 pages */
			for (uint32_t i = h; i < h + (1u << k); i++)
				z->state[i] = PG_STATE(PG_ALLOC, 1, 0);
			continue;
		}
		p = h + (1u << k);
	}
	ps_zone_mark(z, idx, order, PG_ALLOC, mt);
	return 0;
}
