// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_reclaim_cpu.c - whose per-CPU lists take what reclaim frees
 * (ps_reclaim_block): a direct or node reclaimer's own CPU's; kswapd's the
 * node's first CPU's, or with kswapd.cpu set (kswapd.traced_cpu=1: the
 * CPU the trace shows it on) that CPU's.  One node of two CPUs, one Normal
 * zone, lists of high 64 and batch 8: a freed page stays listed.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/kver.h"
#include "sim/config/machfile.h"
#include "sim/config/policy.h"
#include "sim/mm/mm.h"
#include "sim/mm/profile.h"
#include "sim/mm/vmscan.h"
#include "check.h"

static const char machine_text[] =
	"name = reclaim-cpu-test\n"
	"page_size = 4096\n"
	"pageblock_order = 9\n"
	"kernel = 6.1.0\n"
	"nodes = 1\n"
	"node0.cpus = 0-1\n"
	"node0.distance = 10\n"
	"node0.zone.Normal = start_pfn=1048576 spanned=4096 present=4096 managed=4096\n"
	"node0.zone.Normal.wmark = 100 125 150\n";

static struct ps_mm mm;

static int listed(const struct ps_zone *z, int cpu)
{
	return ps_mm_pcp(&mm, z, cpu)->count;
}

int main(void)
{
	struct ps_machine m;
	struct ps_mm_tunables t;
	struct ps_error perr;
	struct ps_zone *z;
	char err[256];

	if (ps_machine_parse(machine_text, "reclaim-cpu-test", &m, &perr) < 0) {
		fprintf(stderr, "%s\n", perr.msg);
		return 1;
	}
	memset(&t, 0, sizeof(t));
	t.wmark_kver = PS_KVER(6, 1, 0);
	t.min_free_kbytes = t.watermark_scale_factor = PS_UNSET;
	t.watermark_boost_factor = 15000;
	t.pcp_batch = 8;
	t.pcp_high = 64;
	t.percpu_pagelist_high_fraction = t.pcp_batch_scale_max = PS_UNSET;
	t.kswapd_rate = PS_KSWAPD_RATE_DEFAULT;
	t.node_reclaim_rate = PS_NODE_RECLAIM_RATE_DEFAULT;
	if (ps_mm_create(&mm, &m, ps_profile_by_name("5.10"), PS_KVER(6, 1, 0), &t, 1, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	z = &mm.zones[0];
	CHECK_EQ(mm.node[0].kswapd.cpu, 0);

	/* kswapd, no CPU known: the node's first CPU */
	ps_reclaim_block(&mm, 0, z, 0, 0, 1000, -1);
	CHECK_EQ(listed(z, 0), 1);
	CHECK_EQ(listed(z, 1), 0);
	/* kswapd on CPU 1: its frees go there */
	mm.node[0].kswapd.cpu = 1;
	ps_reclaim_block(&mm, 0, z, 1, 0, 2000, -1);
	ps_reclaim_block(&mm, 0, z, 2, 0, 3000, -1);
	CHECK_EQ(listed(z, 0), 1);
	CHECK_EQ(listed(z, 1), 2);
	/* a reclaimer's own CPU, whatever kswapd's */
	ps_reclaim_block(&mm, 0, z, 3, 0, 4000, 0);
	CHECK_EQ(listed(z, 0), 2);
	CHECK_EQ(listed(z, 1), 2);
	CHECK_EQ(mm.zone_reclaimed[0], 4);
	ps_mm_destroy(&mm);
	CHECK_DONE();
}
