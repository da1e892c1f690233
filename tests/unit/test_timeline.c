// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_timeline.c - the sampling tick's place in the timer queue, and a
 * replay's timeline, filter and per-event counts on a small synthetic
 * trace: rows end before the first event at their end, counters' rows sum
 * to the totals, levels are the model's state at the row's end, a filter
 * leaves the model's state alone.
 *
 * The machine: two nodes, one Normal zone of 2048 pages each, CPU 0 on
 * node 0, CPU 1 on node 1, watermarks MIN 100, LOW 125, HIGH 150; no pages
 * on pcp lists (high 0, batch 1).  In simulate mode a page the trace first
 * allocates was free at the start.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/kvfile.h"
#include "sim/config/machfile.h"
#include "sim/config/policy.h"
#include "sim/mm/profile.h"
#include "sim/replay/replay.h"
#include "sim/replay/timeline.h"
#include "sim/replay/timer.h"
#include "check.h"

static const char machine_text[] =
	"name = timeline-test\n"
	"page_size = 4096\n"
	"pageblock_order = 9\n"
	"kernel = 6.1.0\n"
	"nodes = 2\n"
	"node0.cpus = 0\n"
	"node0.distance = 10 20\n"
	"node0.zone.Normal = start_pfn=1048576 spanned=2048 present=2048 managed=2048\n"
	"node0.zone.Normal.wmark = 100 125 150\n"
	"node1.cpus = 1\n"
	"node1.distance = 20 10\n"
	"node1.zone.Normal = start_pfn=1050624 spanned=2048 present=2048 managed=2048\n"
	"node1.zone.Normal.wmark = 100 125 150\n";

#define NODE0_PFN 1048576ull
#define NODE1_PFN 1050624ull
#define T0 1000000ull		/* the first event's time */
#define MS 1000000ull

static struct ps_event evs[1024];
static int nr_evs;

static void ev(int type, int cpu, uint64_t ts, uint64_t pfn)
{
	struct ps_event *e = &evs[nr_evs++];

	memset(e, 0, sizeof(*e));
	e->ts_ns = ts;
	e->cpu = (uint16_t)cpu;
	e->type = (uint8_t)type;
	e->pfn = pfn;
	e->gfp = PS_GFP_DIRECT_RECLAIM | PS_GFP_IO | PS_GFP_FS;
	e->pid = cpu ? 200 : 100;
	e->migratetype = PS_MT_MOVABLE;
}

/* The rows a replay emitted, and its columns' names (the timeline goes with the replay). */
struct rows {
	int n, nr;
	uint64_t start[64], end[64];
	int64_t v[64][1024];
	char name[1024][80];
};

static void row(void *ctx, const struct ps_timeline *t, uint64_t start, uint64_t end, const int64_t *r)
{
	struct rows *rs = ctx;

	if (rs->n == 64 || t->nr > 1024)
		return;
	rs->nr = t->nr;
	for (int i = 0; i < t->nr; i++)
		snprintf(rs->name[i], sizeof(rs->name[i]), "%s", t->col[i].name);
	rs->start[rs->n] = start;
	rs->end[rs->n] = end;
	memcpy(rs->v[rs->n++], r, t->nr * sizeof(*r));
}

static int col(const struct rows *rs, const char *name)
{
	for (int i = 0; i < rs->nr; i++)
		if (!strcmp(rs->name[i], name))
			return i;
	fprintf(stderr, "no column %s\n", name);
	return -1;
}

static int64_t sum(const struct rows *rs, const char *name)
{
	int c = col(rs, name);
	int64_t s = 0;

	for (int r = 0; c >= 0 && r < rs->n; r++)
		s += rs->v[r][c];
	return s;
}

static int only_cpu0(void *ctx, const struct ps_event *e)
{
	return e->cpu == 0;
}

/*
 * Replays evs[] in simulate mode under 5.10 with a view (interval @iv, the
 * filter @sel); the totals into @kv, the rows into @rs.
 */
static int replay(const struct ps_machine *m, uint64_t iv, int (*sel)(void *, const struct ps_event *),
		  struct rows *rs, struct ps_kv *kv)
{
	struct ps_replay_opts o;
	struct ps_replay *r;
	char err[256];
	int bad;
	struct ps_replay_view v = { .interval_ns = iv, .row = row, .select = sel, .ctx = rs };

