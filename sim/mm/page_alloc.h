/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * page_alloc.h - the allocation and free paths of mm/page_alloc.c over the
 * model: the zone walk of __alloc_pages (fast path, slow path, last
 * resort) with its watermark checks, ALLOC_NOFRAGMENT and the fair zone
 * policy; rmqueue from the per-CPU lists or the buddy; the highatomic
 * reserves; freeing through the per-CPU lists or straight to the buddy.
 */
#ifndef PS_PAGE_ALLOC_H
#define PS_PAGE_ALLOC_H

#include <stdint.h>

#include "sim/mm/mm.h"

/* gfp_zone(): the highest zone type a request with PS_GFP_* bits @gfp may use. */
int ps_mm_gfp_zone(const struct ps_mm *mm, uint32_t gfp);

/*
 * The watermark check of the zone walk (watermark.c's zone_watermark_fast
 * with the pass's mark): pass 0 the fast path (WMARK_LOW plus boost), 1 the
 * slow path (WMARK_MIN plus boost), 2 the last resort (none).  @flags: the
 * pass's allocation flags (ps_gfp_to_alloc_flags).
 */
int ps_zone_ok(const struct ps_mm *mm, const struct ps_zone *z, int order, int pass, int classzone, unsigned int flags);

/*
 * ZONE_BELOW_HIGH (6.7+): every walk tests a zone not so marked against
 * WMARK_HIGH plus boost before its own mark (@order, @classzone, @flags as
 * for ps_zone_ok) and marks it when that fails; the per-CPU lists shrink
 * while it is set (ps_pcp_drain_pages).
 */
void ps_zone_walk_high(const struct ps_mm *mm, struct ps_zone *z, int order, int classzone, unsigned int flags);

/*
 * __alloc_pages for a request of CPU @cpu preferring @node (@thisnode:
 * __GFP_THISNODE) for zones up to type @high: a block of @order for
 * migratetype @mt.  Returns its zone with *@idx set (the block is taken,
 * not yet marked allocated), or NULL.  Wakes kswapd, runs node reclaim and
 * counts as the kernel's paths do; mm->now_ns is the request's time.
 */
struct ps_zone *ps_alloc_pages(struct ps_mm *mm, int cpu, int node, int thisnode, int high, int order, int mt,
			       uint32_t gfp, uint32_t *idx);

/*
 * Frees allocated block @idx of 2^@order pages of @z as CPU @cpu at @now:
 * onto the CPU's per-CPU list when the order may use one
 * (free_unref_page), else straight to the buddy under the zone lock.
 * @traced: the trace's own free (it touches the CPU's vmstat work and is a
 * lock section of its own); reclaim's frees are not.
 */
void ps_free_pages(struct ps_mm *mm, struct ps_zone *z, uint32_t idx, int order, int cpu, uint64_t now, int traced);

/* drain_zone_pages: @n pages of @cpu's per-CPU lists of @z back to the buddy at @now. */
void ps_drain_zone_pages(struct ps_mm *mm, struct ps_zone *z, int cpu, int n, uint64_t now);

#endif
