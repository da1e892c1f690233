// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_lock.c - the zone-lock queue (exact waits, FIFO order, no wait
 * without overlap, carried delays), the cache-line rule on hand-built access
 * sequences, the 3.17 and 4.0 layouts, long page runs and sections, the
 * pages held on pcp lists, and the follow-mode grouping (its short path
 * and deferred clock, and the lock model's shortcut for a section alone in
 * time, against their plain paths on random streams).
 */
#include <string.h>

#include "lib/rng.h"
#include "sim/mm/lock.h"
#include "sim/replay/lock_sections.h"
#include "check.h"

static struct ps_lock *make(const char *layout, uint64_t acq, uint64_t page, int carry)
{
	struct ps_lock_params p;
	struct ps_error err;

	ps_lock_params_init(&p);
	p.acquire_ns = acq;
	p.page_ns = page;
	p.carry = carry;
	ps_zone_layout_builtin(&p.layout, layout);
	return ps_lock_create(&p, 2, 4, &err);
}

static void sect(struct ps_lock *lk, int cpu, uint64_t t, int nr, int cause)
{
	struct ps_lock_sect s = { .t_ns = t, .t_last_ns = t, .zone = 0, .cpu = cpu, .nr = nr, .order = 0,
				  .mt = PS_MT_MOVABLE, .cause = cause };

	ps_lock_submit(lk, &s);
}

static void test_overlap(void)
{
	struct ps_lock *lk = make("4.0", 100, 10, 1);
	struct ps_lock_zone_stats st;

	sect(lk, 0, 1000, 10, PS_LOCK_REFILL);	/* holds 1000..1200 */
	sect(lk, 1, 1050, 5, PS_LOCK_DRAIN);	/* arrives 1050, waits 150, holds 1200..1350 */
	ps_lock_finish(lk);
	ps_lock_stats(lk, 0, &st);
	CHECK_EQ(ps_lock_total(st.acquisitions), 2);
	CHECK_EQ(ps_lock_total(st.contended), 1);
	CHECK_EQ(st.contended[PS_LOCK_DRAIN], 1);
	CHECK_EQ(ps_lock_total(st.wait_ns), 150);
	CHECK_EQ(st.wait_ns[PS_LOCK_DRAIN], 150);
	CHECK_EQ(ps_lock_total(st.hold_ns), 200 + 150);
	ps_lock_stats(lk, 1, &st);
	CHECK_EQ(ps_lock_total(st.acquisitions), 0);
	ps_lock_destroy(lk);
}

static void test_no_overlap(void)
{
	struct ps_lock *lk = make("4.0", 100, 10, 1);
	struct ps_lock_zone_stats st;
	struct ps_lock_served rec[8];
	int n;

	ps_lock_record(lk, rec, 8, &n);
	sect(lk, 0, 1000, 10, PS_LOCK_REFILL);	/* 1000..1200 */
	sect(lk, 1, 1200, 10, PS_LOCK_REFILL);	/* free exactly then */
	sect(lk, 2, 5000, 0, PS_LOCK_DIRECT_FREE);
	ps_lock_finish(lk);
	ps_lock_stats(lk, 0, &st);
	CHECK_EQ(ps_lock_total(st.acquisitions), 3);
	CHECK_EQ(ps_lock_total(st.contended), 0);
	CHECK_EQ(ps_lock_total(st.wait_ns), 0);
	CHECK_EQ(n, 3);
	CHECK_EQ(rec[1].start, 1200);
	CHECK_EQ(rec[2].start, 5000);
	ps_lock_destroy(lk);
}

