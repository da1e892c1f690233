/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zonelist.h - per-node zonelists as a given kernel release builds them
 * (build_all_zonelists): ZONELIST_FALLBACK over all nodes, in node order
 * (find_next_best_node with its node_load round robin) or, up to 4.13,
 * optionally in zone order; ZONELIST_NOFALLBACK (__GFP_THISNODE) over the
 * node itself; and gfp_zone(), the highest zone a request may use.
 *
 * Rules: docs/kernel-rules.md, Zonelists.  Zones are named by (node, enum
 * ps_zone_type); pagesim's type order is the kernel's zone index order.
 */
#ifndef PS_ZONELIST_H
#define PS_ZONELIST_H

#include <stdint.h>

#include "lib/kver.h"
#include "lib/machine.h"

#define PS_MAX_ZONEREFS (PS_MAX_NODES * PS_ZONE_NR)

struct ps_zoneref {
	int16_t node;
	int16_t type; /* enum ps_zone_type */
};

struct ps_zonelist {
	int nr;
	struct ps_zoneref ref[PS_MAX_ZONEREFS];
};

struct ps_zonelist_local {
	int nr;
	struct ps_zoneref ref[PS_ZONE_NR];
};

enum ps_zonelist_order {
	PS_ZONELIST_ORDER_DEFAULT, /* what the kernel picks (vm.numa_zonelist_order "default") */
	PS_ZONELIST_ORDER_NODE,	   /* [node: zones high->low], next node, ... */
	PS_ZONELIST_ORDER_ZONE,	   /* <= 4.13: zone types high->low, each over the nodes */
};

/* All nodes' lists; about 100 KiB: allocate it. */
struct ps_zonelists {
	int kver;
	int order;    /* NODE or ZONE: what was built */
	int nr_nodes; /* node ids below this may have lists */
	/* the node order, as 6.x prints it at boot ("Fallback order for Node N: ...") */
	int nr_node_order[PS_MAX_NODES];
	int16_t node_order[PS_MAX_NODES][PS_MAX_NODES];
	struct ps_zonelist fallback[PS_MAX_NODES];	 /* ZONELIST_FALLBACK */
	struct ps_zonelist_local thisnode[PS_MAX_NODES]; /* ZONELIST_NOFALLBACK */
};

/*
 * The order the kernel uses when none is set: node order from 3.16 on
 * (64-bit; pagesim models x86-64) and always from 4.14; before 3.16 the
 * boot heuristic (node order if a node has no Normal zone, or DMA+DMA32
 * hold no or more than half the memory, or a larger-than-average node is
 * more than 70% DMA/DMA32; else zone order).
 */
int ps_zonelist_default_order(const struct ps_machine *m, int kver);

/*
 * Builds every online node's lists for @m as release @kver does, nodes in
 * ascending id order (node_load carries over from one node's list to the
 * next, as in the kernel).  Node order rule (find_next_best_node): the node
 * itself first (from 6.7 only if it has memory); then, among nodes with
 * memory not yet listed, the least (distance + 1 if its id is lower + 1 if
 * it has CPUs) * K + node_load, ties to the lowest id.  When the chosen
 * node's distance differs from the previous pick's, node_load of it is set
 * to nr_online_nodes minus the picks so far (<= 5.16) or raised by one
 * (5.17+).  Zones in a node: highest type first, skipping unpopulated ones
 * (4.16-5.17: those without managed pages).  @order: enum
 * ps_zonelist_order; ZONE is honoured only up to 4.13.  Returns 0, or -1
 * if @m has no node.
 */
int ps_zonelists_build(struct ps_zonelists *zl, const struct ps_machine *m, int kver, int order);

/*
 * Replaces @node's fallback list with one in the explicit node order
 * @nodes[0..n-1] (the boot log's "Fallback order for Node N"); zones per
 * node as ps_zonelists_build() does.  -1 if a node is out of range or
 * repeated.
 */
int ps_zonelists_set_node_order(struct ps_zonelists *zl, const struct ps_machine *m, int node,
				const int *nodes, int n);

/*
 * gfp_zone(): the highest zone type (enum ps_zone_type) a request with
 * PS_GFP_* bits @gfp may use, on a kernel with the zone types @zone_types
 * (bit per PS_ZONE_*, e.g. PS_ZONE_TYPES_X86_64 of sim/watermark.h): no
 * zone bit -> Normal; __GFP_DMA -> DMA; __GFP_DMA32 -> DMA32; __GFP_HIGHMEM
 * -> HighMem; __GFP_MOVABLE alone -> Normal; __GFP_MOVABLE|__GFP_HIGHMEM
 * -> Movable; MOVABLE|DMA -> DMA; MOVABLE|DMA32 -> DMA32; a type the
 * kernel lacks becomes Normal.  Combinations the kernel rejects
 * (GFP_ZONE_BAD: a BUG with CONFIG_DEBUG_VM, which distribution kernels do
 * not set) read the table's empty entry, zone 0: DMA.
 */
int ps_gfp_zone(uint32_t gfp, unsigned int zone_types);

/*
 * node_zonelist(): @node's ZONELIST_NOFALLBACK entries when @gfp has
 * __GFP_THISNODE, else its ZONELIST_FALLBACK: *@out points at the
 * entries (owned by @zl); returns their number (0 for a node without lists).
 */
int ps_node_zonelist(const struct ps_zonelists *zl, int node, uint32_t gfp,
		     const struct ps_zoneref **out);

/*
 * Index in @refs[0..n-1] of the first zone of type <= @highest (the
 * preferred zoneref, without nodemask), or -1.
 */
int ps_zonelist_first(const struct ps_zoneref *refs, int n, int highest);

/*
 * The class zone whose lowmem_reserve entry the watermark test uses:
 * the preferred zone's type up to 5.6, gfp_zone() (@highest) from 5.7.
 */
static inline int ps_classzone(int kver, int highest, int preferred_type)
{
	return kver != PS_KVER_UNKNOWN && kver < PS_KVER(5, 7, 0) ? preferred_type : highest;
}

#endif
