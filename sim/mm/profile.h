/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profile.h - kernel policy profiles: which version's free-list, fallback
 * and per-CPU list rules the model follows.  The switches and their
 * version boundaries: docs/kernel-rules.md, Profiles (the fallback rules:
 * Fallbacks; how sure each boundary is: Sources).
 */
#ifndef PS_PROFILE_H
#define PS_PROFILE_H

enum ps_fallback_style {
	PS_FB_STEAL_RETURN,	/* 4.0-4.11: largest first; move block if can steal; expand the found page */
	PS_FB_MOVE_RETRY,	/* 4.12-6.9: move block (always, if can steal), then retry smallest */
	/*
	 * 6.10-6.14: claim and retry, or single-page steal keeping fb lists
	 * (c0cd6f557b90, "mm: page_alloc: fix freelist movement during block
	 * conversion"); a steal and a claim at pageblock order or more take
	 * their page with no zone_locked, only extfrag (docs/kernel-rules.md,
	 * Tracepoints), as 6.15+ does
	 */
	PS_FB_HYGIENE,
	PS_FB_CLAIM_STEAL,	/* 6.15+: claim (10..min) first, then steal smallest */
};

enum ps_merge_rule {
	PS_MERGE_ISOLATE_CAP,	/* 4.0-4.5 */
	PS_MERGE_ISOLATE_CHECK,	/* 4.6-5.17: stop at >= pageblock only next to isolated blocks */
	PS_MERGE_NONMERGEABLE,	/* 5.18-6.9: stop when either side is HIGHATOMIC/CMA/ISOLATE */
	PS_MERGE_RETYPE,	/* 6.10+: as 5.18, and re-type the buddy's block */
};

struct ps_profile {
	const char *name;	/* "4.12" */
	int kver_min, kver_max;	/* PS_KVER range it covers */
	const char *summary;
	int fallback;		/* enum ps_fallback_style */
	int old_mt;		/* 4.0-4.3 enum and MIGRATE_RESERVE */
	int alike;		/* 4.12+: claim on free + alike >= half a block */
	int movable_smallest;	/* 4.13+: MOVABLE takes the smallest fallback if none >= order 4 */
	int skip_highatomic_steal; /* 4.10+ */
	int boost;		/* 5.0+: watermark boost on fragmenting fallback */
	int nofragment;		/* 5.1+: ALLOC_NOFRAGMENT in the fast path */
	int move_tail;		/* 5.10+: moved blocks go to the list tail */
	int fpi_tail;		/* 5.10+ */
	int merge;		/* enum ps_merge_rule */
	int pcp_mt_cache;	/* <= 6.9: drained pages go to their cached type's list */
	int split_large_free;	/* 6.10+: frees above pageblock order split per block */
	int pcp_high_orders;	/* 5.14+: pcp lists for orders 1..3 and the pageblock order */
	int zone_locked_in_smallest; /* 5.19+ */
	int bulk_sticky;	/* 6.15+: rmqueue_bulk mode stickiness; extfrag per stolen page */
	int defrag_mode;	/* 6.15+: vm.defrag_mode available */
	int hotcold;		/* <= 4.14: cold frees at the pcp tail */
	int pcp_drain_from_freed; /* 5.19+: drain starts at the freed page's list */
	int fair;		/* <= 4.7: fair zone allocation policy (NR_ALLOC_BATCH) */
	int kswapd_per_zone;	/* <= 4.7: kswapd balances every zone up to the class zone */
	int numa_stat;		/* enum ps_numa_stat_rule (counters.h) */
};

/* All profiles, oldest first; NULL-terminated. */
extern const struct ps_profile *const ps_profiles[];

/* The profiles' names, oldest first, separated by spaces ("4.0 4.4 ... 6.18"). */
const char *ps_profile_names(void);

/* The profile covering kernel release @kver (PS_KVER); the newest if unknown or newer. */
const struct ps_profile *ps_profile_for_kver(int kver);

/*
 * A profile by name: a profile's own name ("4.12"), or any release
 * ("4.9", "6.1.0-57-amd64") mapped to the profile that covers it.  NULL if
 * @name is neither.
 */
const struct ps_profile *ps_profile_by_name(const char *name);

#endif
