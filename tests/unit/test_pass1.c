// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_pass1.c - the pass-1 summary (sim/replay/summary.c): on a made-up
 * trace of every kind of event pass 1 reads (blocks of each order, aligned
 * or not, fallbacks, pcp-type evidence, drains, page-cache deletes inside
 * and outside reclaim windows, kswapd's and kcompactd's frees, pfns outside
 * the zones, kswapd's wakes and shrinks), a replay whose pass 1 comes from
 * the summary counts what a replay of two passes counts (kswapd's measured
 * speed included), in both modes and under profiles with
 * either extfrag rule; a damaged summary is refused, one of other zones or
 * another version is not used.  The pages pass 1 finds on a per-CPU list
 * start on their CPU's list under pcp.snapshot_lists=1, from the summary
 * as from the trace.  argv[1]: the source root.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/kvfile.h"
#include "lib/machine.h"
#include "sim/replay/engine.h"
#include "sim/replay/replay.h"
#include "sim/replay/summary.h"
#include "trace/sysroot.h"
#include "check.h"

#define NR_EVS 60000
#define PID_KSWAPD 77
#define PID_KCOMPACTD 88
#define PID_NAMED 99

static struct ps_event evs[NR_EVS];
static int nr_evs;

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

static int task_of(void *ctx, int32_t pid, const char **comm)
{
	(void)ctx;
	*comm = pid == PID_KSWAPD ? "kswapd0" : pid == PID_KCOMPACTD ? "kcompactd0" : pid == PID_NAMED ? "dd" : NULL;
	return pid == PID_KSWAPD ? PS_TASK_KSWAPD : pid == PID_KCOMPACTD ? PS_TASK_KCOMPACTD : PS_TASK_OTHER;
}

/* A made-up trace over @m's zones. */
static void make_trace(const struct ps_machine *m)
{
	static const int32_t pids[] = { 1, PID_KSWAPD, PID_KCOMPACTD, PID_NAMED, -1 };
	uint64_t ts = 1000;
	uint16_t nr_cpu = 0;
	int32_t nr_pid = 1;

	for (nr_evs = 0; nr_evs < NR_EVS; nr_evs++) {
		struct ps_event *e = &evs[nr_evs];
		const struct ps_zone_desc *d = &m->zones[next() % m->nr_zones];
		uint32_t k = next() % 100;

		memset(e, 0, sizeof(*e));
		e->ts_ns = ts += 1 + next() % 5000;
		e->cpu = (uint16_t)(next() % 4);
		e->pid = pids[next() % 5];
		e->migratetype = (int8_t)(next() % 4) - 1;
		e->alloc_migratetype = e->fallback_migratetype = PS_MT_UNKNOWN;
		e->order = k < 70 ? 0 : (uint8_t)(next() % 11);	/* orders a reader yields: 0 to MAX_ORDER */
		/* a part of the span, so that pages recur; some pfns outside every zone */
		e->pfn = d->start_pfn + next() % (d->spanned < 20000 ? d->spanned : 20000);
		if (next() % 2)
			e->pfn &= ~((1ull << (e->order % 11)) - 1);
		if (k == 99)
			e->pfn = 1ull << 40;
		if (next() % 500 == 0)
			e->pfn = PS_PFN_NONE;
		k = next() % 100;
		e->type = k < 35 ? PS_EV_ALLOC : k < 70 ? PS_EV_FREE : k < 80 ? PS_EV_ZONE_LOCKED : k < 85 ? PS_EV_PCPU_DRAIN :
			  k < 87 ? PS_EV_FREE_BATCHED : k < 89 ? PS_EV_EXTFRAG : k < 94 ? PS_EV_PC_DEL :
			  k < 95 ? PS_EV_PC_ADD : k < 96 ? PS_EV_LRU_ADD : k < 97 ? PS_EV_DIRECT_BEGIN :
			  k < 98 ? PS_EV_DIRECT_END : next() % 4 ? PS_EV_SHRINK_INACTIVE : PS_EV_KSWAPD_WAKE;
		if (e->type == PS_EV_EXTFRAG) {
			e->alloc_order = (uint8_t)(next() % 4);
			e->fallback_order = (uint8_t)(next() % 11);
			e->alloc_migratetype = (int8_t)(next() % 3);
			e->fallback_migratetype = (int8_t)(next() % 3);
			e->change_ownership = next() % 2;
		}
		if (e->type == PS_EV_PC_DEL && next() % 2)
			e->order = 0;
		if (e->type == PS_EV_DIRECT_BEGIN || e->type == PS_EV_DIRECT_END)
			e->pfn = PS_PFN_NONE;
		/* half of them node reclaims, each end its begin's task on its CPU */
		if ((e->type == PS_EV_DIRECT_BEGIN || e->type == PS_EV_DIRECT_END) && next() % 2) {
			e->type = e->type == PS_EV_DIRECT_BEGIN ? PS_EV_NODE_RECLAIM_BEGIN : PS_EV_NODE_RECLAIM_END;
			if (e->type == PS_EV_NODE_RECLAIM_BEGIN) {
				nr_cpu = e->cpu;
				nr_pid = e->pid;
			} else {
				e->cpu = nr_cpu;
				e->pid = nr_pid;
				e->x.rc.nr_reclaimed = next() % 40;
			}
		}
		if (e->type == PS_EV_KSWAPD_WAKE) {
			e->pfn = PS_PFN_NONE;
			e->pid = PID_KSWAPD + (int32_t)(next() % 2);	/* node 1's kswapd: another pid */
			e->x.ks.nid = (int16_t)(e->pid - PID_KSWAPD);
			e->x.ks.zid = 2;
		}
		if (e->type == PS_EV_SHRINK_INACTIVE) {
			e->pfn = PS_PFN_NONE;
			e->x.rc.nid = (int16_t)(next() % 2);
			if (next() % 2)
				e->pid = PID_KSWAPD + e->x.rc.nid;
			e->x.rc.nr_scanned = 32;
			e->x.rc.nr_reclaimed = next() % 33;
		}
	}
}

/* kswapd's speed: its runs from wake to its last shrink, other tasks' shrinks left out */
static void test_kswapd_speed(void)
{
	static const struct {
		int type, pid, nid;
		uint64_t ms;
		uint32_t pages;
	} seq[] = {
		{ PS_EV_SHRINK_INACTIVE, 50, 0, 1, 999 },	/* before node 0's first wake */
		{ PS_EV_KSWAPD_WAKE, 50, 0, 10, 0 },
		{ PS_EV_SHRINK_INACTIVE, 50, 0, 12, 400 },
		{ PS_EV_SHRINK_INACTIVE, 7, 0, 13, 999 },	/* a direct reclaimer's */
		{ PS_EV_SHRINK_INACTIVE, 50, 0, 20, 600 },	/* run 1: 10 ms, 1,000 pages */
		{ PS_EV_KSWAPD_WAKE, 51, 1, 30, 0 },
		{ PS_EV_SHRINK_INACTIVE, 51, 1, 35, 500 },	/* run 2, node 1, still open: 5 ms */
		{ PS_EV_KSWAPD_WAKE, 50, 0, 40, 0 },		/* run 3 scans nothing: no time */
		{ PS_EV_KSWAPD_WAKE, 50, 0, 50, 0 },
		{ PS_EV_SHRINK_INACTIVE, 50, 0, 55, 500 },	/* run 4, open: 5 ms */
	};
	struct ps_kswapd_speed k;
	uint64_t pages, busy;

	memset(&k, 0, sizeof(k));
	for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		struct ps_event e = { 0 };

		e.type = seq[i].type;
		e.pid = seq[i].pid;
		e.ts_ns = seq[i].ms * 1000000;
		if (e.type == PS_EV_KSWAPD_WAKE)
			e.x.ks.nid = (int16_t)seq[i].nid;
		else
			e.x.rc.nid = (int16_t)seq[i].nid, e.x.rc.nr_reclaimed = seq[i].pages;
		ps_kswapd_speed_event(&k, &e);
	}
	ps_kswapd_speed_sums(&k, &pages, &busy);
	CHECK_EQ(pages, 2000);
	CHECK_EQ(busy, 20000000);
	CHECK_EQ(ps_kswapd_speed_rate(pages, busy), 100);
	CHECK_EQ(ps_kswapd_speed_rate(999, 1000000), 0);	/* too few pages to measure */
	CHECK_EQ(ps_kswapd_speed_rate(3000, 0), 0);
	CHECK_EQ(ps_kswapd_speed_rate(1000, 3000000), 333);
}

