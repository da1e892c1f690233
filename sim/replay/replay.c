// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * replay.c - a replay created and destroyed, started between the passes,
 * and the entry every event of pass 2 takes: the timers due by then, then
 * the mode's work.  The model is built in setup.c; the modes' work is in
 * follow.c and simulate.c (engine.h lists the files).
 */
#include "lib/bytescan.h"
#include "sim/mm/compaction.h"
#include "sim/mm/lock.h"
#include "sim/mm/vmscan.h"
#include "sim/mm/vmstat.h"
#include "sim/replay/engine.h"

#define VMSTAT_INTERVAL_NS 1000000000ull

struct ps_replay *ps_replay_create(const struct ps_machine *m, const struct ps_replay_opts *o, char *err, int len)
{
	struct ps_replay *r = calloc(1, sizeof(*r));

	if (!r) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	r->o = *o;
	r->m = m;
	r->verbose_left = 100;
	ps_timers_init(&r->timers);
	if (rp_setup_model(r, err, len) < 0) {
		ps_replay_destroy(r);
		return NULL;
	}
	if (o->ensemble_member) {
		ps_rng_seed(&r->rng, 2ull * o->ensemble_member);
		ps_rng_seed(&r->mm.rng, 2ull * o->ensemble_member + 1);
	}
	return r;
}

/*
 * An ensemble member's vmstat drift, drawn anew at each tick: what
 * zone_page_state(NR_FREE_PAGES), which the allocator's watermark checks
 * read, lags the zone's free pages by, uniform within half the CPUs'
 * per-CPU thresholds summed (the zone's stat_threshold: vmstat.c's
 * calculate_normal_threshold), on top of vmstat.drift's own.  kswapd's
 * checks (zone_watermark_ok_safe) read the exact count.
 */
static void ensemble_drift(struct ps_replay *r)
{
	for (int zi = 0; zi < r->mm.nr_zones; zi++) {
		struct ps_zone *z = &r->mm.zones[zi];
		long b = (long)z->stat_threshold * r->mm.nr_cpus / 2;

		z->drift_perturb = z->managed ? (long)ps_rng_below(&r->rng, 2 * (uint64_t)b + 1) - b : 0;
		ps_vmstat_set_drift(&r->mm, z);
	}
}

/*
 * Pass 2 over a batch.  An ensemble member (simulate mode) swaps, at even
 * odds, two neighbouring events of different CPUs at the same time that
 * name different pages: the trace's order of them is the tracer's.
 */
int ps_replay_batch(struct ps_replay *r, const struct ps_event *evs, int n, const struct ps_event **bad, char *err,
		    int len)
{
	int perturb = r->o.ensemble_member && r->o.mode == PS_REPLAY_SIMULATE, failed;

	if (!perturb) {
		if (ps_replay_events(r, evs, n, err, len, &failed) < 0) {
			*bad = &evs[failed];
			return -1;
		}
		return 0;
	}
	/* a: the next event to replay, evs[i] the one after it */
	const struct ps_event *a = r->have_held ? &r->held : n ? &evs[0] : NULL;
	int i = r->have_held ? 0 : 1;

	r->have_held = 0;
	while (a && i < n) {
		const struct ps_event *b = &evs[i++];

		if (b->ts_ns == a->ts_ns && b->cpu != a->cpu && b->pfn != a->pfn && (ps_rng_next(&r->rng) >> 63)) {
			if (ps_replay_event(r, b, err, len) < 0) {
				*bad = b;
				return -1;
			}
			if (ps_replay_event(r, a, err, len) < 0) {
				*bad = a;
				return -1;
			}
			a = i < n ? &evs[i++] : NULL;
			continue;
		}
		if (ps_replay_event(r, a, err, len) < 0) {
			*bad = a;
			return -1;
		}
		a = b;
	}
	if (a) {
		/* held for the next batch; the reader's comm lasts only to its next batch: whether there is one stays */
		if (a != &r->held) {
			r->held = *a;
			r->held.comm = a->comm ? "" : NULL;
		}
		r->have_held = 1;
	}
	return 0;
}

int ps_replay_batch_end(struct ps_replay *r, const struct ps_event **bad, char *err, int len)
{
	if (!r->have_held)
		return 0;
	r->have_held = 0;
	if (ps_replay_event(r, &r->held, err, len) < 0) {
		*bad = &r->held;
		return -1;
	}
	return 0;
}