static void test_fifo(void)
{
	struct ps_lock *lk = make("4.0", 100, 10, 1);
	struct ps_lock_zone_stats st;
	struct ps_lock_served rec[8];
	int n;

	ps_lock_record(lk, rec, 8, &n);
	sect(lk, 0, 1000, 10, PS_LOCK_REFILL);	/* 1000..1200 */
	sect(lk, 1, 1100, 0, PS_LOCK_REFILL);	/* waits 100: 1200..1300; CPU 1 now 100 ns late */
	sect(lk, 1, 1150, 0, PS_LOCK_REFILL);	/* reaches the lock at max(1150 + 100, 1300) = 1300 */
	sect(lk, 2, 1250, 0, PS_LOCK_REFILL);	/* reaches it at 1250: before CPU 1's second section */
	ps_lock_finish(lk);
	CHECK_EQ(n, 4);
	CHECK_EQ(rec[0].cpu, 0);
	CHECK_EQ(rec[1].cpu, 1);
	CHECK_EQ(rec[2].cpu, 2);	/* FIFO by arrival, not by submission */
	CHECK_EQ(rec[2].arrival, 1250);
	CHECK_EQ(rec[2].start, 1300);
	CHECK_EQ(rec[3].cpu, 1);
	CHECK_EQ(rec[3].arrival, 1300);
	CHECK_EQ(rec[3].start, 1400);
	ps_lock_stats(lk, 0, &st);
	CHECK_EQ(ps_lock_total(st.wait_ns), 100 + 50 + 100);
	CHECK_EQ(ps_lock_total(st.contended), 3);
	ps_lock_destroy(lk);

	/* without carry, CPU 1's second section arrives at max(1150, 1300): same here; a later one is not late */
	lk = make("4.0", 100, 10, 0);
	ps_lock_record(lk, rec, 8, &n);
	sect(lk, 0, 1000, 10, PS_LOCK_REFILL);
	sect(lk, 1, 1100, 0, PS_LOCK_REFILL);	/* waits 100 */
	sect(lk, 1, 2000, 0, PS_LOCK_REFILL);	/* carry 0: at 2000; carry 1 would be 2100 */
	ps_lock_finish(lk);
	CHECK_EQ(n, 3);
	CHECK_EQ(rec[2].arrival, 2000);
	ps_lock_destroy(lk);
	lk = make("4.0", 100, 10, 1);
	ps_lock_record(lk, rec, 8, &n);
	sect(lk, 0, 1000, 10, PS_LOCK_REFILL);
	sect(lk, 1, 1100, 0, PS_LOCK_REFILL);
	sect(lk, 1, 2000, 0, PS_LOCK_REFILL);
	ps_lock_finish(lk);
	CHECK_EQ(rec[2].arrival, 2100);
	ps_lock_destroy(lk);
}

static void test_cl_rule(void)
{
	struct ps_cl *cl = ps_cl_create(2, 4);

	CHECK_EQ(ps_cl_access(cl, 0, 5, 0, 1, 0), 0);	/* never written */
	CHECK_EQ(ps_cl_access(cl, 0, 5, 1, 0, 1), 1);	/* written by CPU 0 */
	CHECK_EQ(ps_cl_access(cl, 0, 5, 1, 0, 1), 0);	/* valid copy */
	CHECK_EQ(ps_cl_access(cl, 0, 5, 0, 1, 0), 0);	/* its own line: an invalidation only */
	CHECK_EQ(ps_cl_access(cl, 0, 5, 1, 0, 1), 1);
	CHECK_EQ(ps_cl_access(cl, 0, 5, 1, 1, 1), 0);	/* had a valid copy */
	CHECK_EQ(ps_cl_access(cl, 0, 5, 0, 0, 0), 1);
	CHECK_EQ(ps_cl_access(cl, 1, 5, 2, 0, 0), 0);	/* other zone: other line */
	CHECK_EQ(ps_cl_transfers(cl, 0, 0), 1);
	CHECK_EQ(ps_cl_transfers(cl, 0, 1), 2);
	/* a spinner re-reads after every store by another CPU */
	ps_cl_spin_begin(cl, 0, 9, 3, 2);		/* line 9 never written: no transfer */
	CHECK_EQ(ps_cl_access(cl, 0, 9, 0, 1, 0), 1);	/* CPU 0's store; CPU 3 re-reads */
	CHECK_EQ(ps_cl_access(cl, 0, 9, 0, 1, 0), 1);
	CHECK_EQ(ps_cl_access(cl, 0, 8, 0, 1, 0), 0);	/* another line: the spinner does not care */
	CHECK_EQ(ps_cl_access(cl, 0, 9, 3, 1, 2), 0);	/* the spinner's own store */
	CHECK_EQ(ps_cl_transfers(cl, 0, 2), 2);
	ps_cl_spin_end(cl, 0, 3);
	CHECK_EQ(ps_cl_access(cl, 0, 9, 0, 1, 0), 1);	/* CPU 0 fetches CPU 3's line; nobody spins */
	CHECK_EQ(ps_cl_transfers(cl, 0, 2), 2);
	ps_cl_destroy(cl);
}