/* node reclaim's speed: the median call's ns per page, a call timed from its task's begin on its CPU */
static void test_node_reclaim_speed(void)
{
	static const struct {
		int type, pid, cpu;
		uint64_t us;
		uint32_t pages;
	} seq[] = {
		{ PS_EV_NODE_RECLAIM_END, 9, 0, 5, 32 },	/* no begin seen */
		{ PS_EV_NODE_RECLAIM_BEGIN, 9, 0, 10, 0 },
		{ PS_EV_NODE_RECLAIM_BEGIN, 8, 1, 20, 0 },
		{ PS_EV_NODE_RECLAIM_END, 8, 0, 30, 32 },	/* another task's end on CPU 0 */
		{ PS_EV_NODE_RECLAIM_END, 9, 0, 330, 32 },	/* 320 us for 32 pages: 10 us a page */
		{ PS_EV_NODE_RECLAIM_END, 8, 1, 120, 0 },	/* reclaimed nothing: not timed */
	};
	struct ps_node_reclaim_speed *k = calloc(1, sizeof(*k));

	CHECK(k != NULL);
	for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		struct ps_event e = { 0 };

		e.type = seq[i].type;
		e.pid = seq[i].pid;
		e.cpu = (uint16_t)seq[i].cpu;
		e.ts_ns = seq[i].us * 1000;
		e.x.rc.nr_reclaimed = seq[i].pages;
		ps_node_reclaim_speed_event(k, &e);
	}
	CHECK_EQ(k->calls, 1);
	CHECK_EQ(k->ns_per_page[10000 / PS_NODE_RECLAIM_BIN_NS], 1);
	CHECK_EQ(ps_node_reclaim_speed_rate(k), 0);	/* too few calls to measure */
	CHECK_EQ(ps_node_reclaim_speed_mean(k), 0);
	/* 20 calls more: 11 at 5 us a page, 9 at 50 us; the median is 5 us, the middle of its bin */
	for (int i = 0; i < 20; i++) {
		struct ps_event b = { .type = PS_EV_NODE_RECLAIM_BEGIN, .pid = 9, .cpu = 2, .ts_ns = 1000000 * (uint64_t)(i + 1) };
		struct ps_event e = b;

		e.type = PS_EV_NODE_RECLAIM_END;
		e.ts_ns += i < 11 ? 160000 : 1600000;
		e.x.rc.nr_reclaimed = 32;
		ps_node_reclaim_speed_event(k, &b);
		ps_node_reclaim_speed_event(k, &e);
	}
	CHECK_EQ(k->calls, 21);
	CHECK_EQ(ps_node_reclaim_speed_rate(k), 199);	/* bin 78: 4,992 to 5,056 ns, 5,024 a page */
	/* their sums: 672 pages in 320 + 11 * 160 + 9 * 1,600 us = 16.48 ms */
	CHECK_EQ(k->pages, 672);
	CHECK_EQ(k->busy_ns, 16480000);
	CHECK_EQ(ps_node_reclaim_speed_mean(k), 41);
	free(k);
}