void ps_replay_destroy(struct ps_replay *r)
{
	if (!r)
		return;
	rp_view_destroy(r);
	rp_free_pass1(r);
	ps_mm_destroy(&r->mm);
	if (r->lockf)
		ps_lock_follow_destroy(r->lockf);
	if (r->lock)
		ps_lock_destroy(r->lock);
	free(r->last_pcp_pages);
	free(r->map);
	free(r->shadow);
	free(r->shadow_seed);
	free(r->net_pages);
	free(r->owner);
	free(r->kreclaimed);
	free(r->lru_pre);
	free(r->pcp_start);
	free(r->mig_expected);
	free(r->untraced_target);
	free(r->untraced_taken);
	free(r->section);
	for (int i = 0; r->ttouch && i < r->nr_tz; i++)
		free(r->ttouch[i]);
	free(r->ttouch);
	free(r->tz);
	free(r);
}

/*
 * opts.after: per zone, the model's free pages at the start plus what the
 * trace frees less what it allocates there, less what the kernel held free
 * at the end, less kcompactd's migrations (ps_compaction_migrate()): what
 * is left the kernel used with no event.
 */
static void untraced_targets(struct ps_replay *r)
{
	const struct ps_machine *a = r->o.after;

	if (!a || r->o.mode != PS_REPLAY_SIMULATE || r->last_ns <= r->first_ns)
		return;
	for (int zi = 0; zi < r->mm.nr_zones; zi++) {
		const struct ps_zone *z = &r->mm.zones[zi];
		int64_t end = (int64_t)z->nr_free_pages + (int64_t)z->nr_pcp_pages + r->net_pages[zi] -
			      r->mig_expected[zi], kernel;

		for (int i = 0; i < a->nr_zones; i++) {
			if (a->zones[i].node != z->node || a->zones[i].type != z->type)
				continue;
			kernel = rp_snapshot_free(a, &a->zones[i]);
			if (end > kernel) {
				r->untraced_target[zi] = end - kernel;
				r->untraced_on = 1;
			}
		}
	}
	if (r->untraced_on)
		ps_timer_arm(&r->timers, PS_TIMER_UNTRACED, 0, r->first_ns);
}

/* The pool of pages held with no event: room for every untraced page and migration target. */
static int isolated_pool(struct ps_replay *r, char *err, int len)
{
	uint64_t cap = r->mig_total;

	if (r->o.mode != PS_REPLAY_SIMULATE)
		return 0;
	for (int zi = 0; zi < r->mm.nr_zones; zi++)
		cap += (uint64_t)r->untraced_target[zi];
	return ps_isolated_init(&r->mm, cap, err, len);
}

/*
 * The model kswapd's speed: kswapd.reclaim_pages_per_ms when given, else
 * the recorded kswapd's (pass 1), else the default.  Node reclaim's:
 * node_reclaim.reclaim_pages_per_ms when given, else the recorded calls'
 * (pass 1), else the default.  The speeds are the machine's, so a replay
 * under another policy keeps them.
 */
static void reclaim_speeds(struct ps_replay *r)
{
	uint64_t pages, busy_ns;

	ps_kswapd_speed_sums(&r->kswapd_speed, &pages, &busy_ns);
	r->trace_kswapd_rate = ps_kswapd_speed_rate(pages, busy_ns);
	if (r->o.policy.kswapd_rate == PS_UNSET && r->trace_kswapd_rate > 0)
		r->mm.t.kswapd_rate = r->trace_kswapd_rate;
	r->trace_node_reclaim_rate = ps_node_reclaim_speed_rate(&r->node_reclaim_speed);
	if (r->o.policy.node_reclaim_rate == PS_UNSET && r->trace_node_reclaim_rate > 0)
		r->mm.t.node_reclaim_rate = r->trace_node_reclaim_rate;
	/* follow mode tracks boosts where ZONE_BELOW_HIGH reads them and the trace shows kswapd's runs end them */
	r->follow_boosts = r->o.mode == PS_REPLAY_FOLLOW && r->mm.kver >= PS_KVER(6, 7, 0) && (pages || busy_ns);
}

