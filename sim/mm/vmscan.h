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

/* wakeup_kswapd: @node's kswapd asked to balance for class zone @classzone at @order. */
void ps_wakeup_kswapd(struct ps_mm *mm, int node, int classzone, int order, uint64_t now);

/*
 * @node's kswapd's work due by @now (PS_MM_TIMER_KSWAPD): the start of a
 * run, the reclaim earned since the last step, the end of a nap.  Arms the
 * next step.
 */
void ps_kswapd_run(struct ps_mm *mm, int node, uint64_t now);

/*
 * node_reclaim for a request of CPU @cpu on zone @z (vm.zone_reclaim_mode
 * & 1); returns whether the zone then passes its fast-path watermark.
 */
int ps_node_reclaim(struct ps_mm *mm, struct ps_zone *z, int cpu, int order, int classzone, uint32_t gfp);

/* The node reclaim holding @node is done (PS_MM_TIMER_RECLAIM_LOCK). */
void ps_node_reclaim_unlock(struct ps_mm *mm, int node);

/*
 * Frees model block @idx of @z as reclaim on @node does: through @cpu's
 * per-CPU lists (-1: the node's first CPU, for kswapd).
 */
void ps_reclaim_block(struct ps_mm *mm, int node, struct ps_zone *z, uint32_t idx, int order, uint64_t now, int cpu);

#endif
