// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * replay_drift.c - vmstat.drift (simulate mode, off by default): the
 * watermark checks read NR_FREE_PAGES as the kernel's zone_page_state()
 * does, without what each CPU still holds in its vm_stat_diff.
 *
 * Each change of a zone's free pages (one __free_one_page, one
 * rmqueue_buddy, one rmqueue_bulk batch) goes to the acting CPU's diff,
 * which is folded into the zone's count when it passes the CPU's
 * stat_threshold, and by the replay's once-a-second vmstat tick
 * (refresh_cpu_vm_stats).  The threshold is calculate_normal_threshold's
 * while the node's kswapd sleeps and, on zones with a percpu_drift_mark,
 * calculate_pressure_threshold's while it is awake or in its short sleep
 * (set_pgdat_percpu_threshold); kswapd's checks read the exact count under
 * the drift mark (zone_watermark_ok_safe).
 *
 * Simplifies: no fold when a CPU goes idle (quiet_vmstat): the trace does not
 * show when a CPU idled, so diffs last until the threshold or the tick; the
 * thresholds and drift marks follow the model's watermarks (the kernel
 * computes the marks at boot and on CPU or memory hotplug, not when
 * vm.watermark_scale_factor changes).
 */
#include <stdlib.h>

#include "replay_priv.h"

static int online_cpus(const struct ps_replay *r)
{
	int n = 0;

	for (int c = 0; c < r->m->nr_cpus; c++)
		n += r->m->cpu_node[c] >= 0;
	return n > 0 ? n : 1;
}

static int fls_long(unsigned long x)
{
	int n = 0;

	while (x) {
		n++;
		x >>= 1;
	}
	return n;
}

/* calculate_normal_threshold: 2 * fls(cpus) * (1 + fls(managed / 128 MiB)), at most 125. */
static int normal_threshold(const struct ps_zone *z, int cpus)
{
	int t = 2 * fls_long((unsigned long)cpus) * (1 + fls_long((unsigned long)(z->managed >> (27 - 12))));

	return t < 125 ? t : 125;
}

/* calculate_pressure_threshold: (low - min) / cpus, 1 to 125. */
static int pressure_threshold(const struct ps_zone *z, int cpus)
{
	long t = (z->wmark_low - z->wmark_min) / cpus;

	return t < 1 ? 1 : t > 125 ? 125 : (int)t;
}

/* set_pgdat_percpu_threshold for @node: pressure while its kswapd is up. */
void rp_drift_threshold(struct ps_replay *r, int node, int pressure)
{
	int cpus;

	if (!r->drift)
		return;
	cpus = online_cpus(r);
	for (int zi = 0; zi < r->nr_zones; zi++) {
		struct ps_zone *z = &r->zones[zi];

		if (z->node == node && z->vm_diff && z->percpu_drift_mark)
			z->stat_threshold = pressure ? pressure_threshold(z, cpus) : normal_threshold(z, cpus);
	}
}

/* refresh_cpu_vm_stats: @cpu's diffs of every zone go into the zones' counts. */
void rp_drift_fold(struct ps_replay *r, int cpu)
{
	for (int zi = 0; r->drift && zi < r->nr_zones; zi++)
		ps_zone_vmstat_fold(&r->zones[zi], cpu);
}

/* refresh_zone_stat_thresholds, once the model's starting state is built. */
int rp_drift_start(struct ps_replay *r, char *err, int len)
{
	int cpus = online_cpus(r);

	r->drift = r->o.mode == PS_REPLAY_SIMULATE && r->o.policy.vmstat_drift == 1;
	for (int zi = 0; r->drift && zi < r->nr_zones; zi++) {
		struct ps_zone *z = &r->zones[zi];
		long max_drift;

		if (!z->managed)
			continue;
		z->vm_diff = calloc(PS_MAX_CPUS, sizeof(*z->vm_diff));
		if (!z->vm_diff) {
			snprintf(err, len, "out of memory for vmstat.drift");
			return -1;
		}
		z->vm_seen = (long)z->nr_free_pages;
		z->vm_pending = 0;
		z->stat_threshold = normal_threshold(z, cpus);
		max_drift = (long)cpus * z->stat_threshold;
		z->percpu_drift_mark = max_drift > z->wmark_low - z->wmark_min ? z->wmark_high + max_drift : 0;
	}
	return 0;
}