/* ps_cl_access_quiet() is ps_cl_access() one line after another, on 1 and on 2 words of CPUs */
static void test_cl_quiet(void)
{
	for (int nr_cpus = 4; nr_cpus <= 100; nr_cpus += 96) {
		struct ps_cl *a = ps_cl_create(2, nr_cpus), *b = ps_cl_create(2, nr_cpus);
		uint64_t x = 12345;

		for (int k = 0; k < 2000; k++) {
			struct ps_cl_use use[7];
			int n = 1 + (int)(x % 7), zone = (int)((x >> 8) % 2), cpu = (int)((x >> 16) % (uint64_t)nr_cpus),
			    tag = (int)((x >> 24) % 3);

			for (int i = 0; i < n; i++) {
				x = x * 6364136223846793005ull + 1442695040888963407ull;
				use[i] = (struct ps_cl_use){ (int)((x >> 33) % 6), (int)((x >> 40) & 1) };
				ps_cl_access(a, zone, use[i].line, cpu, use[i].write, tag);
			}
			ps_cl_access_quiet(b, zone, cpu, tag, use, n);
			x = x * 6364136223846793005ull + 1442695040888963407ull;
		}
		for (int z = 0; z < 2; z++)
			for (int t = 0; t < 3; t++) {
				CHECK_EQ(ps_cl_transfers(a, z, t), ps_cl_transfers(b, z, t));
				CHECK(ps_cl_transfers(a, z, t) > 0);
			}
		ps_cl_destroy(a);
		ps_cl_destroy(b);
	}
}

static void test_layouts(void)
{
	struct ps_zone_layout a, b;
	struct ps_error err;

	CHECK_EQ(ps_zone_layout_builtin(&a, "3.17"), 0);
	CHECK_EQ(ps_zone_layout_builtin(&b, "4.0"), 0);
	CHECK_EQ(ps_zone_layout_builtin(&b, "3.99"), -1);
	ps_zone_layout_builtin(&b, "4.0");
	CHECK_EQ(ps_zone_layout_check(&a, &err), 0);
	CHECK_EQ(ps_zone_layout_check(&b, &err), 0);
	/* 3.17: the order-0 lists of the pcp types share the lock's line; nr_free does not */
	for (int mt = 0; mt < 3; mt++)
		CHECK_EQ(ps_zone_layout_line(&a, PS_ZF_FREE_LIST, 0, mt), ps_zone_layout_line(&a, PS_ZF_LOCK, 0, 0));
	CHECK(ps_zone_layout_line(&a, PS_ZF_NR_FREE, 0, 0) != ps_zone_layout_line(&a, PS_ZF_LOCK, 0, 0));
	/* 4.0: nothing of free_area shares the lock's line */
	for (int o = 0; o < PS_NR_PAGE_ORDERS; o++) {
		for (int mt = 0; mt < 6; mt++)
			CHECK(ps_zone_layout_line(&b, PS_ZF_FREE_LIST, o, mt) != ps_zone_layout_line(&b, PS_ZF_LOCK, 0, 0));
		CHECK(ps_zone_layout_line(&b, PS_ZF_NR_FREE, o, 0) != ps_zone_layout_line(&b, PS_ZF_LOCK, 0, 0));
	}
	/* keys and errors */
	CHECK_EQ(ps_zone_layout_set(&b, "lock.offset", "200", "t", &err), 0);
	CHECK_EQ(ps_zone_layout_check(&b, &err), -1);	/* overlaps free_area */
	CHECK(strstr(err.msg, "overlaps") != NULL);
	CHECK_EQ(ps_zone_layout_set(&b, "lock.offset", "x", "t", &err), -1);
	CHECK_EQ(ps_zone_layout_set(&b, "nonsense", "1", "t", &err), 1);
	CHECK_EQ(ps_zone_layout_set(&b, "base", "3.17", "t", &err), 0);
	CHECK_EQ(b.lock_offset, a.lock_offset);
}

