/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcp.h - per-CPU page lists (struct per_cpu_pages) of one zone for one CPU,
 * with the version's list layout, refill (rmqueue_bulk) and drain
 * (free_pcppages_bulk) rules.  Pages on a list are PG_PCP blocks of the
 * zone, linked through the zone's link arrays.
 */
#ifndef PS_PCP_H
#define PS_PCP_H

#include "sim/mm/buddy.h"

/* orders 0..3 x 3 migratetypes, then two lists for the pageblock order */
#define PS_NR_PCP_LISTS 14

struct ps_pcp {
	int count;			/* pages */
	int high, batch;
	int free_factor;		/* 5.14-6.6 */
	int scale_max;			/* CONFIG_PCP_BATCH_SCALE_MAX (a stable fix from 6.1.y on; see policy.h) */
	int alloc_factor;		/* 6.7+ */
	int high_min, high_max;		/* 6.7+ auto-tuning bounds (0: fixed high) */
	int free_count;			/* 6.7+ */
	int prev_free_high;		/* 6.7+: PCPF_PREV_FREE_HIGH_ORDER */
	struct ps_list lists[PS_NR_PCP_LISTS];
	uint64_t refills, drains, refill_pages, drain_pages;
};

/* The Kconfig default of CONFIG_PCP_BATCH_SCALE_MAX. */
#define PS_PCP_BATCH_SCALE_MAX 5

void ps_pcp_init(struct ps_pcp *pcp, int high, int batch);

/* MIN_PERCPU_PAGELIST_HIGH_FRACTION: the sysctl refuses 1 to 7 (0 is the default rule). */
#define PS_PCP_MIN_HIGH_FRACTION 8

/*
 * vm.percpu_pagelist_high_fraction (5.14+) for a zone of @managed pages and
 * low watermark @low_wmark on a node of @node_cpus of @nr_cpus CPUs, batch
 * @batch (zone_batchsize(), which the fraction leaves alone): high =
 * managed / fraction / node CPUs, at least 4 * batch; @fraction 0 is the
 * default rule (low watermark / node CPUs).  6.7+: a fraction fixes
 * high_min = high_max; 0 gives high_max from the minimum fraction (8).
 * Before 6.7 *@high_min = *@high_max = 0 (no auto-tuning).  -1 for a
 * kernel before 5.14 (vm.percpu_pagelist_fraction, another rule) or a
 * fraction of 1 to 7, which the kernel refuses.
 */
int ps_pcp_high_fraction(int kver, uint64_t managed, long low_wmark, long fraction, int node_cpus, int nr_cpus,
			 int batch, int *high, int *high_min, int *high_max);

/* 6.7+: auto-tune high between these bounds (as zoneinfo's high_min/high_max). */
void ps_pcp_set_adaptive(struct ps_pcp *pcp, int high_min, int high_max);

/*
 * How many blocks of @order a refill takes (nr_pcp_alloc); updates the
 * auto-tuning state (6.7+: high grows unless @below_high, ZONE_BELOW_HIGH).
 */
int ps_pcp_refill_blocks(struct ps_pcp *pcp, int order, int below_high);

/*
 * After a block of @order went on the lists (pcp->count already raised):
 * how many pages to drain now, 0 for none (nr_pcp_high / nr_pcp_free,
 * free_high); updates the version's state.  @reclaim_active: the zone's
 * ZONE_RECLAIM_ACTIVE (5.14+ caps high at 4 * batch while kswapd runs);
 * @below_high: its ZONE_BELOW_HIGH (6.7+ auto-tuning: high shrinks by a
 * free's worth and every free drains down to high_min).
 */
int ps_pcp_drain_pages(struct ps_pcp *pcp, const struct ps_profile *prof, int order, int reclaim_active,
		       int below_high);

/*
 * free_unref_page_commit after a drain: ZONE_BELOW_HIGH clears once the
 * zone is over WMARK_HIGH plus boost again.  @pending: drained pages not
 * yet in the buddy (follow mode's shadow drains ahead of the trace's).
 */
void ps_pcp_drained(struct ps_zone *z, long pending);

/* An allocation was served from the lists (decays free_factor / free_count). */
void ps_pcp_note_alloc(struct ps_pcp *pcp);

/* The list of a block of @order and @mt, and how many lists the version has. */
int ps_pcp_index(const struct ps_zone *z, int order, int mt);
int ps_pcp_nr_lists(const struct ps_profile *prof);

/*
 * 6.7+ decay_pcp_high, at each vmstat_update of the CPU: high falls by an
 * eighth, not below count - batch << scale_max nor high_min; returns the
 * pages then over high, to drain.  *@changed |= high is still above high_min.
 */
int ps_pcp_decay_high(struct ps_pcp *pcp, int *changed);

/* Whether @order may use the pcp lists under @prof. */
int ps_pcp_allowed(const struct ps_profile *prof, int order, int pageblock_order);

/*
 * rmqueue_pcplist: a block of @order for @mt from the CPU's lists,
 * refilling a batch from the buddy (one zone-lock hold) when the list is
 * empty.  Returns the zone index (marked PG_ALLOC) or PS_NIL.
 */
uint32_t ps_pcp_alloc(struct ps_zone *z, struct ps_pcp *pcp, int order, int mt);

/*
 * The CPU's list as a snapshot found it: @pages order-0 pages of @mt taken
 * from the buddy as a refill takes them (no fallback, no refill counted).
 * Returns the pages placed.
 */
int ps_pcp_seed(struct ps_zone *z, struct ps_pcp *pcp, int pages, int mt);

/*
 * The CPU's list as a trace found it: the free block [@idx, 2^@order) taken
 * out of the buddy onto the tail of @mt's list (a type past the pcp types
 * goes on Movable's, as free_unref_page puts it).  Returns the pages placed:
 * 0 when the block is not free or @order has no lists.
 */
int ps_pcp_seed_block(struct ps_zone *z, struct ps_pcp *pcp, const struct ps_profile *prof, uint32_t idx,
		      int order, int mt);

/* free_unref_page: puts the block on the CPU's list, draining a batch over high. */
void ps_pcp_free(struct ps_zone *z, struct ps_pcp *pcp, uint32_t idx, int order);

/* free_pcppages_bulk: returns up to @n pages to the buddy (one zone-lock hold). */
void ps_pcp_drain(struct ps_zone *z, struct ps_pcp *pcp, int n, int start_list);

#endif