/* The events as a reader gives them with (@comm) or without task names. */
static void name_tasks(int comm)
{
	for (int i = 0; i < nr_evs; i++) {
		evs[i].comm = NULL;
		evs[i].task = comm ? (uint8_t)task_of(NULL, evs[i].pid, &evs[i].comm) : PS_TASK_OTHER;
	}
}

static long lists_key;	/* pcp.snapshot_lists of the replays replay_new() makes */

static struct ps_replay *replay_new(const struct ps_machine *m, const struct ps_machine *traced, int mode,
				    const char *prof)
{
	static struct ps_replay_opts o;
	char err[256];
	struct ps_replay *r;

	memset(&o, 0, sizeof(o));
	o.mode = mode;
	o.profile = ps_profile_by_name(prof);
	o.traced = traced;
	ps_policy_init(&o.policy);
	ps_policy_init(&o.recorded);
	if (lists_key)
		o.policy.pcp_snapshot_lists = lists_key;
	for (int c = 0; c < PS_MAX_CPUS; c++)
		o.cpu_node_map[c] = -1;
	ps_lock_params_init(&o.lock);
	r = ps_replay_create(m, &o, err, sizeof(err));
	if (!r)
		fprintf(stderr, "ps_replay_create: %s\n", err);
	return r;
}

