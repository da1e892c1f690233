// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_zonelist.c - sim/mm/zonelist.c: the node fallback order of the
 * recorded 2- and 4-node machines (their before/sys/.../distance files)
 * against the "Fallback order for Node N" lines their kernels printed at
 * boot (info/dmesg_boot); hand-traced 4-node machines where the node_load
 * round robin decides; zone order (<= 4.13) and its 3.13 default;
 * memoryless nodes; __GFP_THISNODE lists; gfp_zone().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/mm/watermark.h"
#include "sim/mm/zonelist.h"
#include "lib/event.h"
#include "lib/kver.h"
#include "trace/sysroot.h"
#include "check.h"

/* include/linux/gfp_types.h compositions, in pagesim's bits */
#define GFP_KERNEL (PS_GFP_DIRECT_RECLAIM | PS_GFP_KSWAPD_RECLAIM | PS_GFP_IO | PS_GFP_FS)
#define GFP_USER (GFP_KERNEL | PS_GFP_HARDWALL)
#define GFP_HIGHUSER_MOVABLE (GFP_USER | PS_GFP_HIGHMEM | PS_GFP_MOVABLE | PS_GFP_SKIP_KASAN)
#define GFP_DMA32 PS_GFP_DMA32

static void add_zone(struct ps_machine *m, int node, int type, uint64_t present, uint64_t managed)
{
	struct ps_zone_desc *z = &m->zones[m->nr_zones++];

	memset(z, 0, sizeof(*z));
	z->node = node;
	z->type = type;
	z->spanned = present;
	z->present = present;
	z->managed = managed;
	z->start_pfn = (uint64_t)m->nr_zones << 24;
	if (node + 1 > m->nr_nodes)
		m->nr_nodes = node + 1;
	m->node_online |= 1ull << node;
}

/* Four nodes with one Normal zone each and one CPU each, distances @d. */
static void four_nodes(struct ps_machine *m, const int d[4][4])
{
	ps_machine_init(m);
	for (int n = 0; n < 4; n++) {
		add_zone(m, n, PS_ZONE_NORMAL, 1 << 18, 1 << 18);
		for (int j = 0; j < 4; j++)
			m->distance[n][j] = d[n][j];
		m->cpu_node[n] = (int16_t)n;
	}
	m->nr_cpus = 4;
}

static void check_order(const struct ps_zonelists *zl, int node, const int *exp, int n)
{
	int ok = zl->nr_node_order[node] == n;

	for (int i = 0; ok && i < n; i++)
		ok = zl->node_order[node][i] == exp[i];
	CHECK(ok);
	if (!ok) {
		fprintf(stderr, "  node %d: got", node);
		for (int i = 0; i < zl->nr_node_order[node]; i++)
			fprintf(stderr, " %d", zl->node_order[node][i]);
		fprintf(stderr, ", want");
		for (int i = 0; i < n; i++)
			fprintf(stderr, " %d", exp[i]);
		fprintf(stderr, "\n");
	}
}

/*
 * The 10/20/30 ring: neighbours at 20, the opposite node at 30.  Score of
 * candidate n from N: distance + [n < N] + 1 (every node has CPUs).
 * Node 0: 1 and 3 tie at 21 -> 1 (lowest id), then 3 (21), then 2 (31).
 * Node 1: 2 at 21 beats 0 at 22, then 0, then 3.  Node 2: 3 (21), 1 (22),
 * 0 (32).  Node 3: 0 and 2 tie at 22, 0 wins on id and on load, then 2, 1.
 * The same under both node_load rules.
 */
static void test_ring(void)
{
	static const int d[4][4] = {
		{ 10, 20, 30, 20 },
		{ 20, 10, 20, 30 },
		{ 30, 20, 10, 20 },
		{ 20, 30, 20, 10 },
	};
	static const int exp[4][4] = {
		{ 0, 1, 3, 2 }, { 1, 2, 0, 3 }, { 2, 3, 1, 0 }, { 3, 0, 2, 1 }
	};
	struct ps_machine *m = malloc(sizeof(*m));
	struct ps_zonelists *zl = malloc(sizeof(*zl));

	four_nodes(m, d);
	for (int v = 0; v < 2; v++) {
		CHECK_EQ(ps_zonelists_build(zl, m, v ? PS_KVER(6, 1, 0) : PS_KVER(5, 4, 0), 0), 0);
		for (int n = 0; n < 4; n++)
			check_order(zl, n, exp[n], 4);
	}
	free(m);
	free(zl);
}

