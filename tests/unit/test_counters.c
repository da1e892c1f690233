// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_counters.c - the counters' pfn -> zone table (sim/counters.c) gives
 * the zone ps_machine_zone_of() gives, pfn by pfn, on layouts that make the
 * table fall back: zone boundaries inside a chunk, nested spans (a node's
 * DMA32 covering another node's range), gaps between zones, and a layout
 * so large that one chunk holds several zones.  And ps_counters_batch()
 * counts as ps_counters_event() one event at a time does, on random events
 * of every kind, unusual ones included.
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

/* Every counter of @c and @d agree: all of struct ps_counters, and what ps_counters_to_kv() writes. */
static int same_counters(struct ps_counters *c, struct ps_counters *d)
{
	struct ps_kv a, b;
	int bad = memcmp(c, d, sizeof(*c)) != 0;

	ps_kv_init(&a);
	ps_kv_init(&b);
	CHECK_EQ(ps_counters_to_kv(c, &a), 0);
	CHECK_EQ(ps_counters_to_kv(d, &b), 0);
	CHECK_EQ(a.nr, b.nr);
	for (int i = 0; i < a.nr && i < b.nr; i++)
		bad += strcmp(a.items[i].name, b.items[i].name) || a.items[i].value != b.items[i].value;
	ps_kv_free(&a);
	ps_kv_free(&b);
	return bad == 0;
}

/*
 * ps_counters_batch() against ps_counters_event(): random events on @m,
 * in batches of random size; every tenth or so unusual (a failed
 * allocation, an order out of range, extfrag, a pfn outside every zone or
 * beyond the zone table, a CPU without a node).
 */
static void compare_batch(const struct ps_machine *m, uint64_t end)
{
	static struct ps_counters c, d;
	static struct ps_event evs[5000];
	uint64_t seed = 88172645463325252ull;
	int nonzero = 0;

	ps_counters_init(&c, m, 9);
	ps_counters_init(&d, m, 9);
	for (int round = 0; round < 40; round++) {
		int n = 1 + (int)(seed % 5000);

		for (int i = 0; i < n; i++) {
			struct ps_event *e = &evs[i];
			uint64_t r;

			seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
			r = seed;
			memset(e, 0, sizeof(*e));
			e->type = r % PS_EV_NR;
			e->order = (r >> 3) % 4;
			e->pfn = (r >> 8) % end;
			e->cpu = (r >> 48) % (m->nr_cpus + 1);
			e->gfp = (r >> 40) & 1 ? PS_GFP_THISNODE : 0;
			e->migratetype = e->alloc_migratetype = (r >> 41) % 3;
			e->fallback_migratetype = (r >> 43) % 3;
			e->fallback_order = (r >> 45) % 11;
			switch ((r >> 58) % 40) {
			case 0: e->pfn = PS_PFN_NONE; break;
			case 1: e->order = 11 + (r & 0x3f); break;
			case 2: e->pfn = end + (r & 0xfff); break;
			case 3: e->pfn = ~0ull >> (r & 7); break;
			}
		}
		ps_counters_batch(&c, evs, n);
		for (int i = 0; i < n; i++)
			ps_counters_event(&d, &evs[i]);
	}
	CHECK(same_counters(&c, &d));
	for (int t = 0; t < PS_EV_NR; t++)
		nonzero += c.events[t] > 1000;
	CHECK_EQ(nonzero, PS_EV_NR);
	CHECK(c.numa_miss > 0 && c.numa_hit > 0 && c.pfn_outside_zones > 0 && c.bad_order > 0);
	CHECK(c.cpu_without_node > 0 && c.alloc_failed > 0 && c.pgfree > 0 && c.pgfree_batched_pages > 0);
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
	m->nr_cpus = 3;
	m->cpu_node[1] = 1;
	m->cpu_node[2] = -1;
	compare_batch(m, 8000000);
	m->nr_cpus = 1;

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
