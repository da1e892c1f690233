// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * summary.c - a pass-1 summary, built as a trace is written to a pagesim
 * file, so that replay reads the file once (prepass.c loads it).
 *
 * Pass 1 (prepass.c) learns two kinds of thing from the trace: sums over
 * every event (first and last time, each zone's net use, kcompactd's
 * order-0 frees, whether tasks are named, whether LRU events occur), and
 * per-page and per-pageblock facts that only some events decide: the
 * first event of every page, the first pcp-type evidence of every
 * pageblock, the fallbacks, the reclaim windows, the highest page shown in
 * each zone.  The summary holds the sums and the subsequence of events
 * that can decide a fact in any mode or profile: pass 1 over that
 * subsequence leaves what pass 1 over the whole trace leaves.
 *
 * Simplified: an event is kept when it could decide a fact under some
 * variant, so the subsequence is a superset of what any one replay needs
 * (every fallback, every reclaim window, every page-cache delete of a page
 * no kmem event showed before).  The sums that depend on a task's name
 * are kept per pid and resolved when the file is read, with the file's
 * own pid -> comm table (the one the reader names tasks from).  The
 * summary describes the zones of the machine it was built for; a replay on
 * other zones reads the trace twice.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/le.h"
#include "sim/replay/replay.h"
#include "sim/replay/summary.h"

struct sum_zone {
	uint64_t base, nr_pages, span_end;	/* span_end: relative to base */
	int pageblock_order;
	int64_t net_pages;
	uint64_t present;		/* the highest end (within the span) an event showed */
	uint64_t *seen;			/* a bit per page: some kmem event showed it */
	uint8_t *pb_seen;		/* a byte per pageblock: a pcp-type zone_locked or drain seen */
};

struct sum_pid {
	int32_t pid;
	uint32_t in_zone;		/* a kmem event with a pfn in a zone */
	uint64_t free0;			/* order-0 frees with a pfn (kcompactd's if its comm says so) */
	uint64_t *free0_zone;		/* [zone] the same in each zone */
};

struct ps_pass1_summary {
	struct ps_zone_table zt;	/* pfn -> zone of the machine (which outlives the summary) */
	int nr_zones;
	struct sum_zone z[PS_MAX_ZONES];
	uint64_t nr_events, first_ns, last_ns;
	int lru_events, failed;
	struct ps_kswapd_speed ks;
	struct ps_node_reclaim_speed nrs;
	/* pids: open addressing on pid, slot+1 in hash, records in pids */
	uint32_t *hash, hash_cap;
	struct sum_pid *pids;
	uint32_t nr_pids, pids_cap;
	int32_t last_pid;
	uint32_t last_slot;
	/* the kept events, PS_PASS1_REC bytes each */
	uint8_t *ev;
	size_t nr_ev, ev_cap;
};

/* Node @n's run so far: from its wake to its last shrink, 0 with none. */
static uint64_t run_ns(const struct ps_kswapd_speed *k, int n)
{
	return k->wake_ns[n] && k->last_ns[n] > k->wake_ns[n] ? k->last_ns[n] - k->wake_ns[n] : 0;
}

void ps_kswapd_speed_event(struct ps_kswapd_speed *k, const struct ps_event *ev)
{
	int n;

	if (ev->type == PS_EV_KSWAPD_WAKE) {
		n = ev->x.ks.nid;
		if (n < 0 || n >= PS_MAX_NODES)
			return;
		k->busy_ns += run_ns(k, n);
		k->pid[n] = ev->pid;
		k->wake_ns[n] = ev->ts_ns ? ev->ts_ns : 1;
		k->last_ns[n] = 0;
	} else if (ev->type == PS_EV_SHRINK_INACTIVE) {
		n = ev->x.rc.nid;
		if (n < 0 || n >= PS_MAX_NODES || !k->wake_ns[n] || ev->pid != k->pid[n] ||
		    ev->ts_ns < k->wake_ns[n])
			return;		/* another task's reclaim, or before the node's first wake */
		k->pages += ev->x.rc.nr_reclaimed;
		k->last_ns[n] = ev->ts_ns;
	}
}

void ps_kswapd_speed_sums(const struct ps_kswapd_speed *k, uint64_t *pages, uint64_t *busy_ns)
{
	*pages = k->pages;
	*busy_ns = k->busy_ns;
	for (int n = 0; n < PS_MAX_NODES; n++)
		*busy_ns += run_ns(k, n);
}

long ps_kswapd_speed_rate(uint64_t pages, uint64_t busy_ns)
{
	uint64_t rate;

	if (pages < PS_KSWAPD_SPEED_MIN_PAGES || !busy_ns || pages > UINT64_MAX / 1000000)
		return 0;
	rate = (pages * 1000000 + busy_ns / 2) / busy_ns;
	return rate < 1 ? 1 : rate > (uint64_t)PS_KSWAPD_RATE_MAX ? PS_KSWAPD_RATE_MAX : (long)rate;
}

