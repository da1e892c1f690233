// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * profile.c - the kernel profiles: per group of releases, which of the
 * free-list, fallback, per-CPU list, kswapd and counter rules the model
 * follows (profile.h).  The model follows one release within its profile
 * (struct ps_mm's kver), and rules whose boundaries fall inside a profile
 * test that release.
 *
 * Simplifies: a profile stands for all its releases except where a rule
 * tests the release; stable-tree backports are not told apart.
 */
#include <stdio.h>
#include <string.h>

#include "lib/kver.h"
#include "sim/mm/vmstat.h"
#include "sim/mm/profile.h"

#define K(a, b) PS_KVER(a, b, 0)
#define KMAX(a, b) PS_KVER(a, b, 255)

static const struct ps_profile p40 = {
	"4.0", K(4, 0), KMAX(4, 3), "largest-first fallback, RESERVE blocks, claim if >= 256 free",
	.fallback = PS_FB_STEAL_RETURN, .old_mt = 1, .merge = PS_MERGE_ISOLATE_CAP, .pcp_mt_cache = 1,
	.hotcold = 1, .fair = 1, .kswapd_per_zone = 1, .numa_stat = PS_NUMA_STAT_PREF_OTHERNODE,
};
static const struct ps_profile p44 = {
	"4.4", K(4, 4), KMAX(4, 6), "HIGHATOMIC replaces RESERVE; isolate merge check from ~4.6",
	.fallback = PS_FB_STEAL_RETURN, .merge = PS_MERGE_ISOLATE_CHECK, .pcp_mt_cache = 1, .hotcold = 1,
	.fair = 1, .kswapd_per_zone = 1, .numa_stat = PS_NUMA_STAT_PREF_OTHERNODE,
};
static const struct ps_profile p47 = {
	"4.7", K(4, 7), KMAX(4, 7), "as 4.4; numastat judged against the CPU's node (to 4.9)",
	.fallback = PS_FB_STEAL_RETURN, .merge = PS_MERGE_ISOLATE_CHECK, .pcp_mt_cache = 1, .hotcold = 1,
	.fair = 1, .kswapd_per_zone = 1, .numa_stat = PS_NUMA_STAT_LOCAL_BUG,
};
static const struct ps_profile p48 = {
	"4.8", K(4, 8), KMAX(4, 9), "node-based reclaim: no fair zone policy, kswapd balances the node",
	.fallback = PS_FB_STEAL_RETURN, .merge = PS_MERGE_ISOLATE_CHECK, .pcp_mt_cache = 1, .hotcold = 1,
	.numa_stat = PS_NUMA_STAT_LOCAL_BUG,
};
static const struct ps_profile p410 = {
	"4.10", K(4, 10), KMAX(4, 11), "no stealing from HIGHATOMIC blocks",
	.fallback = PS_FB_STEAL_RETURN, .skip_highatomic_steal = 1, .merge = PS_MERGE_ISOLATE_CHECK,
	.pcp_mt_cache = 1, .hotcold = 1,
};
static const struct ps_profile p412 = {
	"4.12", K(4, 12), KMAX(4, 12), "move block then retry smallest; claim on free + alike >= 256",
	.fallback = PS_FB_MOVE_RETRY, .alike = 1, .skip_highatomic_steal = 1,
	.merge = PS_MERGE_ISOLATE_CHECK, .pcp_mt_cache = 1, .hotcold = 1,
};
static const struct ps_profile p413 = {
	"4.13", K(4, 13), KMAX(4, 20), "MOVABLE steals the smallest fallback block when none is >= order 4",
	.fallback = PS_FB_MOVE_RETRY, .alike = 1, .movable_smallest = 1, .skip_highatomic_steal = 1,
	.merge = PS_MERGE_ISOLATE_CHECK, .pcp_mt_cache = 1, .hotcold = 1,
};
static const struct ps_profile p50 = {
	"5.0", K(5, 0), KMAX(5, 0), "watermark boost on fragmenting fallback (ALLOC_NOFRAGMENT never set in 5.0)",
	.fallback = PS_FB_MOVE_RETRY, .alike = 1, .movable_smallest = 1, .skip_highatomic_steal = 1,
	.boost = 1, .merge = PS_MERGE_ISOLATE_CHECK, .pcp_mt_cache = 1,
};
static const struct ps_profile p51 = {
	"5.1", K(5, 1), KMAX(5, 9), "+ ALLOC_NOFRAGMENT: no fragmenting fallback before other local zones",
	.fallback = PS_FB_MOVE_RETRY, .alike = 1, .movable_smallest = 1, .skip_highatomic_steal = 1,
	.boost = 1, .nofragment = 1, .merge = PS_MERGE_ISOLATE_CHECK, .pcp_mt_cache = 1,
};
static const struct ps_profile p510 = {
	"5.10", K(5, 10), KMAX(6, 9), "moves to list tail; high-order pcp lists (5.14); merge stop at non-mergeable blocks (5.18)",
	.fallback = PS_FB_MOVE_RETRY, .alike = 1, .movable_smallest = 1, .skip_highatomic_steal = 1,
	.boost = 1, .nofragment = 1, .move_tail = 1, .fpi_tail = 1, .merge = PS_MERGE_NONMERGEABLE,
	.pcp_mt_cache = 1, .pcp_high_orders = 1, .zone_locked_in_smallest = 1, .pcp_drain_from_freed = 1,
};
static const struct ps_profile p610 = {
	"6.10", K(6, 10), KMAX(6, 14), "freelist hygiene: move only on claim; single-page steal keeps fallback lists",
	.fallback = PS_FB_HYGIENE, .alike = 1, .movable_smallest = 1, .skip_highatomic_steal = 1,
	.boost = 1, .nofragment = 1, .move_tail = 1, .fpi_tail = 1, .merge = PS_MERGE_RETYPE,
	.split_large_free = 1, .pcp_high_orders = 1, .zone_locked_in_smallest = 1, .pcp_drain_from_freed = 1,
};
static const struct ps_profile p615 = {
	"6.15", K(6, 15), KMAX(6, 17), "claim first (orders 10..4 for MOVABLE), then steal the smallest; vm.defrag_mode",
	.fallback = PS_FB_CLAIM_STEAL, .alike = 1, .skip_highatomic_steal = 1, .boost = 1, .nofragment = 1,
	.move_tail = 1, .fpi_tail = 1, .merge = PS_MERGE_RETYPE, .split_large_free = 1, .pcp_high_orders = 1,
	.zone_locked_in_smallest = 1, .bulk_sticky = 1, .defrag_mode = 1, .pcp_drain_from_freed = 1,
};
static const struct ps_profile p618 = {
	"6.18", K(6, 18), PS_KVER(255, 255, 255), "as 6.15 (isolate bit from 6.16; kswapd skip pass in the zone walk)",
	.fallback = PS_FB_CLAIM_STEAL, .alike = 1, .skip_highatomic_steal = 1, .boost = 1, .nofragment = 1,
	.move_tail = 1, .fpi_tail = 1, .merge = PS_MERGE_RETYPE, .split_large_free = 1, .pcp_high_orders = 1,
	.zone_locked_in_smallest = 1, .bulk_sticky = 1, .defrag_mode = 1, .pcp_drain_from_freed = 1,
};

const struct ps_profile *const ps_profiles[] = {
	&p40, &p44, &p47, &p48, &p410, &p412, &p413, &p50, &p51, &p510, &p610, &p615, &p618, NULL,
};

const char *ps_profile_names(void)
{
	static char buf[128];

	if (!buf[0])
		for (int i = 0; ps_profiles[i]; i++) {
			size_t l = strlen(buf);

			snprintf(buf + l, sizeof(buf) - l, "%s%s", i ? " " : "", ps_profiles[i]->name);
		}
	return buf;
}

const struct ps_profile *ps_profile_for_kver(int kver)
{
	const struct ps_profile *best = &p618;

	if (kver == PS_KVER_UNKNOWN)
		return best;
	if (kver < p40.kver_min)
		return &p40;
	for (int i = 0; ps_profiles[i]; i++)
		if (kver >= ps_profiles[i]->kver_min && kver <= ps_profiles[i]->kver_max)
			return ps_profiles[i];
	return best;
}

const struct ps_profile *ps_profile_by_name(const char *name)
{
	int kver;

	for (int i = 0; ps_profiles[i]; i++)
		if (!strcmp(ps_profiles[i]->name, name))
			return ps_profiles[i];
	kver = ps_kver_parse(name);
	if (kver == PS_KVER_UNKNOWN)
		return NULL;
	return ps_profile_for_kver(kver);
}