int ps_replay_start(struct ps_replay *r, char *err, int len)
{
	reclaim_speeds(r);
	/* vmstat_update: the first tick is armed at the first event */
	ps_timer_arm(&r->timers, PS_TIMER_VMSTAT, 0, 0);
	if (r->o.mode == PS_REPLAY_SIMULATE)
		ps_mm_writeback_start(&r->mm, r->first_ns);	/* the flusher's first periodic run */
	if (r->cross) {
		rp_build_cross(r);
		rp_free_pass1(r);
		for (int zi = 0; zi < r->mm.nr_zones; zi++)
			if (ps_zone_check(&r->mm.zones[zi], err, len) < 0)
				return -1;
		return isolated_pool(r, err, len);
	}
	for (int zi = 0; zi < r->mm.nr_zones; zi++)
		rp_build_zone(r, zi);
	if (r->o.mode == PS_REPLAY_SIMULATE)
		rp_seed_pcp_lists(r);
	rp_lru_start(r);
	untraced_targets(r);
	if (isolated_pool(r, err, len) < 0)
		return -1;
	if (r->map) {
		/*
		 * Pages allocated at the start map to themselves, and own
		 * themselves: the model's reclaim of one marks the trace's block
		 * reclaimed (rp_reclaimed), so that the trace's later free of it
		 * is absorbed rather than freeing the model's page a second time.
		 */
		for (int zi = 0; zi < r->mm.nr_zones; zi++) {
			const uint8_t *t = r->touch[zi];
			uint32_t n = r->mm.zones[zi].nr_pages;

			for (uint32_t i = ps_bytes_skip(t, 0, n, 0); i < n; i = ps_bytes_skip(t, i + 1, n, 0))
				if (T_CLASS(t[i]) == T_FREED) {
					uint64_t g = r->mm.gbase[zi] + i;

					r->map[g] = (uint32_t)(g + 1);
					r->owner[g] = (uint32_t)(g + 1);
				}
		}
	}
	rp_free_pass1(r);
	for (int zi = 0; zi < r->mm.nr_zones; zi++)
		if (ps_zone_check(&r->mm.zones[zi], err, len) < 0)
			return -1;
	return 0;
}

/*
 * vmstat_update on every CPU with work queued, at each whole second of trace
 * time (sysctl_stat_interval); the first tick is the whole second after the
 * first event.  At most 8 ticks run before one event: after a longer quiet
 * gap what was still queued has run, and the ticks start again from the
 * whole second after the event that ends the gap.
 */
static void vmstat_tick(struct ps_replay *r, uint64_t at, uint64_t now)
{
	static const uint64_t ns = VMSTAT_INTERVAL_NS;
	ps_vmstat_drain_fn drain = r->o.mode == PS_REPLAY_FOLLOW ? rp_follow_vmstat_drain : rp_sim_vmstat_drain;

	if (now != r->vm_burst_now) {
		r->vm_burst_now = now;
		r->vm_burst = 0;
	}
	if (!at || r->vm_burst == 8) {
		ps_timer_arm(&r->timers, PS_TIMER_VMSTAT, 0, now - now % ns + ns);
		return;
	}
	r->vm_burst++;
	ps_timer_arm(&r->timers, PS_TIMER_VMSTAT, 0, at + ns);
	if (r->o.ensemble_member && r->o.mode == PS_REPLAY_SIMULATE)
		ensemble_drift(r);
	ps_vmstat_fold_free(&r->mm);
	for (int c = 0; c < r->mm.nr_cpus; c++)
		if (r->mm.vm_queued[c]) {
			r->mm.vm_queued[c] = 0;
			ps_vmstat_refresh(&r->mm, c, at, drain, r);
		}
}

/* The timers due by @now, in the queue's order (timer.h). */
void rp_run_timers(struct ps_replay *r, uint64_t now)
{
	while (ps_timer_due(&r->timers, now)) {
		struct ps_timer t = ps_timer_pop(&r->timers);

		switch (t.cls) {
		case PS_TIMER_SAMPLE:
			rp_view_tick(r);
			break;
		case PS_TIMER_RECLAIM_LOCK:
			ps_node_reclaim_unlock(&r->mm, t.arg);
			break;
		case PS_TIMER_UNTRACED:
			rp_untraced_use(r, now);
			break;
		case PS_TIMER_VMSTAT:
			vmstat_tick(r, t.at, now);
			break;
		case PS_TIMER_KSWAPD:
			ps_kswapd_run(&r->mm, t.arg, now);
			break;
		case PS_TIMER_WRITEBACK:
			ps_mm_writeback(&r->mm, now);
			break;
		}
	}
}