/*
 * Two CPUs, one contended handoff, hand-counted (docs/lock-model.md, access
 * pattern).  acquire 100 ns, 10 ns per block; CPU 0 refills 4 blocks at
 * 1000 (holds 1000..1140), CPU 1 refills 4 at 1050 (waits until 1140).
 * 4.0: CPU 1's ticket fetches the lock line (1); CPU 0's unlock fetches it
 * back (1) and CPU 1 re-reads it (1); CPU 1 then fetches the order-0 list,
 * nr_free and vm_stat lines CPU 0 wrote (3): 6.
 * 3.17: ticket (1); CPU 0's first list store fetches the lock line back (1);
 * CPU 1 re-reads after each of CPU 0's 4 list stores and the unlock (5);
 * CPU 1's list stores hit the line it holds; nr_free and vm_stat (2): 9.
 */
static uint64_t two_cpu_blocks_transfers(const char *layout, uint64_t t1, int blocks)
{
	struct ps_lock *lk = make(layout, 100, 10, 1);
	struct ps_lock_zone_stats st;
	uint64_t n;

	sect(lk, 0, 1000, blocks, PS_LOCK_REFILL);
	sect(lk, 1, t1, 4, PS_LOCK_REFILL);
	ps_lock_finish(lk);
	ps_lock_stats(lk, 0, &st);
	n = ps_lock_total(st.transfers);
	ps_lock_destroy(lk);
	return n;
}

static uint64_t two_cpu_transfers(const char *layout, uint64_t t1)
{
	return two_cpu_blocks_transfers(layout, t1, 4);
}

static void test_section_transfers(void)
{
	CHECK_EQ(two_cpu_transfers("4.0", 1050), 6);
	CHECK_EQ(two_cpu_transfers("3.17", 1050), 9);
	/*
	 * Uncontended handoff (CPU 1 at 2000): 4.0 fetches vm_stat (watermark
	 * check), the lock, the list and nr_free lines: 4; 3.17 gets the list
	 * head with the lock line: 3 (what 3484b2de9499 was for).
	 */
	CHECK_EQ(two_cpu_transfers("4.0", 2000), 4);
	CHECK_EQ(two_cpu_transfers("3.17", 2000), 3);
	/*
	 * A run of 1,000 blocks: on 4.0 CPU 0's further list and nr_free
	 * stores move nothing (CPU 1 spins on the lock line): 6 still; on 3.17
	 * CPU 1 re-reads after each of them: 1,000 + 5.
	 */
	CHECK_EQ(two_cpu_blocks_transfers("4.0", 1050, 1000), 6);
	CHECK_EQ(two_cpu_blocks_transfers("3.17", 1050, 1000), 1005);
}

/* A section of more blocks than 16 bits count (a long drain run): served whole, and the model ends. */
static void test_long_section(void)
{
	struct ps_lock *lk = make("4.0", 100, 10, 1);
	struct ps_lock_zone_stats st;

	sect(lk, 0, 1000, 40000, PS_LOCK_DRAIN);
	sect(lk, 1, 1050, 4, PS_LOCK_REFILL);
	ps_lock_finish(lk);
	ps_lock_stats(lk, 0, &st);
	CHECK_EQ(st.blocks, 40004);
	CHECK_EQ(ps_lock_total(st.hold_ns), 100 + 40000 * 10 + 100 + 4 * 10);
	CHECK_EQ(st.contended[PS_LOCK_REFILL], 1);
	ps_lock_destroy(lk);
}