void ps_node_reclaim_speed_event(struct ps_node_reclaim_speed *k, const struct ps_event *ev)
{
	uint64_t per_page;

	if (ev->cpu >= PS_MAX_CPUS)
		return;
	if (ev->type == PS_EV_NODE_RECLAIM_BEGIN) {
		k->pid[ev->cpu] = ev->pid;
		k->begin_ns[ev->cpu] = ev->ts_ns ? ev->ts_ns : 1;
	} else if (ev->type == PS_EV_NODE_RECLAIM_END) {
		if (!k->begin_ns[ev->cpu] || k->pid[ev->cpu] != ev->pid || ev->ts_ns < k->begin_ns[ev->cpu])
			return;		/* no begin of its own seen */
		if (ev->x.rc.nr_reclaimed) {
			per_page = (ev->ts_ns - k->begin_ns[ev->cpu]) / ev->x.rc.nr_reclaimed / PS_NODE_RECLAIM_BIN_NS;
			k->ns_per_page[per_page < PS_NODE_RECLAIM_BINS ? per_page : PS_NODE_RECLAIM_BINS - 1]++;
			k->calls++;
			k->pages += ev->x.rc.nr_reclaimed;
			k->busy_ns += ev->ts_ns - k->begin_ns[ev->cpu];
		}
		k->begin_ns[ev->cpu] = 0;
	}
}

long ps_node_reclaim_speed_rate(const struct ps_node_reclaim_speed *k)
{
	uint64_t seen = 0, ns;
	int i;

	if (k->calls < PS_NODE_RECLAIM_SPEED_MIN_CALLS)
		return 0;
	for (i = 0; i < PS_NODE_RECLAIM_BINS - 1; i++) {
		seen += k->ns_per_page[i];
		if (2 * seen > k->calls)
			break;
	}
	ns = (uint64_t)i * PS_NODE_RECLAIM_BIN_NS + PS_NODE_RECLAIM_BIN_NS / 2;	/* the bin's middle */
	return (long)((1000000 + ns / 2) / ns);
}

long ps_node_reclaim_speed_mean(const struct ps_node_reclaim_speed *k)
{
	if (k->calls < PS_NODE_RECLAIM_SPEED_MIN_CALLS || !k->busy_ns || k->pages > UINT64_MAX / 1000000)
		return 0;
	return (long)((k->pages * 1000000 + k->busy_ns / 2) / k->busy_ns);
}

struct ps_pass1_summary *ps_pass1_summary_create(const struct ps_machine *m)
{
	struct ps_pass1_summary *s;

	if (m->nr_zones <= 0 || m->nr_zones > PS_MAX_ZONES || m->pageblock_order < 1 ||
	    m->pageblock_order > PS_MAX_PAGE_ORDER)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->nr_zones = m->nr_zones;
	ps_zone_table_init(&s->zt, m);
	for (int i = 0; i < m->nr_zones; i++) {
		const struct ps_zone_desc *d = &m->zones[i];
		struct sum_zone *z = &s->z[i];
		uint64_t end;

		ps_zone_desc_blocks(d, &z->base, &end);
		z->nr_pages = end - z->base;
		z->span_end = d->start_pfn + d->spanned - z->base;
		z->pageblock_order = m->pageblock_order;
		if (z->nr_pages >= PS_NIL || !(z->seen = calloc((z->nr_pages + 63) / 64, 8)) ||
		    !(z->pb_seen = calloc((z->nr_pages >> z->pageblock_order) + 1, 1))) {
			ps_pass1_summary_free(s);
			return NULL;
		}
	}
	s->last_pid = INT32_MIN;
	return s;
}

void ps_pass1_summary_free(struct ps_pass1_summary *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->nr_zones; i++) {
		free(s->z[i].seen);
		free(s->z[i].pb_seen);
	}
	for (uint32_t i = 0; i < s->nr_pids; i++)
		free(s->pids[i].free0_zone);
	free(s->pids);
	free(s->hash);
	free(s->ev);
	free(s);
}

static uint32_t pid_hash(int32_t pid, uint32_t cap)
{
	return ((uint32_t)pid * 2654435761u) & (cap - 1);
}

static int pid_grow(struct ps_pass1_summary *s)
{
	uint32_t cap = s->hash_cap ? 2 * s->hash_cap : 1024, *h = calloc(cap, sizeof(*h));

	if (!h)
		return -1;
	for (uint32_t i = 0; i < s->nr_pids; i++) {
		uint32_t k = pid_hash(s->pids[i].pid, cap);

		while (h[k])
			k = (k + 1) & (cap - 1);
		h[k] = i + 1;
	}
	free(s->hash);
	s->hash = h;
	s->hash_cap = cap;
	return 0;
}