	memset(&o, 0, sizeof(o));
	o.mode = PS_REPLAY_SIMULATE;
	o.profile = ps_profile_by_name("5.10");
	ps_policy_init(&o.policy);
	ps_policy_init(&o.recorded);
	o.policy.pcp_high = 0;
	o.policy.pcp_batch = 1;
	for (int c = 0; c < PS_MAX_CPUS; c++)
		o.cpu_node_map[c] = -1;
	ps_lock_params_init(&o.lock);
	memset(rs, 0, sizeof(*rs));
	r = ps_replay_create(m, &o, err, sizeof(err));
	if (!r)
		return -1;
	ps_replay_prepass(r, evs, nr_evs);
	if (ps_replay_start(r, err, sizeof(err)) < 0)
		goto bad;
	if ((iv || sel) && ps_replay_set_view(r, &v, err, sizeof(err)) < 0)
		goto bad;
	/* in two batches: the view's runs must not depend on where a batch ends */
	if (ps_replay_events(r, evs, nr_evs / 2, err, sizeof(err), &bad) < 0 ||
	    ps_replay_events(r, evs + nr_evs / 2, nr_evs - nr_evs / 2, err, sizeof(err), &bad) < 0)
		goto bad;
	ps_replay_view_finish(r);
	ps_kv_init(kv);
	if (ps_replay_counters(r, kv) < 0 || ps_replay_view_counters(r, kv) < 0)
		goto bad;
	ps_replay_destroy(r);
	return 0;
bad:
	fprintf(stderr, "replay: %s\n", err);
	ps_replay_destroy(r);
	return -1;
}

static int64_t kv_get(const struct ps_kv *kv, const char *name)
{
	const struct ps_kv_item *p = ps_kv_get(kv, name);

	return p ? p->value : -999999;
}

