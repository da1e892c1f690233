// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * replay_vmstat.c - vmstat_update's per-CPU work, once a second per CPU in
 * both modes: expiry and draining of remote per-CPU lists, and 6.7+'s decay
 * of pcp high.
 *
 * Simplifies: every CPU's work runs at the same tick (the kernel spreads
 * them and defers them on idle CPUs); a CPU's work is queued only when a stat
 * of one of its zones changed since the last tick.
 */
#include "sim/replay/replay_priv.h"

/*
 * vmstat_update (refresh_cpu_vm_stats), run by each CPU about once a second
 * (sysctl_stat_interval; here on whole seconds of trace time) while it has
 * something to fold: a stat of a zone changed on the CPU since its last run
 * (here: any event of that zone on the CPU) sets the CPU's expire for the
 * zone to 3; a run that finds pages on a remote zone's list counts expire
 * down and at 0 drains one batch of them (drain_zone_pages; the drain
 * touches the zone's stats again, so the next batch goes 3 runs later).
 * Local lists are never drained.  6.7+ first decays high by an eighth (not
 * under count - batch << scale_max nor high_min) and drains what is over it.
 */
#define VMSTAT_INTERVAL_NS 1000000000ull

void rp_vmstat_touch(struct ps_replay *r, int zi, int cpu)
{
	cpu = cpu_slot(r, cpu);
	r->vm_touched[(size_t)zi * r->nr_cpus + cpu] = 1;
	r->vm_queued[cpu] = 1;
}

static void vmstat_drain(struct ps_replay *r, struct ps_zone *z, int cpu, int n, uint64_t now)
{
	if (r->o.mode == PS_REPLAY_FOLLOW) {
		rp_shadow_drain(r, z, cpu, n, 0);
		return;
	}
	z->now_ns = now;
	z->now_cpu = cpu;
	ps_pcp_drain(z, pcp_of(r, z, cpu), n, 0);
}

static void vmstat_refresh(struct ps_replay *r, int cpu, uint64_t now)
{
	for (int zi = 0; zi < r->nr_zones; zi++) {
		size_t k = (size_t)zi * r->nr_cpus + cpu;
		struct ps_zone *z = &r->zones[zi];
		struct ps_pcp *pcp = &r->pcps[k];
		int changed = 0, drained = 0;

		if (r->vm_touched[k]) {
			r->vm_touched[k] = 0;
			r->vm_expire[k] = 3;
		}
		if (pcp->high_max && pcp->high_min != pcp->high_max) {
			int n = ps_pcp_decay_high(pcp, &changed);

			if (n > 0) {
				vmstat_drain(r, z, cpu, n, now);
				r->decay_drains++;
				changed = drained = 1;
			}
		}
		if (r->vm_expire[k] && pcp->count > 0) {
			if (z->node == ps_machine_cpu_node(r->m, cpu)) {
				r->vm_expire[k] = 0;
			} else if (--r->vm_expire[k]) {
				changed |= pcp->high_max != 0;	/* 6.7+ counts the countdown as a change */
			} else {
				vmstat_drain(r, z, cpu, pcp->count < pcp->batch ? pcp->count : pcp->batch, now);
				r->remote_drains++;
				changed = drained = 1;
			}
		}
		if (drained)
			r->vm_touched[k] = 1;
		if (changed)
			r->vm_queued[cpu] = 1;
	}
}

void rp_vmstat_tick(struct ps_replay *r, uint64_t now)
{
	if (!r->vm_next_ns) {
		r->vm_next_ns = now - now % VMSTAT_INTERVAL_NS + VMSTAT_INTERVAL_NS;
		return;
	}
	for (int i = 0; now >= r->vm_next_ns; i++) {
		uint64_t t = r->vm_next_ns;

		if (i == 8) {
			/* a long quiet gap: what was still queued has run by now */
			r->vm_next_ns = now - now % VMSTAT_INTERVAL_NS + VMSTAT_INTERVAL_NS;
			break;
		}
		r->vm_next_ns += VMSTAT_INTERVAL_NS;
		for (int c = 0; c < r->nr_cpus; c++)
			if (r->vm_queued[c]) {
				r->vm_queued[c] = 0;
				vmstat_refresh(r, c, t);
			}
	}
}
