// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_counters.c - the counters' pfn -> zone table (sim/mm/vmstat.c) gives
 * the zone ps_machine_zone_of() gives, pfn by pfn, on layouts that make the
 * table fall back: zone boundaries inside a chunk, nested spans (a node's
 * DMA32 covering another node's range), gaps between zones, and a layout
 * so large that one chunk holds several zones.  And ps_counters_batch()
 * counts as ps_counters_event() one event at a time does, on random events
 * of every kind, unusual ones included.  And numastat per version
 * (zone_statistics): 4.10+, <= 4.6 with __GFP_OTHER_NODE, and 4.7-4.9's
 * rule that judged hit/miss against the CPU's node.  And kswapd_try_to_sleep's
 * verdicts (kswapd_low/high_wmark_hit_quickly) from the vmscan events, node
 * by node.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/mm/vmstat.h"
#include "lib/kver.h"
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

/*
 * One allocation by CPU @cpu of a page of node @page_node with @gfp, counted
 * under @kver's rule; returns the node's and the totals' counters as the
 * string "hit miss foreign local other", the foreign charged where it goes.
 */
static const char *numastat(const struct ps_machine *m, int kver, int cpu, int page_node, uint32_t gfp)
{
	static struct ps_counters c;
	static char buf[128];
	struct ps_event ev = { .type = PS_EV_ALLOC, .cpu = cpu, .gfp = gfp };

	ps_counters_init(&c, m, 9);
	c.numa_rule = ps_numa_stat_rule_for_kver(kver);
	ev.pfn = page_node ? 1001 : 1;
	ps_counters_event(&c, &ev);
	snprintf(buf, sizeof(buf), "%llu %llu %llu %llu %llu | n%d: %llu %llu %llu %llu | foreign n0 %llu n1 %llu",
		 (unsigned long long)c.numa_hit, (unsigned long long)c.numa_miss,
		 (unsigned long long)c.numa_foreign, (unsigned long long)c.numa_local,
		 (unsigned long long)c.numa_other, page_node,
		 (unsigned long long)c.node[page_node].numa_hit, (unsigned long long)c.node[page_node].numa_miss,
		 (unsigned long long)c.node[page_node].local_node, (unsigned long long)c.node[page_node].other_node,
		 (unsigned long long)c.node[0].numa_foreign, (unsigned long long)c.node[1].numa_foreign);
	return buf;
}

#define CHECK_STR(a, b) do { const char *a_ = (a); CHECK(!strcmp(a_, (b))); \
	if (strcmp(a_, (b))) fprintf(stderr, "  got '%s'\n  want '%s'\n", a_, (b)); } while (0)

static void test_numa_rules(void)
{
	static struct ps_machine m;
	const int v44 = PS_KVER(4, 4, 0), v49 = PS_KVER(4, 9, 0), v61 = PS_KVER(6, 1, 0);
	const uint32_t thisnode = PS_GFP_THISNODE, other = PS_GFP_OTHER_NODE;

	ps_machine_init(&m);
	add_zone(&m, 0, PS_ZONE_NORMAL, 0, 1000);
	add_zone(&m, 1, PS_ZONE_NORMAL, 1000, 1000);
	m.nr_cpus = 2;
	m.cpu_node[0] = 0;
	m.cpu_node[1] = 1;
	CHECK_EQ(ps_numa_stat_rule_for_kver(v44), PS_NUMA_STAT_PREF_OTHERNODE);
	CHECK_EQ(ps_numa_stat_rule_for_kver(PS_KVER(4, 7, 0)), PS_NUMA_STAT_LOCAL_BUG);
	CHECK_EQ(ps_numa_stat_rule_for_kver(v49), PS_NUMA_STAT_LOCAL_BUG);
	CHECK_EQ(ps_numa_stat_rule_for_kver(PS_KVER(4, 10, 0)), PS_NUMA_STAT_PREF);
	CHECK_EQ(ps_numa_stat_rule_for_kver(PS_KVER_UNKNOWN), PS_NUMA_STAT_PREF);
	/* a local allocation: hit and local everywhere */
	for (int i = 0; i < 3; i++)
		CHECK_STR(numastat(&m, (int[]){ v44, v49, v61 }[i], 0, 0, 0),
			  "1 0 0 1 0 | n0: 1 0 1 0 | foreign n0 0 n1 0");
	/* a fallback to node 1 from a node-0 CPU: miss on node 1, foreign on node 0; other, but 4.7-4.9 */
	CHECK_STR(numastat(&m, v61, 0, 1, 0), "0 1 1 0 1 | n1: 0 1 0 1 | foreign n0 1 n1 0");
	CHECK_STR(numastat(&m, v44, 0, 1, 0), "0 1 1 0 1 | n1: 0 1 0 1 | foreign n0 1 n1 0");
	CHECK_STR(numastat(&m, v49, 0, 1, 0), "0 1 1 0 0 | n1: 0 1 0 0 | foreign n0 1 n1 0");
	/* __GFP_THISNODE for node 1 from a node-0 CPU: a hit on the preferred node, but 4.7-4.9's miss */
	CHECK_STR(numastat(&m, v61, 0, 1, thisnode), "1 0 0 0 1 | n1: 1 0 0 1 | foreign n0 0 n1 0");
	CHECK_STR(numastat(&m, v44, 0, 1, thisnode), "1 0 0 0 1 | n1: 1 0 0 1 | foreign n0 0 n1 0");
	CHECK_STR(numastat(&m, v49, 0, 1, thisnode), "0 1 1 0 0 | n1: 0 1 0 0 | foreign n0 0 n1 1");
	/* with __GFP_OTHER_NODE (khugepaged): up to 4.9 the preferred node stands in for the CPU's */
	CHECK_STR(numastat(&m, v61, 0, 1, thisnode | other), "1 0 0 0 1 | n1: 1 0 0 1 | foreign n0 0 n1 0");
	CHECK_STR(numastat(&m, v44, 0, 1, thisnode | other), "1 0 0 1 0 | n1: 1 0 1 0 | foreign n0 0 n1 0");
	CHECK_STR(numastat(&m, v49, 0, 1, thisnode | other), "1 0 0 0 1 | n1: 1 0 0 1 | foreign n0 0 n1 0");
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
			e->type = r % PS_EV_KMEM_NR;
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
	for (int t = 0; t < PS_EV_KMEM_NR; t++)
		nonzero += c.events[t] > 1000;
	CHECK_EQ(nonzero, PS_EV_KMEM_NR);
	CHECK(c.numa_miss > 0 && c.numa_hit > 0 && c.pfn_outside_zones > 0 && c.bad_order > 0);
	CHECK(c.cpu_without_node > 0 && c.alloc_failed > 0 && c.pgfree > 0 && c.pgfree_batched_pages > 0);
}