/* The pages held on pcp lists: an exact time integral; an earlier time counts as the latest. */
static void test_pcp_held(void)
{
	struct ps_pcp_held h;

	memset(&h, 0, sizeof(h));
	ps_pcp_held_set(&h, 10, 5);
	ps_pcp_held_set(&h, 20, 7);
	ps_pcp_held_set(&h, 15, 1);
	ps_pcp_held_set(&h, 40, 0);
	CHECK_EQ((uint64_t)h.area, 5 * 10 + 1 * 20);
	CHECK_EQ(h.max, 7);
	CHECK_EQ(h.first_t, 10);
	CHECK_EQ(h.last_t, 40);
	/* 2^40 pages for 2^40 ns: beyond 64 bits, and exact */
	memset(&h, 0, sizeof(h));
	ps_pcp_held_set(&h, 0, 1ull << 40);
	ps_pcp_held_set(&h, 1ull << 40, 1);
	ps_pcp_held_set(&h, (1ull << 40) + 1, 0);
	CHECK(h.area == ((ps_pcp_area_t)1 << 80) + 1);
}

static void test_follow_grouping(void)
{
	struct ps_machine m;
	struct ps_lock_params p;
	struct ps_lock *lk;
	struct ps_lock_follow *f;
	struct ps_lock_follow_stats fs;
	struct ps_lock_zone_stats st;
	struct ps_error err;
	const struct ps_profile *prof = ps_profile_by_name("6.1");
	struct ps_event evs[] = {
		/* CPU 0: a refill of 3 with a fallback inside, ended by its mm_page_alloc */
		{ .ts_ns = 100, .pfn = 0x1000, .cpu = 0, .type = PS_EV_ZONE_LOCKED, .percpu_refill = 1, .migratetype = 1 },
		{ .ts_ns = 110, .pfn = 0x1001, .cpu = 0, .type = PS_EV_ZONE_LOCKED, .percpu_refill = 1, .migratetype = 1 },
		/* CPU 1 interleaves: a drain of 2 */
		{ .ts_ns = 115, .pfn = 0x2000, .cpu = 1, .type = PS_EV_FREE, .order = 0 },
		{ .ts_ns = 116, .pfn = 0x3000, .cpu = 1, .type = PS_EV_PCPU_DRAIN, .order = 0 },
		{ .ts_ns = 120, .pfn = 0x1100, .cpu = 0, .type = PS_EV_EXTFRAG },
		{ .ts_ns = 121, .pfn = 0x1100, .cpu = 0, .type = PS_EV_ZONE_LOCKED, .percpu_refill = 1, .migratetype = 1 },
		{ .ts_ns = 122, .pfn = 0x3001, .cpu = 1, .type = PS_EV_PCPU_DRAIN, .order = 0 },
		{ .ts_ns = 130, .pfn = 0x1000, .cpu = 0, .type = PS_EV_ALLOC, .order = 0 },
		/* CPU 0: a second refill right after, two direct allocs, a direct free of order 4 */
		{ .ts_ns = 140, .pfn = 0x1200, .cpu = 0, .type = PS_EV_ZONE_LOCKED, .percpu_refill = 1 },
		{ .ts_ns = 141, .pfn = 0x1200, .cpu = 0, .type = PS_EV_ALLOC },
		{ .ts_ns = 150, .pfn = 0x1400, .cpu = 0, .type = PS_EV_ZONE_LOCKED, .order = 4 },
		{ .ts_ns = 151, .pfn = 0x1500, .cpu = 0, .type = PS_EV_ZONE_LOCKED, .order = 4 },
		{ .ts_ns = 160, .pfn = 0x1600, .cpu = 1, .type = PS_EV_FREE, .order = 4 },
		{ .ts_ns = 161, .pfn = 0x1610, .cpu = 1, .type = PS_EV_FREE, .order = 3 },	/* pcp order in 6.1 */
		{ .ts_ns = 170, .pfn = 0x900000, .cpu = 1, .type = PS_EV_FREE, .order = 5 },	/* no zone */
	};

	ps_machine_init(&m);
	m.nr_cpus = 2;
	m.nr_zones = 1;
	m.zones[0].node = 0;
	m.zones[0].type = PS_ZONE_NORMAL;
	m.zones[0].start_pfn = 0x1000;
	m.zones[0].spanned = m.zones[0].present = m.zones[0].managed = 0x10000;
	ps_lock_params_init(&p);
	lk = ps_lock_create(&p, 1, 2, &err);
	f = ps_lock_follow_create(lk, &m, prof, 9);
	CHECK(f != NULL);
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++)
		ps_lock_follow_event(f, &evs[i]);
	ps_lock_follow_finish(f);
	ps_lock_follow_stats(f, &fs);
	CHECK_EQ(fs.sections[PS_LOCK_FALLBACK], 1);
	CHECK_EQ(fs.sections[PS_LOCK_REFILL], 1);
	CHECK_EQ(fs.sections[PS_LOCK_DRAIN], 1);
	CHECK_EQ(fs.sections[PS_LOCK_DIRECT_ALLOC], 2);
	CHECK_EQ(fs.sections[PS_LOCK_DIRECT_FREE], 1);
	CHECK_EQ(fs.outside_zones, 1);
	ps_lock_stats(lk, 0, &st);
	CHECK_EQ(ps_lock_total(st.acquisitions), 6);
	CHECK_EQ(st.blocks, 3 + 2 + 1 + 2 + 1);
	/* the fallback refill starts at its first event (100) and the drain at 116: they overlap */
	CHECK_EQ(st.contended[PS_LOCK_DRAIN], 1);
	ps_lock_follow_destroy(f);
	ps_lock_destroy(lk);
}