/*
 * Distances where node_load decides, traced by hand (K: the load scale).
 * 6.1 rule (load += 1 when the distance changes from the previous pick):
 *   node 0: 0; 1 (21K) ties 3 (21K) -> 1, load[1]=1; 3; 2 (d 30), load[2]=1.
 *   node 1: 1; 3 = 21K+0 beats 2 = 21K+1 (load from node 0's list) and
 *           0 = 22K -> 3, load[3]=1; then 2 (21K+1), then 0.
 *   node 2: 2; 3 = 21K+1 -> 3, load[3]=2; 1 = 22K+1 before 0 = 32K; load[0]=1.
 *   node 3: 3; 0 = 22K+1, 1 = 22K+1, 2 = 22K+1 -> 0, load[0]=2; 1 and 2
 *           tie at 22K+1 -> 1; then 2.
 * <= 5.16 rule (load set to 4 - picks so far): the same up to node 3,
 *   where load[1] = 3 (set in node 0's list) and load[2] = 1, so after 0
 *   comes 2 (22K+1) before 1 (22K+3): 3 0 2 1.
 * Without node_load node 1 would take 2 before 3 (lowest id at 21).
 */
static void test_node_load(void)
{
	static const int d[4][4] = {
		{ 10, 20, 30, 20 },
		{ 20, 10, 20, 20 },
		{ 30, 20, 10, 20 },
		{ 20, 20, 20, 10 },
	};
	static const int new_rule[4][4] = {
		{ 0, 1, 3, 2 }, { 1, 3, 2, 0 }, { 2, 3, 1, 0 }, { 3, 0, 1, 2 }
	};
	static const int old_rule[4][4] = {
		{ 0, 1, 3, 2 }, { 1, 3, 2, 0 }, { 2, 3, 1, 0 }, { 3, 0, 2, 1 }
	};
	struct ps_machine *m = malloc(sizeof(*m));
	struct ps_zonelists *zl = malloc(sizeof(*zl));

	four_nodes(m, d);
	CHECK_EQ(ps_zonelists_build(zl, m, PS_KVER(6, 1, 0), 0), 0);
	for (int n = 0; n < 4; n++)
		check_order(zl, n, new_rule[n], 4);
	CHECK_EQ(ps_zonelists_build(zl, m, PS_KVER(5, 4, 0), 0), 0);
	for (int n = 0; n < 4; n++)
		check_order(zl, n, old_rule[n], 4);
	/* each node's list: its node order, one Normal zone per node */
	CHECK_EQ(zl->fallback[3].nr, 4);
	CHECK_EQ(zl->fallback[3].ref[1].node, 0);
	CHECK_EQ(zl->fallback[3].ref[2].node, 2);
	CHECK_EQ(zl->fallback[3].ref[3].type, PS_ZONE_NORMAL);

	/* a node without CPUs is preferred (one less): node 2 without CPUs comes first for 1 */
	m->cpu_node[2] = 1;
	CHECK_EQ(ps_zonelists_build(zl, m, PS_KVER(6, 1, 0), 0), 0);
	CHECK_EQ(zl->node_order[1][1], 2);

	/* a memoryless node: in nobody's list; its own list starts with itself until 6.6 */
	m->cpu_node[2] = 2;
	m->zones[3].present = m->zones[3].managed = 0; /* node 3's Normal */
	CHECK_EQ(ps_zonelists_build(zl, m, PS_KVER(6, 5, 0), 0), 0);
	CHECK_EQ(zl->nr_node_order[0], 3);
	CHECK_EQ(zl->nr_node_order[3], 4);
	CHECK_EQ(zl->node_order[3][0], 3);
	CHECK_EQ(zl->fallback[3].ref[0].node, zl->node_order[3][1]);
	CHECK_EQ(zl->thisnode[3].nr, 0);
	CHECK_EQ(ps_zonelists_build(zl, m, PS_KVER(6, 8, 0), 0), 0);
	CHECK_EQ(zl->nr_node_order[3], 3);
	CHECK(zl->node_order[3][0] != 3);
	free(m);
	free(zl);
}