/* The record of @pid, or NULL out of memory. */
static struct sum_pid *pid_of(struct ps_pass1_summary *s, int32_t pid)
{
	uint32_t k;

	if (pid == s->last_pid)
		return &s->pids[s->last_slot];
	if (2 * (s->nr_pids + 1) > s->hash_cap && pid_grow(s) < 0)
		return NULL;
	for (k = pid_hash(pid, s->hash_cap); s->hash[k]; k = (k + 1) & (s->hash_cap - 1))
		if (s->pids[s->hash[k] - 1].pid == pid)
			break;
	if (!s->hash[k]) {
		struct sum_pid *p;

		if (s->nr_pids == s->pids_cap) {
			uint32_t cap = s->pids_cap ? 2 * s->pids_cap : 256;

			p = realloc(s->pids, cap * sizeof(*p));
			if (!p)
				return NULL;
			s->pids = p;
			s->pids_cap = cap;
		}
		p = &s->pids[s->nr_pids];
		*p = (struct sum_pid){ .pid = pid, .free0_zone = calloc(s->nr_zones, sizeof(uint64_t)) };
		if (!p->free0_zone)
			return NULL;
		s->hash[k] = ++s->nr_pids;
	}
	s->last_pid = pid;
	s->last_slot = s->hash[k] - 1;
	return &s->pids[s->last_slot];
}

static void keep(struct ps_pass1_summary *s, const struct ps_event *ev)
{
	uint8_t *p;

	if (s->nr_ev == s->ev_cap) {
		size_t cap = s->ev_cap ? 2 * s->ev_cap : 4096;

		if (cap > (256u << 20) / PS_PASS1_REC || !(p = realloc(s->ev, cap * PS_PASS1_REC))) {
			s->failed = 1;
			return;
		}
		s->ev = p;
		s->ev_cap = cap;
	}
	p = s->ev + s->nr_ev++ * PS_PASS1_REC;
	ps_le_put64(p, ev->pfn);
	ps_le_put32(p + 8, (uint32_t)ev->pid);
	p[12] = (uint8_t)ev->cpu;
	p[13] = (uint8_t)(ev->cpu >> 8);
	p[14] = ev->type;
	p[15] = ev->order;
	p[16] = (uint8_t)ev->migratetype;
	p[17] = ev->alloc_order;
	p[18] = ev->fallback_order;
	p[19] = (uint8_t)ev->alloc_migratetype;
	p[20] = (uint8_t)ev->fallback_migratetype;
	p[21] = ev->change_ownership;
	p[22] = p[23] = 0;
}

/* Marks the pages [idx, idx + n) of @z shown; whether one of them was not yet. */
static int show(struct sum_zone *z, uint32_t idx, uint32_t n)
{
	int fresh = 0;

	for (uint32_t i = idx; i < idx + n; i++) {
		uint64_t bit = 1ull << (i % 64);

		fresh |= !(z->seen[i / 64] & bit);
		z->seen[i / 64] |= bit;
	}
	return fresh;
}

