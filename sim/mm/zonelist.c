// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zonelist.c - per-node zonelists and gfp_zone(), per kernel release.
 *
 * Notes (what this simplifies):
 *  - Lists are built once, for the online nodes of the machine in
 *    ascending id order, as at boot; memory hotplug rebuilds (and 6.1+'s
 *    builds for possible-but-offline nodes, which also add node_load) are
 *    not modelled.
 *  - "Has memory" (N_MEMORY) is "has a populated zone"; "has CPUs" comes
 *    from the machine's CPU-to-node map.  A missing distance is taken as
 *    10 (same node) or 20, the kernel's values without a SLIT.
 *  - 32-bit kernels (zone order by default 3.16-4.13) are not modelled.
 */
#include <string.h>

#include "lib/event.h"
#include "sim/mm/zonelist.h"

#define KV_NEWEST PS_KVER(255, 255, 255)
#define LOAD_SCALE 4096 /* > any node_load: MAX_NUMNODES(*nr_online) in the kernel */

static int kv(int kver)
{
	return kver == PS_KVER_UNKNOWN ? KV_NEWEST : kver;
}

static const struct ps_zone_desc *find_zone(const struct ps_machine *m, int node, int type)
{
	int i = ps_machine_zone_index(m, node, type);

	return i < 0 ? NULL : &m->zones[i];
}

/* populated_zone(): present pages (the managed count if the source gave none) */
static int populated(const struct ps_machine *m, int node, int type)
{
	const struct ps_zone_desc *z = find_zone(m, node, type);

	return z && (z->present ? z->present : z->managed) > 0;
}

/*
 * Whether build_zonerefs_node() lists the zone: populated_zone(), or
 * managed_zone() in 4.16-5.17 (6aa303defb74; back to populated with
 * "fix build_zonerefs_node()", which stable trees took too: 5.15.85 has
 * it, 4.14.177 has the managed form) [boundaries from memory, U4].
 */
static int listed(const struct ps_machine *m, int node, int type, int v)
{
	const struct ps_zone_desc *z;

	if (v >= PS_KVER(4, 16, 0) && v < PS_KVER(5, 18, 0)) {
		z = find_zone(m, node, type);
		return z && z->managed > 0;
	}
	return populated(m, node, type);
}

static int is_online(const struct ps_machine *m, int node)
{
	if (node < 0 || node >= PS_MAX_NODES || node >= m->nr_nodes)
		return 0;
	return !m->node_online || ((m->node_online >> node) & 1);
}

static int has_memory(const struct ps_machine *m, int node)
{
	for (int t = 0; t < PS_ZONE_NR; t++)
		if (populated(m, node, t))
			return 1;
	return 0;
}

static int distance(const struct ps_machine *m, int a, int b)
{
	int d = m->distance[a][b];

	return d > 0 ? d : a == b ? 10 : 20;
}

int ps_zonelist_default_order(const struct ps_machine *m, int kver)
{
	uint64_t low = 0, total = 0, average;
	int nr_mem = 0;

	if (kv(kver) >= PS_KVER(3, 16, 0))
		return PS_ZONELIST_ORDER_NODE;
	/* <= 3.15: default_zonelist_order() */
	for (int n = 0; n < m->nr_nodes; n++) {
		if (!is_online(m, n))
			continue;
		for (int t = 0; t < PS_ZONE_NR; t++) {
			const struct ps_zone_desc *z = find_zone(m, n, t);

			if (populated(m, n, t)) {
				if (t < PS_ZONE_NORMAL)
					low += z->managed;
				total += z->managed;
			} else if (t == PS_ZONE_NORMAL) {
				return PS_ZONELIST_ORDER_NODE;
			}
		}
		nr_mem += has_memory(m, n);
	}
	if (!low || low > total / 2)
		return PS_ZONELIST_ORDER_NODE;
	average = total / (uint64_t)(nr_mem + 1);
	for (int n = 0; n < m->nr_nodes; n++) {
		uint64_t nlow = 0, ntotal = 0;

		if (!is_online(m, n))
			continue;
		for (int t = 0; t < PS_ZONE_NR; t++) {
			const struct ps_zone_desc *z = find_zone(m, n, t);

			if (!populated(m, n, t))
				continue;
			if (t < PS_ZONE_NORMAL)
				nlow += z->present;
			ntotal += z->present;
		}
		if (nlow && ntotal > average && nlow > ntotal * 70 / 100)
			return PS_ZONELIST_ORDER_NODE;
	}
	return PS_ZONELIST_ORDER_ZONE;
}

/* One node's zones, highest type first. */
static int node_zonerefs(const struct ps_machine *m, int node, int v, struct ps_zoneref *out)
{
	int nr = 0;

	for (int t = PS_ZONE_NR - 1; t >= 0; t--)
		if (listed(m, node, t, v))
			out[nr++] =
				(struct ps_zoneref){ .node = (int16_t)node, .type = (int16_t)t };
	return nr;
}

static void fill_fallback(struct ps_zonelists *zl, const struct ps_machine *m, int local)
{
	struct ps_zonelist *l = &zl->fallback[local];
	int v = kv(zl->kver), n = zl->nr_node_order[local];

	l->nr = 0;
	if (zl->order == PS_ZONELIST_ORDER_ZONE) {
		/* build_zonelists_in_zone_order(): type by type, nodes in node order */
		for (int t = PS_ZONE_NR - 1; t >= 0; t--)
			for (int j = 0; j < n; j++)
				if (populated(m, zl->node_order[local][j], t))
					l->ref[l->nr++] = (struct ps_zoneref){
						.node = zl->node_order[local][j], .type = (int16_t)t
					};
		return;
	}
	for (int j = 0; j < n; j++)
		l->nr += node_zonerefs(m, zl->node_order[local][j], v, l->ref + l->nr);
}