static void kswapd_event(struct ps_counters *c, int type, int nid)
{
	struct ps_event ev = { .type = (uint8_t)type, .pid = -1 };

	ev.x.ks.nid = (int16_t)nid;
	ev.x.ks.zid = -1;
	ps_counters_event(c, &ev);
}

/*
 * A run right after the node's previous one, with no full sleep between, is
 * LOW when an effective wake of that node came between them, HIGH when none
 * did; a run after a full sleep (or the node's first) is neither, and one
 * node's wakes say nothing of another's.
 */
static void test_hit_quickly(void)
{
	static struct ps_counters c;

	ps_counters_init(&c, NULL, 9);
	kswapd_event(&c, PS_EV_WAKEUP_KSWAPD, 0);
	kswapd_event(&c, PS_EV_KSWAPD_WAKE, 0);		/* node 0's first run */
	kswapd_event(&c, PS_EV_KSWAPD_WAKE, 1);		/* node 1's first run */
	kswapd_event(&c, PS_EV_WAKEUP_KSWAPD, 0);
	kswapd_event(&c, PS_EV_KSWAPD_WAKE, 0);		/* woken in the short sleep: LOW */
	CHECK_EQ(c.kswapd_low_wmark_hit_quickly, 1);
	CHECK_EQ(c.kswapd_high_wmark_hit_quickly, 0);
	kswapd_event(&c, PS_EV_KSWAPD_WAKE, 0);		/* not balanced after it: HIGH */
	CHECK_EQ(c.kswapd_high_wmark_hit_quickly, 1);
	kswapd_event(&c, PS_EV_WAKEUP_KSWAPD, 0);
	kswapd_event(&c, PS_EV_KSWAPD_WAKE, 1);		/* node 0's wake: node 1's run is HIGH */
	CHECK_EQ(c.kswapd_low_wmark_hit_quickly, 1);
	CHECK_EQ(c.kswapd_high_wmark_hit_quickly, 2);
	kswapd_event(&c, PS_EV_KSWAPD_WAKE, 0);		/* node 0's own wake came before: LOW */
	CHECK_EQ(c.kswapd_low_wmark_hit_quickly, 2);
	kswapd_event(&c, PS_EV_KSWAPD_SLEEP, 1);
	kswapd_event(&c, PS_EV_WAKEUP_KSWAPD, 1);
	kswapd_event(&c, PS_EV_KSWAPD_WAKE, 1);		/* from a full sleep: neither */
	kswapd_event(&c, PS_EV_KSWAPD_WAKE, 99);	/* a node out of range: a run, no verdict */
	CHECK_EQ(c.kswapd_low_wmark_hit_quickly, 2);
	CHECK_EQ(c.kswapd_high_wmark_hit_quickly, 2);
	CHECK_EQ(c.pageoutrun, 8);
	CHECK(c.have_reclaim);
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
	test_numa_rules();
	test_hit_quickly();
	CHECK_DONE();
}
