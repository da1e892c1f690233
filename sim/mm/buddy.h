/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * buddy.h - one zone's buddy allocator: free_area[order].free_list[mt],
 * nr_free, pageblock migratetypes, split (expand), merge (__free_one_page)
 * and migratetype fallback under a kernel profile (profile.h).
 *
 * Per page the model keeps 10 bytes: list links (two 32-bit indices,
 * relative to the zone start), a state byte (kind, head flag, order) and a
 * migratetype byte (the free list a free block is on; the pcp list or cached
 * type of a block on a per-CPU list; the requested type of an allocated
 * block).  Per pageblock one byte holds its migratetype bits.
 *
 * Every page is exactly one of: free in the buddy (PG_FREE), held on a
 * per-CPU list (PG_PCP), allocated (PG_ALLOC).  Blocks are aligned to their
 * order; only the head page of a block carries PG_HEAD and the order, the
 * other pages carry the kind alone.
 */
#ifndef PS_BUDDY_H
#define PS_BUDDY_H

#include <stdint.h>

#include "lib/event.h"
#include "lib/machine.h"
#include "sim/mm/profile.h"

struct ps_lock;

#define PS_NIL UINT32_MAX

enum ps_page_kind {
	PG_ALLOC = 0,
	PG_FREE = 1,
	PG_PCP = 2,
};

#define PG_KIND(s) ((s) >> 6)
#define PG_HEAD 0x20
#define PG_ORDER(s) ((s) & 0x1f)
#define PG_STATE(kind, head, order) ((uint8_t)(((kind) << 6) | ((head) ? PG_HEAD : 0) | (order)))

struct ps_list {
	uint32_t head, tail;
};

struct ps_free_area {
	struct ps_list free_list[PS_MIGRATE_TYPES];
	uint64_t nr_free;			/* blocks, all types */
	uint64_t nr_free_mt[PS_MIGRATE_TYPES];	/* blocks per list (pagetypeinfo) */
};

/* An extfrag event the model emits (the kernel's mm_page_alloc_extfrag fields). */
typedef void (*ps_extfrag_fn)(void *ctx, const struct ps_event *ev);

struct ps_zone {
	int index;			/* in the machine's zone array */
	int node, type;
	uint64_t start_pfn;
	uint32_t nr_pages;		/* spanned, rounded out to 1024-page alignment */
	uint32_t span_start, span_end;	/* the zone's real span within the arrays */
	uint32_t present_end;		/* span_start + present pages: where memory is assumed to be */
	/*
	 * List links, by page index: free_list and per-CPU list membership
	 * of a block's head page.  Follow mode, which keeps per-CPU blocks as
	 * a state without lists, stores the owning CPU in next[] of a PG_PCP
	 * block's head instead.
	 */
	uint32_t *next, *prev;
	uint8_t *state;
	uint8_t *mt;
	uint8_t *pb_mt;			/* per pageblock */
	uint8_t *lru;			/* per page: PS_LRUF_* of an allocated block's head (mm.h); NULL: none kept */
	uint32_t nr_pageblocks;
	struct ps_free_area free_area[PS_NR_PAGE_ORDERS];
	uint64_t nr_free_pages;		/* NR_FREE_PAGES: pages free in the buddy */
	long nr_free_cma;		/* NR_FREE_CMA_PAGES: 0, CMA areas are not modelled */
	long free_drift;		/* zone_page_state(NR_FREE_PAGES) - nr_free_pages: what the fast path's reads are off by */
	long free_global;		/* zone_page_state(NR_FREE_PAGES): the folded part (vmstat.c) */
	long free_accounted;		/* free_global plus the CPUs' vm_diff: nr_free_pages at the last ps_vmstat_mod_free() */
	long drift_perturb;		/* an ensemble member's extra drift */
	int stat_threshold, pressure_threshold;	/* calculate_normal_threshold, calculate_pressure_threshold */
	int drift_mark;			/* percpu_drift_mark set: the threshold drops while kswapd is awake */
	uint64_t nr_pcp_pages;		/* pages held on per-CPU lists: change it by ps_zone_pcp_add() */
	uint64_t *pcp_changed;		/* when set: pcp_changed_bit is ORed in at each change */
	uint64_t pcp_changed_bit;
	int nr_isolate_pageblock;
	long nr_reserved_highatomic;	/* pages in HIGHATOMIC pageblocks */
	/* watermarks (pages) and boost */
	long wmark_min, wmark_low, wmark_high, watermark_boost;
	long lowmem_reserve[PS_ZONE_NR];	/* by class zone type */
	long boost_factor;			/* vm.watermark_boost_factor */
	long nr_alloc_batch;			/* NR_ALLOC_BATCH: the fair zone policy's (<= 4.7) */
	uint64_t managed;
	/* model counters */
	uint64_t lock_acquisitions;
	uint64_t fallbacks, fallbacks_fragmenting, claims, boosts;
	const struct ps_profile *prof;
	int kver;			/* the release whose rules the model follows (PS_KVER) */
	int pageblock_order;
	int nofragment;			/* ALLOC_NOFRAGMENT for the call in progress */
	int reclaim_active;		/* ZONE_RECLAIM_ACTIVE: kswapd's balance_pgdat covers the zone */
	int below_high;			/* ZONE_BELOW_HIGH (6.7+): a walk found it under WMARK_HIGH */
	ps_extfrag_fn extfrag;
	void *extfrag_ctx;
	uint64_t now_ns;		/* time of the request in progress (for emitted events) */
	int now_cpu;
	struct ps_lock *lock;		/* zone-lock model (sim/lock.h) fed by pcp.c; NULL: none */
};