/* find_next_best_node() */
static int next_best_node(const struct ps_machine *m, int v, int local, uint8_t *used,
			  const int *node_load)
{
	long best_val = 0;
	int best = -1;

	if (!used[local] && (v < PS_KVER(6, 7, 0) || has_memory(m, local))) {
		/* 6.7+ skips a memoryless local node (absent 6.5, present 6.8) */
		used[local] = 1;
		return local;
	}
	for (int n = 0; n < m->nr_nodes; n++) {
		long val;

		if (!is_online(m, n) || used[n] || !has_memory(m, n))
			continue;
		val = distance(m, local, n) + (n < local) + (ps_machine_node_cpus(m, n) > 0);
		val = val * LOAD_SCALE + node_load[n];
		if (best < 0 || val < best_val) {
			best_val = val;
			best = n;
		}
	}
	if (best >= 0)
		used[best] = 1;
	return best;
}

int ps_zonelists_build(struct ps_zonelists *zl, const struct ps_machine *m, int kver, int order)
{
	int v = kv(kver), nr_online = 0, node_load[PS_MAX_NODES];

	memset(zl, 0, sizeof(*zl));
	memset(node_load, 0, sizeof(node_load));
	zl->kver = kver;
	zl->nr_nodes = m->nr_nodes < PS_MAX_NODES ? m->nr_nodes : PS_MAX_NODES;
	if (order == PS_ZONELIST_ORDER_DEFAULT)
		order = ps_zonelist_default_order(m, kver);
	if (order == PS_ZONELIST_ORDER_ZONE && v >= PS_KVER(4, 14, 0))
		order = PS_ZONELIST_ORDER_NODE;
	zl->order = order;
	for (int n = 0; n < zl->nr_nodes; n++)
		nr_online += is_online(m, n);
	if (!nr_online)
		return -1;
	for (int local = 0; local < zl->nr_nodes; local++) {
		uint8_t used[PS_MAX_NODES] = { 0 };
		int load = nr_online, prev = local, node;

		if (!is_online(m, local))
			continue;
		while ((node = next_best_node(m, v, local, used, node_load)) >= 0) {
			/* spread first fallbacks: penalise the first node of each distance group */
			if (distance(m, local, node) != distance(m, local, prev)) {
				/* 5.17 [absent 5.15.85, present 6.1.20]: add, not set */
				if (v >= PS_KVER(5, 17, 0))
					node_load[node] += 1;
				else
					node_load[node] = load;
			}
			prev = node;
			load--;
			zl->node_order[local][zl->nr_node_order[local]++] = (int16_t)node;
		}
		fill_fallback(zl, m, local);
		zl->thisnode[local].nr = node_zonerefs(m, local, v, zl->thisnode[local].ref);
	}
	return 0;
}

int ps_zonelists_set_node_order(struct ps_zonelists *zl, const struct ps_machine *m, int node,
				const int *nodes, int n)
{
	uint8_t seen[PS_MAX_NODES] = { 0 };

	if (node < 0 || node >= zl->nr_nodes || n < 0 || n > PS_MAX_NODES)
		return -1;
	for (int i = 0; i < n; i++) {
		if (nodes[i] < 0 || nodes[i] >= zl->nr_nodes || seen[nodes[i]])
			return -1;
		seen[nodes[i]] = 1;
	}
	for (int i = 0; i < n; i++)
		zl->node_order[node][i] = (int16_t)nodes[i];
	zl->nr_node_order[node] = n;
	fill_fallback(zl, m, node);
	return 0;
}

int ps_gfp_zone(uint32_t gfp, unsigned int zone_types)
{
	uint32_t bits = gfp & (PS_GFP_DMA | PS_GFP_HIGHMEM | PS_GFP_DMA32 | PS_GFP_MOVABLE);
	int z;

	/* GFP_ZONE_TABLE; OPT_ZONE_* fall back to Normal when the kernel lacks the zone */
	if (bits == 0 || bits == PS_GFP_MOVABLE)
		return PS_ZONE_NORMAL;
	if (bits == (PS_GFP_MOVABLE | PS_GFP_HIGHMEM))
		return PS_ZONE_MOVABLE;
	bits &= ~PS_GFP_MOVABLE;
	if (bits == PS_GFP_DMA)
		z = PS_ZONE_DMA;
	else if (bits == PS_GFP_DMA32)
		z = PS_ZONE_DMA32;
	else if (bits == PS_GFP_HIGHMEM)
		z = PS_ZONE_HIGHMEM;
	else
		return PS_ZONE_DMA; /* two zone modifiers: GFP_ZONE_BAD, zone 0 without CONFIG_DEBUG_VM */
	return (zone_types >> z) & 1 ? z : PS_ZONE_NORMAL;
}

int ps_node_zonelist(const struct ps_zonelists *zl, int node, uint32_t gfp,
		     const struct ps_zoneref **out)
{
	if (node < 0 || node >= zl->nr_nodes) {
		*out = NULL;
		return 0;
	}
	if (gfp & PS_GFP_THISNODE) {
		*out = zl->thisnode[node].ref;
		return zl->thisnode[node].nr;
	}
	*out = zl->fallback[node].ref;
	return zl->fallback[node].nr;
}

int ps_zonelist_first(const struct ps_zoneref *refs, int n, int highest)
{
	for (int i = 0; i < n; i++)
		if (refs[i].type <= highest)
			return i;
	return -1;
}