static inline void simulate_event(struct ps_replay *r, const struct ps_event *ev)
{
	r->mm.now_ns = ev->ts_ns;
	if (ev->task == PS_TASK_KSWAPD && r->o.policy.kswapd_traced_cpu == 1)
		rp_kswapd_cpu(r, ev);
	if (ev->type == PS_EV_ALLOC || ev->type == PS_EV_FREE) {
		rp_simulate_alloc_free(r, ev);
	} else if (!ps_event_is_kmem(ev->type)) {
		/* the page-cache, LRU and reclaim events feed the model's lists; it reclaims on its own */
		rp_reclaim_event(r, ev);
		r->cnt.events[ev->type]++;
		r->cnt.have_reclaim_events = 1;	/* their events_ rows, as the timeline's columns */
	} else if (ev->type != PS_EV_EXTFRAG) {
		if (ev->type == PS_EV_ZONE_LOCKED || ev->type == PS_EV_PCPU_DRAIN)
			rp_trace_pcp_event(r, ev);
		r->cnt.events[ev->type]++;
	} else {
		rp_trace_fallback(r, ev);	/* the model makes its own */
	}
}

/* Tells the lock model the pages zone @zi holds on pcp lists, when they changed. */
static inline void report_pcp_pages(struct ps_replay *r, int zi, uint64_t t_ns)
{
	if (r->mm.zones[zi].nr_pcp_pages != r->last_pcp_pages[zi]) {
		r->last_pcp_pages[zi] = r->mm.zones[zi].nr_pcp_pages;
		ps_lock_pcp_pages(r->lock, zi, t_ns, r->mm.zones[zi].nr_pcp_pages);
	}
}

/*
 * One event.  @whole: follow mode counts it and gives it to the lock model
 * here (else the caller has, ps_replay_events: neither reads the rest).
 */
static inline __attribute__((always_inline)) int replay_event(struct ps_replay *r, const struct ps_event *ev,
								    char *err, int len, int whole)
{
	rp_clock(r, ev);
	if (__builtin_expect(r->view_each, 0))
		rp_view_before(r, ev);
	if (r->o.mode == PS_REPLAY_FOLLOW) {
		if (whole) {
			ps_lock_follow_event(r->lockf, ev);
			ps_counters_event(&r->cnt, ev);
		}
		rp_follow_event(r, ev);
	} else {
		simulate_event(r, ev);
		/*
		 * The pages held on pcp lists change only with the zones this
		 * event touched: those of pcp_changed (every zone beyond 64).
		 */
		uint64_t changed = r->mm.nr_zones <= 64 ? r->pcp_changed : ~0ull;

		r->pcp_changed = 0;
		for (; changed; changed &= changed - 1) {
			int zi = __builtin_ctzll(changed);

			if (zi >= r->mm.nr_zones)
				break;
			report_pcp_pages(r, zi, ev->ts_ns);
		}
		for (int zi = 64; zi < r->mm.nr_zones; zi++)
			report_pcp_pages(r, zi, ev->ts_ns);
	}
	if (__builtin_expect(r->view_each, 0))
		rp_view_after(r, ev);
	if (r->o.check) {
		for (int zi = 0; zi < r->mm.nr_zones; zi++)
			if (ps_zone_check(&r->mm.zones[zi], err, len) < 0)
				return -1;
	}
	return 0;
}

int ps_replay_event(struct ps_replay *r, const struct ps_event *ev, char *err, int len)
{
	return replay_event(r, ev, err, len, 1);
}

int ps_replay_events(struct ps_replay *r, const struct ps_event *evs, int n, char *err, int len, int *failed)
{
	int i = 0, j;

	if (__builtin_expect(r->view && !r->view_each, 0)) {
		/* a timeline counts the trace's own a run at a time (rp_view_run) */
		while (i < n) {
			if (replay_event(r, &evs[i], err, len, 1) < 0)
				goto bad;
			for (j = rp_view_run(r, evs, i, n), i++; i < j; i++)
				if (replay_event(r, &evs[i], err, len, 1) < 0)
					goto bad;
		}
		return 0;
	}
	if (r->o.mode == PS_REPLAY_FOLLOW && !r->view) {
		/* the lock model's and the counters' loops apart (a view counts each event itself): each keeps its own code and branches hot */
		ps_lock_follow_events(r->lockf, evs, n);
		ps_counters_batch(&r->cnt, evs, n);
		if (!r->view_each && !r->o.check) {
			/* replay_event() less what cannot happen here */
			rp_follow_events(r, evs, n);
			return 0;
		}
		for (; i < n; i++)
			if (replay_event(r, &evs[i], err, len, 0) < 0)
				goto bad;
		return 0;
	}
	for (; i < n; i++)
		if (replay_event(r, &evs[i], err, len, 1) < 0)
			goto bad;
	return 0;
bad:
	*failed = i;
	return -1;
}