/* Start and pass 2 of @r (tasks named), its counters into @kv. */
static int finish(struct ps_replay *r, struct ps_kv *kv)
{
	char err[256];

	if (ps_replay_start(r, err, sizeof(err)) < 0) {
		fprintf(stderr, "ps_replay_start: %s\n", err);
		return -1;
	}
	name_tasks(1);
	for (int i = 0; i < nr_evs; i++)
		if (ps_replay_event(r, &evs[i], err, sizeof(err)) < 0) {
			fprintf(stderr, "ps_replay_event %d: %s\n", i, err);
			return -1;
		}
	ps_kv_init(kv);
	return ps_replay_counters(r, kv);
}

/* Whether the two replays of @m (model) on @traced count alike. */
static void compare(const struct ps_machine *m, const struct ps_machine *traced, int mode, const char *prof,
		    const void *blob, size_t len)
{
	struct ps_replay *a = replay_new(m, traced, mode, prof), *b = replay_new(m, traced, mode, prof);
	int with_comm = mode == PS_REPLAY_SIMULATE, differ = 0;
	struct ps_kv ka, kb;
	uint64_t events = 0;

	CHECK(a && b);
	if (!a || !b)
		return;
	name_tasks(with_comm);
	ps_replay_prepass(a, evs, nr_evs);
	CHECK_EQ(ps_replay_prepass_summary(b, blob, len, with_comm, task_of, NULL, &events), 1);
	CHECK_EQ(events, nr_evs);
	CHECK_EQ(finish(a, &ka), 0);
	CHECK_EQ(finish(b, &kb), 0);
	CHECK_EQ(ka.nr, kb.nr);
	if (mode == PS_REPLAY_SIMULATE) {
		const struct ps_kv_item *it = ps_kv_get(&ka, "trace_kswapd_reclaim_pages_per_ms");

		CHECK(it && it->value > 0);	/* the made-up trace's kswapd is measured */
		it = ps_kv_get(&ka, "trace_node_reclaim_pages_per_ms");
		CHECK(it && it->value > 0);	/* and its node reclaims */
		it = ps_kv_get(&ka, "replay_initial_pcp_pages");
		CHECK(!lists_key || (it && it->value > 0));	/* lists seeded */
	}
	for (int i = 0; i < ka.nr && i < kb.nr; i++)
		if (strcmp(ka.items[i].name, kb.items[i].name) || ka.items[i].value != kb.items[i].value) {
			if (differ++ < 5)
				fprintf(stderr, "%s %s: %s %lld against %s %lld\n", mode ? "simulate" : "follow", prof,
					ka.items[i].name, (long long)ka.items[i].value, kb.items[i].name,
					(long long)kb.items[i].value);
		}
	CHECK_EQ(differ, 0);
	ps_kv_free(&ka);
	ps_kv_free(&kb);
	ps_replay_destroy(a);
	ps_replay_destroy(b);
}

/* Whether the head @idx is on list @l of @z. */
static int listed(const struct ps_zone *z, const struct ps_list *l, uint32_t idx)
{
	for (uint32_t b = l->head; b != PS_NIL; b = z->next[b])
		if (b == idx)
			return 1;
	return 0;
}

/*
 * pcp.snapshot_lists=1: a page the trace first hands out with no zone_locked,
 * or first drains, starts on the list of the CPU whose event showed it, of
 * its pageblock's type.  Without the key they start in the buddy, as a page
 * first taken by a zone_locked does.  With @full_cpu's snapshot count 0 in
 * the zone, the page its event showed stays in the buddy: a CPU's lists
 * hold no more than the snapshot counts.
 */