/* numa2-like: node 0 DMA, DMA32, Normal; node 1 Normal (the managed counts of numa2-base). */
static void numa2_like(struct ps_machine *m)
{
	ps_machine_init(m);
	add_zone(m, 0, PS_ZONE_DMA, 3998, 3840);
	add_zone(m, 0, PS_ZONE_DMA32, 28633, 16291);
	add_zone(m, 0, PS_ZONE_NORMAL, 32768, 31573);
	add_zone(m, 1, PS_ZONE_NORMAL, 65536, 64318);
	m->distance[0][0] = m->distance[1][1] = 10;
	m->distance[0][1] = m->distance[1][0] = 20;
	m->cpu_node[0] = 0;
	m->cpu_node[1] = 1;
	m->nr_cpus = 2;
}

static int ref_is(const struct ps_zonelist *l, int i, int node, int type)
{
	return i < l->nr && l->ref[i].node == node && l->ref[i].type == type;
}

static void test_zone_order(void)
{
	struct ps_machine *m = malloc(sizeof(*m));
	struct ps_zonelists *zl = malloc(sizeof(*zl));
	const struct ps_zoneref *refs;
	int n;

	numa2_like(m);
	/* node order: [0: Normal DMA32 DMA] [1: Normal] */
	CHECK_EQ(ps_zonelists_build(zl, m, PS_KVER(4, 9, 0), PS_ZONELIST_ORDER_NODE), 0);
	CHECK_EQ(zl->fallback[0].nr, 4);
	CHECK(ref_is(&zl->fallback[0], 0, 0, PS_ZONE_NORMAL));
	CHECK(ref_is(&zl->fallback[0], 1, 0, PS_ZONE_DMA32));
	CHECK(ref_is(&zl->fallback[0], 2, 0, PS_ZONE_DMA));
	CHECK(ref_is(&zl->fallback[0], 3, 1, PS_ZONE_NORMAL));
	CHECK(ref_is(&zl->fallback[1], 0, 1, PS_ZONE_NORMAL));
	CHECK(ref_is(&zl->fallback[1], 1, 0, PS_ZONE_NORMAL));
	CHECK(ref_is(&zl->fallback[1], 3, 0, PS_ZONE_DMA));
	/* zone order (<= 4.13): Normal of both nodes before node 0's DMA32 */
	CHECK_EQ(ps_zonelists_build(zl, m, PS_KVER(4, 9, 0), PS_ZONELIST_ORDER_ZONE), 0);
	CHECK_EQ(zl->order, PS_ZONELIST_ORDER_ZONE);
	CHECK(ref_is(&zl->fallback[0], 0, 0, PS_ZONE_NORMAL));
	CHECK(ref_is(&zl->fallback[0], 1, 1, PS_ZONE_NORMAL));
	CHECK(ref_is(&zl->fallback[0], 2, 0, PS_ZONE_DMA32));
	CHECK(ref_is(&zl->fallback[0], 3, 0, PS_ZONE_DMA));
	CHECK(ref_is(&zl->fallback[1], 0, 1, PS_ZONE_NORMAL));
	CHECK(ref_is(&zl->fallback[1], 1, 0, PS_ZONE_NORMAL));
	/* 4.14 dropped zone order */
	CHECK_EQ(ps_zonelists_build(zl, m, PS_KVER(4, 14, 0), PS_ZONELIST_ORDER_ZONE), 0);
	CHECK_EQ(zl->order, PS_ZONELIST_ORDER_NODE);
	CHECK(ref_is(&zl->fallback[0], 1, 0, PS_ZONE_DMA32));
	/*
	 * 3.13's default: every node has Normal; DMA+DMA32 = 20131 of 116022
	 * managed pages (not over half); average 116022/3 = 38674, node 0
	 * holds 65399 present pages of which 32631 DMA/DMA32, not over 70%:
	 * zone order.  3.16 on: node order (64-bit).
	 */
	CHECK_EQ(ps_zonelist_default_order(m, PS_KVER(3, 13, 0)), PS_ZONELIST_ORDER_ZONE);
	CHECK_EQ(ps_zonelist_default_order(m, PS_KVER(3, 16, 0)), PS_ZONELIST_ORDER_NODE);
	m->zones[3].type = PS_ZONE_MOVABLE; /* node 1 without Normal: node order */
	CHECK_EQ(ps_zonelist_default_order(m, PS_KVER(3, 13, 0)), PS_ZONELIST_ORDER_NODE);
	m->zones[3].type = PS_ZONE_NORMAL;

	/* __GFP_THISNODE: node 1's own zones only */
	CHECK_EQ(ps_zonelists_build(zl, m, PS_KVER(6, 1, 0), 0), 0);
	n = ps_node_zonelist(zl, 1, GFP_KERNEL | PS_GFP_THISNODE, &refs);
	CHECK_EQ(n, 1);
	CHECK(n == 1 && refs[0].node == 1 && refs[0].type == PS_ZONE_NORMAL);
	n = ps_node_zonelist(zl, 1, GFP_KERNEL, &refs);
	CHECK_EQ(n, 4);
	/* a GFP_DMA32 request from node 1: preferred zone is node 0's DMA32 (index 2) */
	CHECK_EQ(ps_zonelist_first(refs, n, ps_gfp_zone(GFP_DMA32, PS_ZONE_TYPES_X86_64)), 2);
	CHECK_EQ(ps_zonelist_first(refs, n, PS_ZONE_NORMAL), 0);
	n = ps_node_zonelist(zl, 1, PS_GFP_DMA32 | PS_GFP_THISNODE, &refs);
	CHECK_EQ(ps_zonelist_first(refs, n, PS_ZONE_DMA32), -1);
	/* class zone: the preferred zone's type up to 5.6, gfp_zone from 5.7 */
	CHECK_EQ(ps_classzone(PS_KVER(5, 6, 0), PS_ZONE_MOVABLE, PS_ZONE_NORMAL), PS_ZONE_NORMAL);
	CHECK_EQ(ps_classzone(PS_KVER(5, 7, 0), PS_ZONE_MOVABLE, PS_ZONE_NORMAL), PS_ZONE_MOVABLE);

	/* a zone with present but no managed pages: left out 4.16-5.17 */
	m->zones[1].managed = 0;
	CHECK_EQ(ps_zonelists_build(zl, m, PS_KVER(5, 4, 0), 0), 0);
	CHECK_EQ(zl->fallback[0].nr, 3);
	CHECK_EQ(ps_zonelists_build(zl, m, PS_KVER(6, 1, 0), 0), 0);
	CHECK_EQ(zl->fallback[0].nr, 4);

	/* an explicit order (the boot log's) replaces the computed one */
	m->zones[1].managed = 16291;
	{
		int order[2] = { 1, 0 }, dup[2] = { 1, 1 };

		CHECK_EQ(ps_zonelists_set_node_order(zl, m, 0, order, 2), 0);
		CHECK(ref_is(&zl->fallback[0], 0, 1, PS_ZONE_NORMAL));
		CHECK(ref_is(&zl->fallback[0], 1, 0, PS_ZONE_NORMAL));
		CHECK_EQ(ps_zonelists_set_node_order(zl, m, 0, dup, 2), -1);
	}
	free(m);
	free(zl);
}

