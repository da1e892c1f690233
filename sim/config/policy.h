/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policy.h - what a replay runs under: a kernel profile and tunables, with
 * the kernel's sysctl names where it has one.  The same `key = value` lines
 * come from policy files (configs/policies/NAME.policy), from --set, and from
 * the recorded machine's /proc/sys/vm (the defaults).
 *
 * Keys: kernel (a profile name or release), vm.min_free_kbytes,
 * vm.watermark_scale_factor, vm.watermark_boost_factor, vm.zone_reclaim_mode,
 * vm.defrag_mode, vm.percpu_pagelist_high_fraction, vm.numa_stat,
 * vm.dirty_ratio, vm.dirty_bytes (the zone walk's dirty limits),
 * vm.dirty_expire_centisecs, vm.dirty_writeback_centisecs (the flusher),
 * vm.min_unmapped_ratio, vm.min_slab_ratio (node reclaim),
 * pcp.batch, pcp.high (override every zone's per-CPU list sizes),
 * pcp.batch_scale_max (CONFIG_PCP_BATCH_SCALE_MAX, default 5: the cap on
 * free_factor that 6.7 brought and the stable trees took, 6.1.y in August
 * 2024; mainline 5.14-6.6 releases had none, which 24 stands for),
 * kswapd.reclaim_pages_per_ms (the model's kswapd speed),
 * node_reclaim.reclaim_pages_per_ms (how long a node reclaim holds its node),
 * watermark.legacy (1:
 * the pre-4.6 rule low = min + min/4, high = min + min/2, whatever the kernel),
 * vmstat.drift (1: the fast path's watermark checks read NR_FREE_PAGES as
 * zone_page_state() holds it, without the CPUs' unfolded vm_stat_diff),
 * kswapd.sleep_check (1: kswapd_try_to_sleep's check before the nap: a run
 * that ends with the node unbalanced for the class zone asked meanwhile is
 * followed by another at once), kswapd.nap_boost_check (0: at the end of
 * kswapd's nap only the node's balance decides, as in the kernel's
 * prepare_kswapd_sleep; the default 1 keeps it awake while a zone up to the
 * class zone is boosted), pcp.snapshot_lists (1: simulate mode starts
 * each CPU's per-CPU lists as the kernel's were, the pages the trace shows
 * listed and then the buddy's up to the snapshot's count; 0: those pages
 * start free in the buddy; unset: 1 for a trace of a kernel that auto-tunes
 * its lists, 6.7+, whose lists hold thousands of pages, 0 before),
 * kswapd.traced_cpu (1: simulate mode frees what kswapdN reclaims through
 * the lists of the CPU its last event in the trace ran on; the default 0:
 * through node N's first CPU's), kswapd.slice_us (N > 0: kswapd reclaims
 * in slices, at the end of each N us the pages its speed gives N us, as
 * on a CPU it shares with other tasks; the default 0: page by page as the
 * time earns them).
 */
#ifndef PS_POLICY_H
#define PS_POLICY_H

#include "lib/error.h"
#include "sim/mm/profile.h"

#define PS_UNSET (-1L)

/*
 * The model kswapd's reclaim speed when no policy sets it and the trace
 * does not show the recorded kswapd's (no vmscan events, or fewer than
 * PS_KSWAPD_SPEED_MIN_PAGES reclaimed): the fastest kswapd bursts in the
 * recorded QEMU traces (testdata/numa2) free about 52 (numa2-base) to 122
 * (numa2-wsf200) pages per ms; 100 is their middle.
 */
#define PS_KSWAPD_RATE_DEFAULT 100
/*
 * Node reclaim's speed (how long a call holds its node) when no policy
 * sets it and the trace shows no node reclaim that reclaimed pages: the
 * median calls of the nine 6.1 zone-reclaim runs in testdata/reclaim take
 * 124 to 179 pages per ms; 150 is their middle.
 */
#define PS_NODE_RECLAIM_RATE_DEFAULT 150
#define PS_KSWAPD_RATE_MAX (1L << 24)	/* kswapd.reclaim_pages_per_ms's range: 1 to this */

struct ps_policy {
	const struct ps_profile *profile;	/* NULL: the trace's own kernel */
	int kver;				/* the release the kernel key named (PS_KVER), 0 none */
	long min_free_kbytes;
	long watermark_scale_factor;
	long watermark_boost_factor;
	long zone_reclaim_mode;
	long defrag_mode;
	long percpu_pagelist_high_fraction;
	long numa_stat;
	long dirty_ratio, dirty_bytes;		/* the zone walk's dirty limits (page-writeback.h) */
	long dirty_expire_centisecs, dirty_writeback_centisecs;	/* the flusher's periodic writeback */
	long min_unmapped_ratio;		/* node reclaim's floor of unmapped page cache */
	long min_slab_ratio;			/* node reclaim's floor of reclaimable slab */
	long pcp_batch, pcp_high, pcp_batch_scale_max;
	long kswapd_rate;			/* pages per ms */
	long node_reclaim_rate;			/* pages per ms: PGDAT_RECLAIM_LOCKED's length */
	long kswapd_wake_latency_us;		/* from a wake to the run: wakes in between merge */
	long wmark_legacy;			/* 1: the pre-4.6 watermark rule whatever the kernel */
	long vmstat_drift;			/* 1: NR_FREE_PAGES read as zone_page_state() holds it */
	long kswapd_sleep_check;		/* 1: no nap while unbalanced for the class zone asked */
	long kswapd_nap_boost_check;		/* 0: a boost does not keep kswapd awake at the nap's end */
	long pcp_snapshot_lists;		/* 1: simulate starts the per-CPU lists as the kernel's were (unset: 6.7+) */
	long kswapd_traced_cpu;			/* 1: kswapd frees on the CPU the trace shows it on */
	long kswapd_slice_us;			/* > 0: kswapd reclaims a slice of this many us at a time */
	/* which keys were given explicitly (bit per key), for duplicate checks */
	unsigned long given;
};

/* All PS_UNSET, no profile. */
void ps_policy_init(struct ps_policy *p);

/*
 * Sets one key.  @where names the place for messages ("--set",
 * "configs/x.policy:3").  Unknown keys, bad or out-of-range values and
 * (with @no_dup) a key given twice are errors naming @where and the key.
 */
int ps_policy_set(struct ps_policy *p, const char *key, const char *value, const char *where, int no_dup,
		  struct ps_error *err);

/* "key=value" or "key = value" */
int ps_policy_set_kv(struct ps_policy *p, const char *kv, const char *where, struct ps_error *err);

/* A policy file: `key = value` lines, '#' comments; each key at most once. */
int ps_policy_load(struct ps_policy *p, const char *path, struct ps_error *err);

/* Key @i of the table (0: "kernel"), with its range; NULL past the last (for listings). */
const char *ps_policy_key(int i, long *min, long *max);

/*
 * Fills keys still unset from a recorded /proc/sys/vm (read by the caller
 * into key/value pairs); a value out of the key's range is an error naming
 * @where (the file).
 */
int ps_policy_default(struct ps_policy *p, const char *key, long value, const char *where, struct ps_error *err);

#endif