/*
 * 40,000 sections of 8 blocks reach the lock at one time (a coarse trace
 * clock): far more accesses wait than the access queue holds.  The queue
 * runs its earliest early (zone_lock_forced) and stays within its bounds;
 * every section and block is still counted, the same on every run.
 */
static uint64_t full_queue_run(uint64_t *forced, int queue_cap, int ring_cap)
{
	struct ps_lock_params p;
	struct ps_error err;
	struct ps_lock *lk;
	struct ps_lock_zone_stats st;
	const struct ps_kv_item *it;
	struct ps_kv kv;
	uint64_t transfers;

	ps_lock_params_init(&p);
	p.acquire_ns = 100;
	p.page_ns = 10;
	p.queue_cap = queue_cap;
	p.ring_cap = ring_cap;
	lk = ps_lock_create(&p, 2, 4, &err);
	for (int i = 0; i < 40000; i++)
		sect(lk, i % 4, 1000, 8, PS_LOCK_REFILL);
	ps_lock_finish(lk);
	ps_lock_stats(lk, 0, &st);
	CHECK_EQ(ps_lock_total(st.acquisitions), 40000);
	CHECK_EQ(st.blocks, 320000);
	CHECK_EQ(ps_lock_total(st.hold_ns), 40000ull * (100 + 8 * 10));
	transfers = ps_lock_total(st.transfers);
	CHECK(transfers > 0);
	ps_kv_init(&kv);
	CHECK_EQ(ps_lock_counters(lk, NULL, &kv), 0);
	it = ps_kv_get(&kv, "zone_lock_forced");
	CHECK(it && it->value > 0);
	*forced = it ? (uint64_t)it->value : 0;
	ps_kv_free(&kv);
	ps_lock_destroy(lk);
	return transfers;
}

static void test_full_queue(void)
{
	uint64_t f1, f2, f3;

	CHECK_EQ(full_queue_run(&f1, 0, 0), full_queue_run(&f2, 0, 0));
	CHECK_EQ(f1, f2);
	/* the smallest queues: every push runs the earliest access, every submission serves one */
	full_queue_run(&f3, 8, 1);
	CHECK(f3 > f1);
}