static void test_gfp_zone(void)
{
	unsigned int x86 = PS_ZONE_TYPES_X86_64;
	unsigned int highmem32 = (1u << PS_ZONE_DMA) | (1u << PS_ZONE_NORMAL) |
				 (1u << PS_ZONE_HIGHMEM) | (1u << PS_ZONE_MOVABLE);

	CHECK_EQ(ps_gfp_zone(GFP_KERNEL, x86), PS_ZONE_NORMAL);
	CHECK_EQ(ps_gfp_zone(GFP_KERNEL | GFP_DMA32, x86), PS_ZONE_DMA32);
	CHECK_EQ(ps_gfp_zone(GFP_HIGHUSER_MOVABLE, x86), PS_ZONE_MOVABLE);
	CHECK_EQ(ps_gfp_zone(GFP_KERNEL | PS_GFP_DMA, x86), PS_ZONE_DMA);
	CHECK_EQ(ps_gfp_zone(GFP_USER | PS_GFP_HIGHMEM, x86), PS_ZONE_NORMAL); /* GFP_HIGHUSER */
	CHECK_EQ(ps_gfp_zone(GFP_USER | PS_GFP_HIGHMEM, highmem32), PS_ZONE_HIGHMEM);
	CHECK_EQ(ps_gfp_zone(GFP_USER | PS_GFP_MOVABLE, x86), PS_ZONE_NORMAL);
	CHECK_EQ(ps_gfp_zone(PS_GFP_MOVABLE | PS_GFP_DMA32, x86), PS_ZONE_DMA32);
	CHECK_EQ(ps_gfp_zone(PS_GFP_MOVABLE | PS_GFP_DMA, x86), PS_ZONE_DMA);
	CHECK_EQ(ps_gfp_zone(GFP_DMA32, highmem32), PS_ZONE_NORMAL); /* no ZONE_DMA32 */
	CHECK_EQ(ps_gfp_zone(PS_GFP_DMA | PS_GFP_DMA32, x86), PS_ZONE_DMA);
	CHECK_EQ(ps_gfp_zone(PS_GFP_DMA | PS_GFP_HIGHMEM | PS_GFP_MOVABLE, x86), PS_ZONE_DMA);
}

