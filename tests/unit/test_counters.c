// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_counters.c - the counters' pfn -> zone table (sim/counters.c) gives
 * the zone ps_machine_zone_of() gives, pfn by pfn, on layouts that make the
 * table fall back: zone boundaries inside a chunk, nested spans (a node's
 * DMA32 covering another node's range), gaps between zones, and a layout
 * so large that one chunk holds several zones.
 */
#include <stdlib.h>
#include <string.h>

#include "../../sim/counters.h"
#include "check.h"

static void add_zone(struct ps_machine *m, int node, int type, uint64_t start, uint64_t spanned)
{
	struct ps_zone_desc *d = &m->zones[m->nr_zones++];

	d->node = node;
	d->type = type;
	d->start_pfn = start;
	d->spanned = d->present = spanned;
	if (node + 1 > m->nr_nodes)
		m->nr_nodes = node + 1;
	m->node_online |= 1ull << node;
}

/*
 * Counts one order-0 allocation at every @step-th pfn of [0, @end) with the
 * counters, and the same by ps_machine_zone_of(): pgalloc per zone type,
 * per-node hits and the events outside every zone must agree.
 */
static void compare(const struct ps_machine *m, uint64_t end, uint64_t step)
{
	static struct ps_counters c;
	uint64_t pgalloc[PS_ZONE_NR] = { 0 }, node_hit[PS_MAX_NODES] = { 0 }, outside = 0;
	struct ps_event ev;
	int bad = 0;

	ps_counters_init(&c, m, 9);
	memset(&ev, 0, sizeof(ev));
	ev.type = PS_EV_ALLOC;
	for (uint64_t pfn = 0; pfn < end; pfn += step) {
		int zi = ps_machine_zone_of(m, pfn);

		ev.pfn = pfn;
		ps_counters_event(&c, &ev);
		if (zi < 0) {
			outside++;
		} else {
			pgalloc[m->zones[zi].type]++;
			node_hit[m->zones[zi].node] += m->zones[zi].node == 0;
		}
	}
	for (int t = 0; t < PS_ZONE_NR; t++)
		bad += c.pgalloc[t] != pgalloc[t];
	for (int n = 0; n < PS_MAX_NODES; n++)
		bad += c.node[n].numa_hit != node_hit[n];
	CHECK_EQ(bad, 0);
	CHECK_EQ(c.pfn_outside_zones, outside);
	CHECK(outside < end / step);	/* the layout is not empty */
}

int main(void)
{
	struct ps_machine *m = malloc(sizeof(*m));

	/* two nodes, boundaries off any power of two, a gap, node 0's DMA32 nesting node 1 */
	ps_machine_init(m);
	m->nr_cpus = 1;
	m->cpu_node[0] = 0;
	add_zone(m, 0, PS_ZONE_DMA, 1, 4095);
	add_zone(m, 0, PS_ZONE_DMA32, 4096, 1048576 - 4096);
	add_zone(m, 1, PS_ZONE_NORMAL, 300000, 123457);
	add_zone(m, 0, PS_ZONE_NORMAL, 1048576 + 777, 5000000);
	add_zone(m, 1, PS_ZONE_MOVABLE, 7000000, 999);
	ps_machine_finish(m);
	compare(m, 8000000, 1);

	/* the stand-in x86-64 layout: zones up to 2^40, several zones in one chunk */
	ps_machine_assume_x86_64(m, 1);
	compare(m, 3ull << 20, 1);
	compare(m, 1ull << 41, (1ull << 41) / 1000003);

	/* no zone at all */
	ps_machine_init(m);
	m->nr_nodes = 1;
	m->node_online = 1;
	{
		static struct ps_counters c;
		struct ps_event ev = { .type = PS_EV_FREE, .pfn = 12345 };

		ps_counters_init(&c, m, 9);
		ps_counters_event(&c, &ev);
		CHECK_EQ(c.pfn_outside_zones, 1);
		CHECK_EQ(c.pgfree, 0);
	}
	free(m);
	CHECK_DONE();
}