/* Adds @pages (negative: takes) to the pages held on the zone's per-CPU lists. */
static inline void ps_zone_pcp_add(struct ps_zone *z, int64_t pages)
{
	z->nr_pcp_pages += (uint64_t)pages;
	if (z->pcp_changed)
		*z->pcp_changed |= z->pcp_changed_bit;
}

/* Allocates the zone's arrays (all pages PG_ALLOC order 0, blocks MOVABLE); -1 on ENOMEM. */
int ps_zone_create(struct ps_zone *z, const struct ps_zone_desc *d, int index,
		   const struct ps_profile *prof, int pageblock_order);
void ps_zone_destroy(struct ps_zone *z);

/* Bytes of model state per page (for --stats). */
double ps_zone_bytes_per_page(const struct ps_zone *z);

static inline int ps_zone_has(const struct ps_zone *z, uint64_t pfn)
{
	return pfn >= z->start_pfn && pfn - z->start_pfn < z->nr_pages;
}

static inline int ps_pageblock_mt(const struct ps_zone *z, uint32_t idx)
{
	return z->pb_mt[idx >> z->pageblock_order];
}

void ps_set_pageblock_mt(struct ps_zone *z, uint32_t idx, int mt);

/*
 * The block containing page @idx: its head index, kind and order.
 * Returns the kind, or -1 if the state is inconsistent.
 */
int ps_zone_block_of(const struct ps_zone *z, uint32_t idx, uint32_t *head, int *order);

/* Marks [idx, idx + 2^order) as one block of @kind with @mt (no list work). */
void ps_zone_mark(struct ps_zone *z, uint32_t idx, int order, int kind, int mt);

/* List helpers over the zone's link arrays. */
void ps_list_add(struct ps_zone *z, struct ps_list *l, uint32_t idx);
void ps_list_add_tail(struct ps_zone *z, struct ps_list *l, uint32_t idx);
void ps_list_del(struct ps_zone *z, struct ps_list *l, uint32_t idx);

/* Free-list membership of a free block head (updates nr_free counts). */
void ps_add_free(struct ps_zone *z, uint32_t idx, int order, int mt, int tail);
void ps_del_free(struct ps_zone *z, uint32_t idx);

/*
 * __free_one_page: frees block [idx, 2^order) of type @mt into the buddy,
 * merging with free buddies under the profile's rules.  @fpi_tail forces
 * tail placement (FPI_TO_TAIL).
 */
void ps_free_one_page(struct ps_zone *z, uint32_t idx, int order, int mt, int fpi_tail);

/* Frees a block with the type the kernel would use (its pageblock's). */
void ps_free_block(struct ps_zone *z, uint32_t idx, int order);

/*
 * __rmqueue: takes a block of @order for migratetype @mt (smallest,
 * fallback per profile, RESERVE/CMA as the profile has them).  @mode is
 * the 6.15+ rmqueue_bulk mode carried across one batch (NULL: single).
 * Returns the head index (state left as PG_FREE-removed: the caller marks
 * it) or PS_NIL.
 */
uint32_t ps_rmqueue(struct ps_zone *z, int order, int mt, int *mode);

/* __rmqueue_smallest alone: a block of @order from @mt's own lists, no fallback (PS_NIL: none). */
uint32_t ps_rmqueue_smallest(struct ps_zone *z, int order, int mt);

/*
 * Removes [idx, 2^order) from the free block that contains it (follow mode:
 * the kernel took this block), splitting the rest back onto the free lists
 * of the containing block's list type.  Returns 0, or -1 if idx is not in a
 * free block of at least @order.
 */
int ps_zone_take_free(struct ps_zone *z, uint32_t idx, int order);

/*
 * ps_zone_take_free() of the free block [@h, 2^@k) that ps_zone_block_of()
 * found holding @idx (@k >= @order), leaving [idx, 2^order)'s pages for the
 * caller to mark.  Returns the free block's list type.
 */
int ps_zone_take_free_at(struct ps_zone *z, uint32_t idx, int order, uint32_t h, int k);

/*
 * Makes [idx, 2^order) one allocated block, cutting larger allocated blocks
 * it lies in into order-0 pages (split_page) and joining the allocated
 * blocks inside it.  -1 if a page of the range is not allocated.
 */
int ps_zone_reshape_alloc(struct ps_zone *z, uint32_t idx, int order);

/*
 * boost_watermark (5.0+), which steal_suitable_fallback() calls for a
 * fallback below pageblock order: watermark.c's rule, counted in
 * z->boosts when it applied.
 */
void ps_zone_boost_watermark(struct ps_zone *z);

/* Moves the free blocks of @idx's pageblock to @mt's lists; returns pages moved. */
int ps_move_freepages_block(struct ps_zone *z, uint32_t idx, int mt, int *movable);

/* Checks every invariant (lists vs states vs counts); returns 0 or -1 with a message. */
int ps_zone_check(const struct ps_zone *z, char *msg, int len);

#endif