/* "Fallback order for Node N: a b c" lines of a boot log; returns how many nodes were compared. */
static int check_boot_log(const struct ps_zonelists *zl, const char *log)
{
	int compared = 0;

	for (const char *p = log; (p = strstr(p, "Fallback order for Node ")); p++) {
		int node, exp[PS_MAX_NODES], n = 0, used;
		const char *q = p + strlen("Fallback order for Node ");

		if (sscanf(q, "%d:%n", &node, &used) != 1)
			continue;
		q += used;
		while (n < PS_MAX_NODES && sscanf(q, " %d%n", &exp[n], &used) == 1 && *q != '\n') {
			const char *nl = strchr(q, '\n');

			if (nl && q + used > nl)
				break;
			n++;
			q += used;
		}
		check_order(zl, node, exp, n);
		compared++;
	}
	return compared;
}

static int test_recorded(const char *src, const char *run)
{
	char dir[4096], path[4200];
	struct ps_machine *m = malloc(sizeof(*m));
	struct ps_zonelists *zl = malloc(sizeof(*zl));
	struct ps_error err;
	size_t len;
	char *log = NULL;
	int compared = 0;

	ps_machine_init(m);
	if (snprintf(dir, sizeof(dir), "%s/testdata/%s/before", src, run) >= (int)sizeof(dir) ||
	    ps_sysroot_load_machine(dir, m, &err)) {
		printf("%s: not found, skipped\n", run);
		goto out;
	}
	if (snprintf(path, sizeof(path), "%s/../info/dmesg_boot", dir) < (int)sizeof(path))
		log = ps_read_file(path, &len, &err);
	CHECK(log != NULL);
	CHECK_EQ(ps_zonelists_build(zl, m, m->kver, 0), 0);
	if (log)
		compared = check_boot_log(zl, log);
	CHECK_EQ(compared, m->nr_nodes);
	printf("%s: %s, %d nodes, distance row 0:", run, m->release, m->nr_nodes);
	for (int j = 0; j < m->nr_nodes; j++)
		printf(" %d", m->distance[0][j]);
	printf("; node orders match the boot log for %d nodes\n", compared);
	/* every list: all zones of the first node before any of the next, highest first */
	for (int n = 0; n < m->nr_nodes; n++) {
		const struct ps_zonelist *l = &zl->fallback[n];

		for (int i = 1; i < l->nr; i++)
			CHECK(l->ref[i].node != l->ref[i - 1].node ||
			      l->ref[i].type < l->ref[i - 1].type);
		CHECK(l->nr > 0 && l->ref[0].node == n);
	}
out:
	free(log);
	free(m);
	free(zl);
	return compared;
}

int main(void)
{
	const char *env = getenv("PAGESIM_SRC");
	char src[4096], *slash;
	int found = 0;

	test_ring();
	test_node_load();
	test_zone_order();
	test_gfp_zone();

	/* the source tree: $PAGESIM_SRC, else three levels above this file (../tests/unit/X in build/) */
	snprintf(src, sizeof(src), "%s", env ? env : __FILE__);
	for (int i = 0; !env && i < 3 && (slash = strrchr(src, '/')); i++)
		*slash = 0;
	found += test_recorded(src, "numa2/numa2-base") > 0;
	found += test_recorded(src, "numa4/numa4-base") > 0;
	CHECK_EQ(found, 2);
	CHECK_DONE();
}