static void test_pcp_start(const struct ps_machine *m, int full_cpu)
{
	const struct ps_zone_desc *d = NULL;
	int zi;

	for (zi = 0; zi < m->nr_zones; zi++)
		if (m->zones[zi].node == 0 && m->zones[zi].type == PS_ZONE_NORMAL) {
			d = &m->zones[zi];
			break;
		}
	CHECK(d != NULL);
	if (!d)
		return;
	for (int lists = 0; lists <= 1; lists++) {
		struct ps_replay *r = replay_new(m, NULL, PS_REPLAY_SIMULATE, "6.1");
		static const int type[3] = { PS_EV_ALLOC, PS_EV_PCPU_DRAIN, PS_EV_ZONE_LOCKED };
		static const uint16_t cpu[3] = { 1, 0, 1 };
		struct ps_event ev[3];
		uint32_t idx[3];
		char err[256];

		CHECK(r != NULL);
		if (!r)
			return;
		r->o.policy.pcp_snapshot_lists = lists;
		for (int i = 0; i < 3; i++) {
			memset(&ev[i], 0, sizeof(ev[i]));
			ev[i].ts_ns = 1000 + 1000 * (uint64_t)i;
			ev[i].type = (uint8_t)type[i];
			ev[i].cpu = cpu[i];
			ev[i].pid = 1;
			ev[i].pfn = d->start_pfn + d->spanned / 2 + 1024 * (uint64_t)i + 3;
			ev[i].migratetype = PS_MT_MOVABLE;
			ev[i].alloc_migratetype = ev[i].fallback_migratetype = PS_MT_UNKNOWN;
			idx[i] = (uint32_t)(ev[i].pfn - d->start_pfn);
		}
		ps_replay_prepass(r, ev, 3);
		CHECK_EQ(r->nr_pcp_start, 2);
		CHECK_EQ(ps_replay_start(r, err, sizeof(err)), 0);
		{
			const struct ps_zone *z = &r->mm.zones[zi];
			int nc = r->mm.nr_cpus;

			/* the zone_locked page: in the buddy, where the seeding up to the snapshot's counts may take it */
			for (int i = 0; i < 3 - lists; i++) {
				const struct ps_pcp *pcp = &r->mm.pcps[(size_t)zi * nc + cpu[i]];
				int on = i < 2 && lists;

				if (on && cpu[i] == full_cpu) {
					CHECK_EQ(pcp->count, 0);	/* nothing seeded past the count */
					CHECK(!listed(z, &pcp->lists[ps_pcp_index(z, 0, ps_pageblock_mt(z, idx[i]))], idx[i]));
					continue;
				}
				CHECK_EQ(PG_KIND(z->state[idx[i]]), on ? PG_PCP : PG_FREE);
				CHECK_EQ(listed(z, &pcp->lists[ps_pcp_index(z, 0, ps_pageblock_mt(z, idx[i]))], idx[i]),
					 on);
			}
		}
		ps_replay_destroy(r);
	}
}