int main(void)
{
	struct ps_machine m;
	struct ps_error e;
	static struct rows rs, rs2;
	struct ps_kv kv, kv2;

	/*
	 * The timer queue: at one time, the sampling tick runs before the
	 * model's timers (its row ends before them); a timer due earlier runs
	 * first whatever its class.
	 */
	{
		static struct ps_timers t;
		struct ps_timer a, b, c;

		ps_timers_init(&t);
		ps_timer_arm(&t, PS_TIMER_KSWAPD, 1, 500);
		ps_timer_arm(&t, PS_TIMER_VMSTAT, 0, 500);
		ps_timer_arm(&t, PS_TIMER_SAMPLE, 0, 500);
		ps_timer_arm(&t, PS_TIMER_UNTRACED, 0, 499);
		CHECK(ps_timer_due(&t, 500));
		a = ps_timer_pop(&t);
		b = ps_timer_pop(&t);
		c = ps_timer_pop(&t);
		CHECK_EQ(a.cls, PS_TIMER_UNTRACED);
		CHECK_EQ(b.cls, PS_TIMER_SAMPLE);
		CHECK_EQ(c.cls, PS_TIMER_VMSTAT);
		CHECK_EQ(ps_timer_pop(&t).cls, PS_TIMER_KSWAPD);
		CHECK(!ps_timer_due(&t, UINT64_MAX));
	}

	if (ps_machine_parse(machine_text, "timeline-test", &m, &e) < 0) {
		fprintf(stderr, "%s\n", e.msg);
		return 1;
	}
	/*
	 * CPU 0 allocates a node-0 page every 0.25 ms from T0, 20 in all (the
	 * last at T0 + 4.75 ms); CPU 1 a node-1 page at T0 + 1 ms exactly and
	 * at T0 + 2 ms - 1 ns; CPU 0 frees its first page at T0 + 3 ms.
	 * Rows of 1 ms: [T0, T0 + 1 ms) ... [T0 + 4 ms, T0 + 5 ms).
	 */
	nr_evs = 0;
	for (int i = 0; i < 20; i++) {
		if (i == 4)
			ev(PS_EV_ALLOC, 1, T0 + MS, NODE1_PFN + 1024);
		if (i == 8)
			ev(PS_EV_ALLOC, 1, T0 + 2 * MS - 1, NODE1_PFN + 1025);
		if (i == 12)
			ev(PS_EV_FREE, 0, T0 + 3 * MS, NODE0_PFN + 1024);
		ev(PS_EV_ALLOC, 0, T0 + (uint64_t)i * MS / 4, NODE0_PFN + 1024 + i);
	}
	if (replay(&m, MS, NULL, &rs, &kv) < 0)
		return 1;
	CHECK_EQ(rs.n, 5);
	CHECK_EQ(rs.start[0], T0);
	CHECK_EQ(rs.end[4], T0 + 5 * MS);
	{
		int hit = col(&rs, "node0.numa_hit"), hit1 = col(&rs, "node1.numa_hit");
		int free0 = col(&rs, "node0.Normal.free"), low0 = col(&rs, "node0.Normal.wmark_low");
		int pgfree = col(&rs, "pgfree"), thit = col(&rs, "trace.numa_hit");

		CHECK(hit >= 0 && hit1 >= 0 && free0 >= 0 && low0 >= 0 && pgfree >= 0 && thit >= 0);
		if (hit >= 0 && hit1 >= 0 && free0 >= 0 && pgfree >= 0 && thit >= 0) {
			/* four of CPU 0's allocations a row; CPU 1's at the boundary in the second row, the other before its end */
			for (int r = 0; r < 5; r++)
				CHECK_EQ(rs.v[r][hit], 4);
			CHECK_EQ(rs.v[0][hit1], 0);
			CHECK_EQ(rs.v[1][hit1], 2);
			CHECK_EQ(rs.v[3][pgfree], 1);
			CHECK_EQ(rs.v[2][pgfree], 0);
			/* the trace's own beside the model's: here the same */
			for (int r = 0; r < 5; r++)
				CHECK_EQ(rs.v[r][thit], rs.v[r][hit] + rs.v[r][hit1]);
			/* a level: the free pages at each row's end, the last the model's at the end */
			CHECK_EQ(rs.v[0][free0] - rs.v[1][free0], 4);
			CHECK_EQ(rs.v[2][free0] - rs.v[3][free0], 3);
			CHECK_EQ(rs.v[4][free0], kv_get(&kv, "model_nr_free_pages.node0.Normal"));
			CHECK_EQ(rs.v[4][low0], 125);
		}
		/* the rows sum to the totals */
		CHECK_EQ(sum(&rs, "numa_hit"), kv_get(&kv, "numa_hit"));
		CHECK_EQ(sum(&rs, "numa_hit"), 22);
		CHECK_EQ(sum(&rs, "pgfree"), kv_get(&kv, "pgfree"));
		CHECK_EQ(sum(&rs, "events_mm_page_alloc"), 22);
		CHECK_EQ(sum(&rs, "trace.node1.numa_hit"), 2);
	}

	/*
	 * A filter selecting CPU 0's events: they alone count, the model runs
	 * them all (node 1's free pages as without the filter), and the rows
	 * still cover the trace.
	 */
	if (replay(&m, MS, only_cpu0, &rs2, &kv2) < 0)
		return 1;
	CHECK_EQ(rs2.n, 5);
	CHECK_EQ(kv_get(&kv2, "numa_hit"), 20);
	CHECK_EQ(kv_get(&kv2, "node1.numa_hit"), 0);
	CHECK_EQ(kv_get(&kv2, "events_mm_page_alloc"), 20);
	CHECK_EQ(kv_get(&kv2, "pgfree"), 1);
	CHECK_EQ(kv_get(&kv2, "model_nr_free_pages.node1.Normal"), kv_get(&kv, "model_nr_free_pages.node1.Normal"));
	CHECK_EQ(sum(&rs2, "node1.numa_hit"), 0);
	CHECK_EQ(sum(&rs2, "trace.numa_hit"), 20);
	CHECK_EQ(sum(&rs2, "numa_hit"), 20);
	ps_kv_free(&kv2);

	/* no view: the same totals (the view changes nothing in the model) */
	{
		struct ps_kv kv3;

		if (replay(&m, 0, NULL, &rs2, &kv3) < 0)
			return 1;
		for (int i = 0; i < kv3.nr; i++)
			CHECK_EQ(kv_get(&kv, kv3.items[i].name), kv3.items[i].value);
		ps_kv_free(&kv3);
	}
	ps_kv_free(&kv);
	CHECK_DONE();
}