/*
 * The follow grouper's short path and deferred clock, and the lock model's
 * sections alone in time, against their plain paths (every event through
 * the grouping, the model advanced per event, every access through the heap):
 * random event streams of every kind on 4 CPUs and 2 zones, with idle gaps
 * past the 1 ms that stops a run holding the clock, same-time events,
 * times that step back, pfns outside the zones, small queues that force
 * early service, both layouts and a zero page cost.  Every counter and
 * the grouper's statistics must agree.
 */
static void follow_run(uint64_t seed, int plain, const char *layout, uint64_t page_ns, int queue_cap,
		       struct ps_kv *kv, struct ps_lock_follow_stats *fs, uint64_t *alone)
{
	static const int types[] = { PS_EV_ALLOC, PS_EV_ALLOC, PS_EV_FREE, PS_EV_FREE, PS_EV_FREE_BATCHED,
				     PS_EV_ZONE_LOCKED, PS_EV_ZONE_LOCKED, PS_EV_PCPU_DRAIN, PS_EV_PCPU_DRAIN,
				     PS_EV_EXTFRAG };
	static const int orders[] = { 0, 0, 0, 1, 3, 4, 9, 10 };
	struct ps_machine m;
	struct ps_lock_params p;
	struct ps_error err;
	struct ps_lock *lk;
	struct ps_lock_follow *f;
	struct ps_rng g;
	uint64_t t = 1000;

	ps_machine_init(&m);
	m.nr_cpus = 4;
	m.nr_zones = 2;
	for (int z = 0; z < 2; z++) {
		m.zones[z].node = z;
		m.zones[z].type = PS_ZONE_NORMAL;
		m.zones[z].start_pfn = 0x10000 + (uint64_t)z * 0x10000;
		m.zones[z].spanned = m.zones[z].present = m.zones[z].managed = 0x10000;
	}
	ps_lock_params_init(&p);
	p.acquire_ns = 100;
	p.page_ns = page_ns;
	p.queue_cap = queue_cap;
	ps_zone_layout_builtin(&p.layout, layout);
	lk = ps_lock_create(&p, 2, 4, &err);
	f = ps_lock_follow_create(lk, &m, ps_profile_by_name("6.1"), 9);
	CHECK(lk && f);
	if (!lk || !f)
		return;
	ps_lock_follow_set_plain(f, plain);
	ps_lock_set_plain(lk, plain);
	ps_rng_seed(&g, seed);
	for (int i = 0; i < 20000; i++) {
		struct ps_event ev = { 0 };
		uint64_t r = ps_rng_next(&g);

		switch (r % 16) {
		case 0:
			t += 1500000 + ps_rng_below(&g, 1000000);	/* idle: runs go stale */
			break;
		case 1:
			break;						/* same time */
		case 2:
			t -= t > 2000 ? ps_rng_below(&g, 2000) : 0;	/* a step back */
			break;
		case 3:
			if (ps_rng_below(&g, 8) == 0 && t > 3000000)
				t -= 1000000 + ps_rng_below(&g, 1000000);	/* far back: stale runs count again */
			break;
		default:
			t += ps_rng_below(&g, 400);
		}
		ev.ts_ns = t;
		ev.cpu = (uint16_t)ps_rng_below(&g, 5);		/* CPU 4 lies beyond the machine */
		ev.type = types[ps_rng_below(&g, sizeof(types) / sizeof(types[0]))];
		ev.order = orders[ps_rng_below(&g, sizeof(orders) / sizeof(orders[0]))];
		ev.migratetype = (int)ps_rng_below(&g, 3);
		ev.pfn = 0x10000 + ps_rng_below(&g, 0x20000);
		if (ps_rng_below(&g, 50) == 0)
			ev.pfn = ps_rng_below(&g, 2) ? PS_PFN_NONE : 0x900000;
		ev.percpu_refill = ev.type == PS_EV_ZONE_LOCKED && ps_rng_below(&g, 4) != 0;
		ps_lock_follow_event(f, &ev);
	}
	ps_lock_follow_finish(f);
	ps_lock_follow_stats(f, fs);
	*alone = ps_lock_alone(lk);
	ps_kv_init(kv);
	CHECK_EQ(ps_lock_counters(lk, &m, kv), 0);
	ps_lock_follow_destroy(f);
	ps_lock_destroy(lk);
}