void ps_pass1_summary_event(struct ps_pass1_summary *s, const struct ps_event *ev)
{
	struct sum_zone *z;
	struct sum_pid *p;
	uint32_t idx, n;
	int zi, order = ev->order, take = 0;

	if (s->failed)
		return;
	if (!s->nr_events++)
		s->first_ns = ev->ts_ns ? ev->ts_ns : 1;
	s->last_ns = ev->ts_ns;
	if (!ps_event_is_kmem(ev->type)) {
		s->lru_events |= ev->type == PS_EV_PC_ADD || ev->type == PS_EV_LRU_ADD;
		ps_kswapd_speed_event(&s->ks, ev);
		ps_node_reclaim_speed_event(&s->nrs, ev);
		switch (ev->type) {
		case PS_EV_DIRECT_BEGIN:
		case PS_EV_NODE_RECLAIM_BEGIN:
		case PS_EV_DIRECT_END:
		case PS_EV_NODE_RECLAIM_END:
			keep(s, ev);	/* the reclaim windows */
			return;
		case PS_EV_PC_DEL:
			/* simulate mode's pages from before the trace that the kernel reclaimed */
			if (ev->pfn == PS_PFN_NONE || ev->order != 0 || (zi = ps_zone_table_lookup(&s->zt, ev->pfn)) < 0)
				return;
			z = &s->z[zi];
			idx = (uint32_t)(ev->pfn - z->base);
			if (!(z->seen[idx / 64] & 1ull << (idx % 64)))
				keep(s, ev);
			return;
		default:
			return;
		}
	}
	if (ev->pfn == PS_PFN_NONE || ev->type == PS_EV_FREE_BATCHED)
		return;
	zi = ps_zone_table_lookup(&s->zt, ev->pfn);
	if (!(p = pid_of(s, ev->pid))) {
		s->failed = 1;
		return;
	}
	if (ev->type == PS_EV_FREE && order == 0) {
		p->free0++;
		if (zi >= 0)
			p->free0_zone[zi]++;
	}
	if (zi < 0)
		return;
	p->in_zone = 1;
	z = &s->z[zi];
	idx = (uint32_t)(ev->pfn - z->base);
	if (ev->type == PS_EV_EXTFRAG) {
		keep(s, ev);	/* pageblock ownership, and follow mode's takes under some profiles */
		return;
	}
	if ((ev->type == PS_EV_ALLOC || ev->type == PS_EV_FREE) && order < PS_NR_PAGE_ORDERS)
		z->net_pages += ev->type == PS_EV_FREE ? (int64_t)1 << order : -((int64_t)1 << order);
	if (ev->type != PS_EV_ALLOC && ev->type != PS_EV_FREE && ev->type != PS_EV_ZONE_LOCKED &&
	    ev->type != PS_EV_PCPU_DRAIN)
		return;
	if ((ev->type == PS_EV_ZONE_LOCKED || ev->type == PS_EV_PCPU_DRAIN) && ev->migratetype >= 0 &&
	    ev->migratetype < PS_MIGRATE_PCPTYPES && !z->pb_seen[idx >> z->pageblock_order]) {
		z->pb_seen[idx >> z->pageblock_order] = 1;
		take = 1;
	}
	if (order >= PS_NR_PAGE_ORDERS || (idx & ((1u << order) - 1)))
		order = 0;
	n = 1u << order;
	if (idx + n > z->nr_pages)
		n = (uint32_t)(z->nr_pages - idx);
	take |= show(z, idx, n);
	if (idx + n > z->present && idx + n <= z->span_end) {
		z->present = idx + n;
		take = 1;
	}
	if (take)
		keep(s, ev);
}

void *ps_pass1_summary_finish(struct ps_pass1_summary *s, size_t *len)
{
	size_t hdr = PS_PASS1_HDR + (size_t)s->nr_zones * PS_PASS1_ZONE;
	size_t pidlen = (size_t)s->nr_pids * (16 + 8 * (size_t)s->nr_zones);
	size_t total = hdr + pidlen + 8 + s->nr_ev * PS_PASS1_REC;
	uint64_t ks_pages, ks_busy;
	uint8_t *b, *p;

	if (s->failed || total > (256u << 20) || !(b = calloc(1, total)))
		return NULL;
	memcpy(b, PS_PASS1_MAGIC, 4);
	ps_le_put32(b + 4, PS_PASS1_VERSION);
	ps_le_put64(b + 8, s->nr_events);
	ps_le_put64(b + 16, s->first_ns);
	ps_le_put64(b + 24, s->last_ns);
	ps_le_put32(b + 32, (uint32_t)s->lru_events);
	ps_le_put32(b + 36, (uint32_t)s->nr_zones);
	ps_le_put32(b + 40, s->nr_pids);
	ps_kswapd_speed_sums(&s->ks, &ks_pages, &ks_busy);
	ps_le_put64(b + 48, ks_pages);
	ps_le_put64(b + 56, ks_busy);
	ps_le_put64(b + 64, s->nrs.calls);
	ps_le_put64(b + 72, s->nrs.pages);
	ps_le_put64(b + 80, s->nrs.busy_ns);
	for (int i = 0; i < PS_NODE_RECLAIM_BINS; i++)
		ps_le_put32(b + 88 + 4 * i, s->nrs.ns_per_page[i]);
	p = b + PS_PASS1_HDR;
	for (int i = 0; i < s->nr_zones; i++, p += PS_PASS1_ZONE) {
		ps_le_put64(p, s->z[i].base);
		ps_le_put64(p + 8, s->z[i].nr_pages);
		ps_le_put32(p + 16, (uint32_t)s->z[i].pageblock_order);
		ps_le_put64(p + 24, (uint64_t)s->z[i].net_pages);
	}
	for (uint32_t i = 0; i < s->nr_pids; i++) {
		ps_le_put32(p, (uint32_t)s->pids[i].pid);
		ps_le_put32(p + 4, s->pids[i].in_zone);
		ps_le_put64(p + 8, s->pids[i].free0);
		p += 16;
		for (int zi = 0; zi < s->nr_zones; zi++, p += 8)
			ps_le_put64(p, s->pids[i].free0_zone[zi]);
	}
	ps_le_put64(p, s->nr_ev);
	if (s->nr_ev)
		memcpy(p + 8, s->ev, s->nr_ev * PS_PASS1_REC);
	*len = total;
	return b;
}
