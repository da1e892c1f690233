/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vmscan.h - reclaim over the model (mm/vmscan.c): kswapd per node as a
 * timed activity (woken, balance_pgdat's passes, boosts, naps, failures)
 * and node reclaim (vm.zone_reclaim_mode).
 */
#ifndef PS_VMSCAN_H
#define PS_VMSCAN_H

#include <stdint.h>

#include "sim/mm/mm.h"
#include "sim/mm/zonelist.h"

/*
 * The LRU lists (simulate mode; a no-op where the zone keeps no LRU state):
 * lru_add_fn puts allocated block @idx of @z at the head of list @lru
 * (enum ps_lru) of its node, with PS_PAGEMAP_* @flags (mapped,
 * swapbacked); folio_activate moves an inactive block to its active list;
 * ps_lru_del takes a block off (it is freed); ps_lru_list is the list it is
 * on, -1 none.
 */
void ps_lru_add(struct ps_mm *mm, struct ps_zone *z, uint32_t idx, int lru, unsigned int flags);
void ps_lru_activate(struct ps_mm *mm, struct ps_zone *z, uint32_t idx);
void ps_lru_del(struct ps_mm *mm, struct ps_zone *z, uint32_t idx);
int ps_lru_list(const struct ps_zone *z, uint32_t idx);

/*
 * A page that was on the LRU before the trace (simulate mode's stand-ins):
 * as ps_lru_add, but under the multi-generational LRU an inactive one goes
 * to the oldest generation and an active one to the older of the two that
 * count as active.
 */
void ps_lru_add_start(struct ps_mm *mm, struct ps_zone *z, uint32_t idx, int lru, unsigned int flags);

/* Pages on list @l (enum ps_lru) of @node; under the multi-generational LRU its two youngest generations count as active. */
uint64_t ps_lru_pages(const struct ps_mm *mm, int node, int l);

/*
 * wakeup_kswapd: @node's kswapd asked to balance for class zone @classzone at
 * @order; @boosted: by rmqueue for a boosted watermark (ZONE_BOOSTED_WATERMARK).
 */
void ps_wakeup_kswapd(struct ps_mm *mm, int node, int classzone, int order, int boosted, uint64_t now);

/*
 * @node's kswapd's work due by @now (PS_MM_TIMER_KSWAPD): the start of a
 * run, the reclaim earned since the last step, the end of a nap.  Arms the
 * next step.
 */
void ps_kswapd_run(struct ps_mm *mm, int node, uint64_t now);

/* A page of kswapd's reclaim costs this much credit: ns x (pages per ms). */
#define PS_KSWAPD_PAGE_CREDIT 1000000ull

/*
 * The reclaim @k has earned by @now at @rate pages per ms: with @slice_ns 0
 * the time since its last step's worth; with @slice_ns, once the slice in
 * progress has ended and less than a page is left, that slice's worth at
 * once, at its end, and the next slice starts (kswapd.slice_us: a CPU
 * shared with other tasks runs kswapd a slice at a time, and the tasks'
 * requests on it wait meanwhile); a run's first step starts its first
 * slice.  ps_kswapd_earn_at: when it has a page to reclaim next.
 */
void ps_kswapd_earn(struct ps_kswapd *k, uint64_t now, uint64_t rate, uint64_t slice_ns);
uint64_t ps_kswapd_earn_at(const struct ps_kswapd *k, uint64_t rate, uint64_t slice_ns);

/*
 * balance_pgdat's boosts: at a run's start it notes the boost of each of
 * @node's zones up to @classzone; at its end (the out: label) it takes
 * those back, whatever was boosted meanwhile.  Follow mode calls them at
 * the recorded kswapd's runs.
 */
void ps_kswapd_boost_start(struct ps_mm *mm, int node, int classzone);
void ps_kswapd_boost_end(struct ps_mm *mm, int n);

/*
 * node_reclaim for a request of CPU @cpu on zone @z (vm.zone_reclaim_mode
 * & 1); returns whether the zone then passes its fast-path watermark.
 */
int ps_node_reclaim(struct ps_mm *mm, struct ps_zone *z, int cpu, int order, int classzone, uint32_t gfp);

/*
 * try_to_free_pages for a request of CPU @cpu whose zonelist @refs (@nr
 * entries, zones up to @high) had nothing: reclaims up to SWAP_CLUSTER_MAX
 * pages; returns how many.
 */
long ps_try_to_free_pages(struct ps_mm *mm, const struct ps_zoneref *refs, int nr, int high, int cpu);

/* The node reclaim holding @node is done (PS_MM_TIMER_RECLAIM_LOCK). */
void ps_node_reclaim_unlock(struct ps_mm *mm, int node);

/*
 * Frees model block @idx of @z as reclaim on @node does: through @cpu's
 * per-CPU lists (-1: kswapd's, kswapd.cpu).
 */
void ps_reclaim_block(struct ps_mm *mm, int node, struct ps_zone *z, uint32_t idx, int order, uint64_t now, int cpu);

#endif