static void test_follow_plain(void)
{
	static const struct {
		const char *layout;
		uint64_t page_ns;
		int queue_cap;
	} cfg[] = { { "4.0", 10, 0 }, { "3.17", 10, 0 }, { "4.0", 0, 0 }, { "4.0", 10, 8 }, { "3.17", 50, 16 } };

	for (size_t c = 0; c < sizeof(cfg) / sizeof(cfg[0]); c++) {
		for (uint64_t seed = 1; seed <= 4; seed++) {
			struct ps_kv a, b;
			struct ps_lock_follow_stats fa, fb;
			uint64_t alone_a, alone_b;
			int same = 1;

			follow_run(seed, 1, cfg[c].layout, cfg[c].page_ns, cfg[c].queue_cap, &a, &fa, &alone_a);
			follow_run(seed, 0, cfg[c].layout, cfg[c].page_ns, cfg[c].queue_cap, &b, &fb, &alone_b);
			/* the plain path sends every access through the heap; the fast one runs sections alone in time at once */
			CHECK_EQ(alone_a, 0);
			CHECK(cfg[c].page_ns ? alone_b > 100 : alone_b == 0);
			CHECK_EQ(a.nr, b.nr);
			for (int i = 0; i < a.nr && i < b.nr; i++) {
				/*
				 * With a small access queue the plain path's pushes fill it and
				 * run accesses early (zone_lock_forced) where a section alone
				 * in time queues none: fewer forced, in the same order.
				 */
				int forced = !strcmp(a.items[i].name, "zone_lock_forced") && cfg[c].queue_cap;

				if (forced && !strcmp(b.items[i].name, a.items[i].name) && b.items[i].value <= a.items[i].value)
					continue;
				if (strcmp(a.items[i].name, b.items[i].name) || a.items[i].value != b.items[i].value) {
					fprintf(stderr, "%s page_ns %llu queue %d seed %llu: %s %lld against %s %lld\n",
						cfg[c].layout, (unsigned long long)cfg[c].page_ns, cfg[c].queue_cap,
						(unsigned long long)seed, a.items[i].name, (long long)a.items[i].value,
						b.items[i].name, (long long)b.items[i].value);
					same = 0;
					break;
				}
			}
			CHECK(same);
			CHECK(memcmp(&fa, &fb, sizeof(fa)) == 0);
			/* the streams reach what the paths differ on */
			CHECK(fa.sections[PS_LOCK_REFILL] > 100 && fa.sections[PS_LOCK_DRAIN] > 100 &&
			      fa.sections[PS_LOCK_FALLBACK] > 10 && fa.sections[PS_LOCK_DIRECT_FREE] > 10 &&
			      fa.outside_zones > 0);
			CHECK(ps_kv_get(&a, "zone_lock_late") && ps_kv_get(&a, "zone_lock_late")->value > 0);
			CHECK(ps_kv_get(&a, "zone_lock_contended") && ps_kv_get(&a, "zone_lock_contended")->value > 0);
			if (cfg[c].queue_cap)
				CHECK(ps_kv_get(&a, "zone_lock_forced") && ps_kv_get(&a, "zone_lock_forced")->value > 0);
			ps_kv_free(&a);
			ps_kv_free(&b);
		}
	}
}

int main(void)
{
	test_overlap();
	test_no_overlap();
	test_fifo();
	test_cl_rule();
	test_cl_quiet();
	test_layouts();
	test_section_transfers();
	test_pcp_held();
	test_long_section();
	test_follow_grouping();
	test_follow_plain();
	test_full_queue();
	CHECK_DONE();
}