int main(int argc, char **argv)
{
	static struct ps_machine m, other, no_room;
	int found_room = 0;
	struct ps_error err = { { 0 } };
	struct ps_pass1_summary *s;
	struct ps_replay *r;
	char path[4096];
	uint8_t *blob, *bad;
	uint64_t events;
	size_t len;

	if (argc < 2)
		return 2;
	test_kswapd_speed();
	test_node_reclaim_speed();
	snprintf(path, sizeof(path), "%s/testdata/numa2/numa2-base/before", argv[1]);
	CHECK_EQ(ps_sysroot_load_machine(path, &m, &err), 0);
	snprintf(path, sizeof(path), "%s/testdata/numa4/numa4-base/before", argv[1]);
	CHECK_EQ(ps_sysroot_load_machine(path, &other, &err), 0);
	if (check_fail)
		CHECK_DONE();
	test_pcp_start(&m, -1);
	/* node 0's Normal zone with no room on CPU 1's lists (the snapshot gave it some) */
	no_room = m;
	for (int i = 0; i < no_room.nr_pcp_seed; i++) {
		struct ps_pcp_seed *sd = &no_room.pcp_seed[i];

		if (sd->node == 0 && sd->type == PS_ZONE_NORMAL && sd->cpu == 1 && sd->count > 0) {
			sd->count = 0;
			found_room = 1;
		}
	}
	CHECK(found_room);
	test_pcp_start(&no_room, 1);
	make_trace(&m);

	s = ps_pass1_summary_create(&m);
	CHECK(s != NULL);
	name_tasks(0);	/* the writer sees no task names: the summary must not need them */
	for (int i = 0; i < nr_evs; i++)
		ps_pass1_summary_event(s, &evs[i]);
	blob = ps_pass1_summary_finish(s, &len);
	ps_pass1_summary_free(s);
	CHECK(blob != NULL);
	if (!blob)
		CHECK_DONE();
	/* it keeps only a part of the trace */
	{
		uint32_t nz = blob[36] | blob[37] << 8, np = blob[40] | blob[41] << 8;
		size_t kept = (len - PS_PASS1_HDR - nz * PS_PASS1_ZONE - np * (16 + 8 * (size_t)nz) - 8) / PS_PASS1_REC;

		CHECK(kept > 0 && kept < (size_t)nr_evs / 2);
	}

	for (int mode = PS_REPLAY_FOLLOW; mode <= PS_REPLAY_SIMULATE; mode++) {
		compare(&m, NULL, mode, "4.4", blob, len);
		compare(&m, NULL, mode, "6.10", blob, len);
		compare(&m, NULL, mode, "6.18", blob, len);
	}
	/* the per-CPU lists started from the blocks pass 1 finds listed, with their CPUs */
	lists_key = 1;
	compare(&m, NULL, PS_REPLAY_SIMULATE, "6.10", blob, len);
	lists_key = 0;
	/* another machine's model, the trace's own traced zones */
	compare(&other, &m, PS_REPLAY_SIMULATE, "5.10", blob, len);

	/* refused: cut, damaged counts, unknown event types; not used: other zones, another version */
	r = replay_new(&m, NULL, PS_REPLAY_SIMULATE, "5.10");
	CHECK(r != NULL);
	if (r) {
		CHECK_EQ(ps_replay_prepass_summary(r, blob, len - 1, 1, task_of, NULL, &events), -1);
		CHECK_EQ(ps_replay_prepass_summary(r, blob, 20, 1, task_of, NULL, &events), -1);
		bad = malloc(len);
		memcpy(bad, blob, len);
		bad[40] ^= 0x40;	/* the pid count */
		CHECK_EQ(ps_replay_prepass_summary(r, bad, len, 1, task_of, NULL, &events), -1);
		memcpy(bad, blob, len);
		bad[len - PS_PASS1_REC + 14] = PS_EV_NR;
		CHECK_EQ(ps_replay_prepass_summary(r, bad, len, 1, task_of, NULL, &events), -1);
		memcpy(bad, blob, len);
		bad[len - PS_PASS1_REC + 18] = PS_MAX_PAGE_ORDER + 1;	/* a fallback order a reader never yields */
		CHECK_EQ(ps_replay_prepass_summary(r, bad, len, 1, task_of, NULL, &events), -1);
		memcpy(bad, blob, len);
		bad[len - PS_PASS1_REC + 16] = 0x7f;	/* a migratetype past the named ones */
		CHECK_EQ(ps_replay_prepass_summary(r, bad, len, 1, task_of, NULL, &events), -1);
		memcpy(bad, blob, len);
		bad[0] = 'X';
		CHECK_EQ(ps_replay_prepass_summary(r, bad, len, 1, task_of, NULL, &events), -1);
		memcpy(bad, blob, len);
		bad[4] = PS_PASS1_VERSION + 1;
		CHECK_EQ(ps_replay_prepass_summary(r, bad, len, 1, task_of, NULL, &events), 0);
		memcpy(bad, blob, len);
		bad[PS_PASS1_HDR + 8] ^= 1;	/* zone 0 one page longer or shorter */
		CHECK_EQ(ps_replay_prepass_summary(r, bad, len, 1, task_of, NULL, &events), 0);
		free(bad);
		ps_replay_destroy(r);
	}
	r = replay_new(&other, NULL, PS_REPLAY_SIMULATE, "5.10");
	CHECK(r != NULL);
	if (r) {
		CHECK_EQ(ps_replay_prepass_summary(r, blob, len, 1, task_of, NULL, &events), 0);
		ps_replay_destroy(r);
	}
	free(blob);
	CHECK_DONE();
}
