// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_replay.c - libFuzzer targets: events straight into the replay
 * engine and the zone-lock model, with the timestamps the input gives
 * (repeated, coarse, far ahead, going backwards), on a small machine of
 * two nodes and four CPUs.  The readers are fuzzed apart (fuzz_reader,
 * fuzz_pgs, fuzz_tdat); here every event is one a reader may produce
 * (orders 0-10, known migratetypes, a pfn only missing from an
 * allocation), so that what breaks is the model's.
 *
 *   fuzz_replay  follow mode (with lockstat's grouping of sections inside),
 *                simulate mode on the traced machine, or on another one
 *                (--machine: one node, the CPUs mapped by the default
 *                rule), under the profile, policy and checks the first
 *                bytes choose; with check set, a broken model invariant
 *                aborts.
 *   fuzz_pass1   the pass-1 summary of the events: a replay whose pass 1
 *                comes from it counts what a replay of two passes counts,
 *                and the summary with a byte changed never crashes.
 *   fuzz_lock    the lock model alone: lockstat's section grouping
 *                (sim/replay/lock_sections.c) over the events, and the
 *                same events as simulate-mode sections (ps_lock_section)
 *                with their own timestamps, under the costs and layout
 *                the first bytes choose.
 *
 * Input: a 6-byte header, then 12 bytes per event.
 *   header[0]  fuzz_replay: bits 0-1 mode (0 follow, 1 simulate, 2 simulate
 *              on another machine, 3 follow with --fold-invisible), bit 2
 *              check every invariant (inputs of up to 16 events: the check
 *              walks every page after each event), bit 3
 *              vm.zone_reclaim_mode 1, bit 4 vm.watermark_boost_factor 0,
 *              bits 5-7 the profile (4.0 4.4 4.13 5.1 5.10 6.10 6.15
 *              6.18).  fuzz_lock: bit 0 layout 3.17 (else
 *              4.0), bit 1 lock.carry off, bits 2-7 lock.page_ns.
 *   header[1]  bits 0-6: time unit, deltas shifted left by that % 40 bits;
 *              bit 7 the counters are made too (a few hundred named rows:
 *              a third of the time of a short input, so not always)
 *   header[2]  pcp.batch (0: the machine's), header[3] pcp.high (0: the
 *              machine's; else x 8); fuzz_replay only
 *   header[4]  the lock model's access queue: 0 its default, else 8 +
 *              header[4] (a full queue runs its earliest accesses early);
 *              header[5] the sections a CPU may have waiting (0: 256)
 *   event      [0] type (mod 6) | bit 3 task kswapd0 | bit 4 task
 *              kcompactd0 | bits 5-7 migratetype + 1 (7: unknown);
 *              [1] cpu (mod 6: two CPUs no node lists); [2] order (mod 11)
 *              | bit 7 percpu_refill; [3] fallback_order (mod 11) | bits
 *              4-6 fallback migratetype; [4-7] pfn: bits 30-31 the zone,
 *              the rest an offset modulo the zone's span and 64 pages
 *              past it (0xffffffff: no page, on an allocation);
 *              [8-11] time delta, signed, times the unit.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/le.h"
#include "sim/config/machfile.h"
#include "sim/replay/lock_sections.h"
#include "sim/replay/replay.h"
#include "sim/replay/summary.h"
#include "fuzz-util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_EVENTS 4096

static const char machine_text[] =
	"nodes = 2\n"
	"kernel = 6.1\n"
	"pageblock_order = 9\n"
	"node0.cpus = 0-1\n"
	"node0.distance = 10 20\n"
	"node0.zone.DMA32 = start_pfn=4096 spanned=1024 present=1024 managed=1000\n"
	"node0.zone.Normal = start_pfn=1048576 spanned=1024 present=1024 managed=1024\n"
	"node1.cpus = 2-3\n"
	"node1.distance = 20 10\n"
	"node1.zone.Normal = start_pfn=1049600 spanned=1024 present=1024 managed=1000\n";

/* The machine a simulate-mode replay may move the trace to. */
static const char other_text[] =
	"nodes = 1\n"
	"kernel = 6.1\n"
	"node0.cpus = 0-2\n"
	"node0.zone.DMA32 = start_pfn=4096 spanned=2048 present=2048 managed=2000\n"
	"node0.zone.Normal = start_pfn=1048576 spanned=1024 present=1024 managed=1024\n";

static struct ps_machine machine, other;
static struct ps_event evs[MAX_EVENTS];
static int nr_evs;

static void setup(void)
{
	static int done;
	struct ps_error err;

	if (done)
		return;
	if (ps_machine_parse(machine_text, "fuzz-machine", &machine, &err) < 0 ||
	    ps_machine_parse(other_text, "fuzz-other", &other, &err) < 0)
		abort();
	done = 1;
}

/* The events of @data after its header, in the reader's terms; their count. */
static int decode(const uint8_t *data, size_t size)
{
	static const int8_t mts[8] = { PS_MT_UNMOVABLE, PS_MT_MOVABLE, PS_MT_RECLAIMABLE, PS_MT_HIGHATOMIC,
				       PS_MT_CMA, PS_MT_ISOLATE, PS_MT_RESERVE, PS_MT_UNKNOWN };
	unsigned int unit = (data[1] & 0x7f) % 40;
	uint64_t ts = 1000000000ull;
	int n = 0;

	for (size_t off = 6; off + 12 <= size && n < MAX_EVENTS; off += 12) {
		const uint8_t *p = data + off;
		struct ps_event *e = &evs[n];
		uint32_t pv = ps_le_get32(p + 4);
		int32_t dt = (int32_t)ps_le_get32(p + 8);
		const struct ps_zone_desc *z = &machine.zones[(pv >> 30) % machine.nr_zones];

		memset(e, 0, sizeof(*e));
		e->type = p[0] % PS_EV_KMEM_NR;	/* what the readers give */
		e->cpu = p[1] % 6;
		e->order = (p[2] & 0x7f) % (PS_MAX_PAGE_ORDER + 1);
		e->percpu_refill = p[2] >> 7;
		e->flags = PS_EVF_PCPU_REFILL_KNOWN;
		e->migratetype = mts[p[0] >> 5];
		e->pid = 100 + e->cpu;
		if (e->type == PS_EV_EXTFRAG) {
			e->alloc_order = e->order;
			e->fallback_order = (p[3] & 0x0f) % (PS_MAX_PAGE_ORDER + 1);
			e->alloc_migratetype = e->migratetype;
			e->fallback_migratetype = mts[(p[3] >> 4) & 7];
			e->change_ownership = p[3] >> 7;
		} else {
			e->alloc_migratetype = e->fallback_migratetype = PS_MT_UNKNOWN;
		}
		if (e->type == PS_EV_ALLOC)
			e->gfp = PS_GFP_KSWAPD_RECLAIM | PS_GFP_DIRECT_RECLAIM | PS_GFP_IO | PS_GFP_FS |
				 (p[3] & 1 ? PS_GFP_MOVABLE : 0) | (p[3] & 2 ? PS_GFP_HIGH : 0) |
				 (p[3] & 4 ? PS_GFP_ATOMIC : 0) | (p[3] & 8 ? PS_GFP_THISNODE : 0) |
				 (p[3] & 16 ? PS_GFP_DMA32 : 0);
		if (pv == 0xffffffffu && e->type == PS_EV_ALLOC)
			e->pfn = PS_PFN_NONE;
		else
			e->pfn = z->start_pfn + (pv & 0x3fffffff) % (z->spanned + 64);
		if (p[0] & 8)
			ps_event_set_comm(e, "kswapd0");
		else if (p[0] & 16)
			ps_event_set_comm(e, "kcompactd0");
#ifdef FUZZ_PASS1
		/* a pagesim file names tasks by pid */
		e->pid = p[0] & 8 ? 2 : p[0] & 16 ? 3 : 100 + e->cpu;
#endif
		ts += (uint64_t)(int64_t)dt << unit;	/* wraps: a timestamp past the top comes round */
		e->ts_ns = ts & PS_EV_MAX_TS;		/* as the readers give them (event.h) */
		n++;
	}
	return n;
}

#if defined(FUZZ_PASS1)
static int task_of(void *ctx, int32_t pid, const char **comm)
{
	(void)ctx;
	*comm = pid == 2 ? "kswapd0" : pid == 3 ? "kcompactd0" : NULL;
	return pid == 2 ? PS_TASK_KSWAPD : pid == 3 ? PS_TASK_KCOMPACTD : PS_TASK_OTHER;
}

static struct ps_replay *pass1_replay(const uint8_t *data, const struct ps_machine *m, int mode)
{
	static const char *const profiles[8] = { "4.0", "4.4", "4.13", "5.1", "5.10", "6.10", "6.15", "6.18" };
	static struct ps_replay_opts o;
	char msg[512];
	struct ps_replay *r;

	memset(&o, 0, sizeof(o));
	o.mode = mode ? PS_REPLAY_SIMULATE : PS_REPLAY_FOLLOW;
	o.profile = ps_profile_by_name(profiles[data[0] >> 5]);
	ps_policy_init(&o.policy);
	ps_policy_init(&o.recorded);
	for (int c = 0; c < PS_MAX_CPUS; c++)
		o.cpu_node_map[c] = -1;
	if (m != &machine)
		o.traced = &machine;
	ps_lock_params_init(&o.lock);
	r = o.profile ? ps_replay_create(m, &o, msg, sizeof(msg)) : NULL;
	if (!r)
		abort();
	return r;
}

/* The counters of @r after its start and pass 2 over the events (tasks named); -1: the trace contradicts it. */
static int pass1_finish(struct ps_replay *r, struct ps_kv *kv)
{
	char msg[512];

	if (ps_replay_start(r, msg, sizeof(msg)) < 0)
		return -1;
	for (int i = 0; i < nr_evs; i++)
		if (ps_replay_event(r, &evs[i], msg, sizeof(msg)) < 0)
			return -1;
	ps_kv_init(kv);
	if (ps_replay_counters(r, kv) < 0)
		abort();
	return 0;
}

/*
 * The pass-1 summary: a replay whose pass 1 comes from the summary of the
 * events counts what one of two passes counts (else abort), in the mode
 * and on the machine data[0] chooses (bits 0-1: follow, simulate, simulate
 * on another machine); the summary with the byte data[2..3] names changed
 * is refused, ignored or taken, and never crashes.
 */
static void run(const uint8_t *data)
{
	static struct ps_event named[MAX_EVENTS];
	int mode = (data[0] & 3) % 3, with_comm = mode != 0, ra, rb;
	const struct ps_machine *m = mode == 2 ? &other : &machine;
	struct ps_pass1_summary *s = ps_pass1_summary_create(&machine);
	struct ps_replay *a, *b;
	struct ps_kv ka, kb;
	uint64_t events = 0;
	uint8_t *blob;
	size_t len = 0;

	if (!s)
		abort();
	for (int i = 0; i < nr_evs; i++)
		ps_pass1_summary_event(s, &evs[i]);
	blob = ps_pass1_summary_finish(s, &len);
	ps_pass1_summary_free(s);
	if (!blob)
		abort();
	/* pass 1 reads tasks only in simulate mode */
	memcpy(named, evs, sizeof(*evs) * nr_evs);
	for (int i = 0; !with_comm && i < nr_evs; i++) {
		evs[i].comm = NULL;
		evs[i].task = PS_TASK_OTHER;
	}
	a = pass1_replay(data, m, mode);
	b = pass1_replay(data, m, mode);
	ps_replay_prepass(a, evs, nr_evs);
	if (ps_replay_prepass_summary(b, blob, len, with_comm, task_of, NULL, &events) != 1 ||
	    events != (uint64_t)nr_evs)
		abort();
	memcpy(evs, named, sizeof(*evs) * nr_evs);
	ra = pass1_finish(a, &ka);
	rb = pass1_finish(b, &kb);
	if (ra != rb)
		abort();
	if (!ra) {
		if (ka.nr != kb.nr)
			abort();
		for (int i = 0; i < ka.nr; i++)
			if (strcmp(ka.items[i].name, kb.items[i].name) || ka.items[i].value != kb.items[i].value) {
				fprintf(stderr, "fuzz_pass1: %s %lld against %lld\n", ka.items[i].name,
					(long long)ka.items[i].value, (long long)kb.items[i].value);
				abort();
			}
		ps_kv_free(&ka);
		ps_kv_free(&kb);
	}
	ps_replay_destroy(a);
	ps_replay_destroy(b);
	/* a damaged summary */
	if (len) {
		struct ps_replay *c = pass1_replay(data, m, mode);

		blob[(data[2] | data[3] << 8) % len] ^= data[4] | 1;
		(void)ps_replay_prepass_summary(c, blob, len, with_comm, task_of, NULL, &events);
		ps_replay_destroy(c);
	}
	free(blob);
}
#elif defined(FUZZ_LOCK)
static void run(const uint8_t *data)
{
	static const struct ps_profile *prof;
	struct ps_lock_params lp;
	struct ps_lock_follow *f;
	struct ps_lock *lk;
	struct ps_error err;
	struct ps_kv kv;

	if (!prof)
		prof = ps_profile_by_name("6.1");
	ps_lock_params_init(&lp);
	if (data[0] & 1)
		ps_zone_layout_builtin(&lp.layout, "3.17");
	lp.carry = !(data[0] & 2);
	lp.page_ns = data[0] >> 2;
	lp.queue_cap = data[4] ? 8 + data[4] : 0;
	lp.ring_cap = data[5];
	/* lockstat: the sections the events show, fed late as the grouper finds them */
	lk = ps_lock_create(&lp, machine.nr_zones, machine.nr_cpus, &err);
	f = lk ? ps_lock_follow_create(lk, &machine, prof, machine.pageblock_order) : NULL;
	if (!f)
		abort();
	for (int i = 0; i < nr_evs; i++)
		ps_lock_follow_event(f, &evs[i]);
	ps_lock_follow_finish(f);
	if (data[1] & 0x80) {
		ps_kv_init(&kv);
		if (ps_lock_counters(lk, &machine, &kv) < 0)
			abort();
		ps_kv_free(&kv);
	}
	ps_lock_follow_destroy(f);
	ps_lock_destroy(lk);
	/* simulate mode's hooks: one section per event, at its own time, in input order */
	lk = ps_lock_create(&lp, machine.nr_zones, machine.nr_cpus, &err);
	if (!lk)
		abort();
	for (int i = 0; i < nr_evs; i++) {
		int zone = ps_machine_zone_of(&machine, evs[i].pfn);

		ps_lock_section(lk, zone, evs[i].cpu, evs[i].ts_ns, (1 << evs[i].order) % 64,
				evs[i].type % PS_LOCK_NR_CAUSES);
		ps_lock_pcp_pages(lk, zone, evs[i].ts_ns, evs[i].order);
	}
	ps_lock_finish(lk);
	ps_lock_destroy(lk);
}
#else
static void run(const uint8_t *data)
{
	static const char *const profiles[8] = { "4.0", "4.4", "4.13", "5.1", "5.10", "6.10", "6.15", "6.18" };
	static struct ps_replay_opts o;
	int mode = data[0] & 3;
	const struct ps_machine *m = mode == 2 ? &other : &machine;
	struct ps_replay *r;
	struct ps_kv kv;
	char msg[512];

	memset(&o, 0, sizeof(o));
	o.mode = mode == 1 || mode == 2 ? PS_REPLAY_SIMULATE : PS_REPLAY_FOLLOW;
	o.fold_invisible = mode == 3;
	o.check = (data[0] >> 2) & 1 && nr_evs <= 16;	/* a walk of every page per event: short inputs only */
	o.profile = ps_profile_by_name(profiles[data[0] >> 5]);
	if (!o.profile)
		abort();
	ps_policy_init(&o.policy);
	ps_policy_init(&o.recorded);
	o.policy.zone_reclaim_mode = (data[0] >> 3) & 1 ? 1 : PS_UNSET;
	o.policy.watermark_boost_factor = (data[0] >> 4) & 1 ? 0 : PS_UNSET;
	if (data[2])
		o.policy.pcp_batch = data[2];
	if (data[3])
		o.policy.pcp_high = data[3] * 8;
	for (int c = 0; c < PS_MAX_CPUS; c++)
		o.cpu_node_map[c] = -1;
	if (mode == 2)
		o.traced = &machine;
	ps_lock_params_init(&o.lock);
	o.lock.queue_cap = data[4] ? 8 + data[4] : 0;
	o.lock.ring_cap = data[5];
	r = ps_replay_create(m, &o, msg, sizeof(msg));
	if (!r)
		abort();	/* a fixed machine and policy: always accepted */
	ps_replay_prepass(r, evs, nr_evs);
	if (ps_replay_start(r, msg, sizeof(msg)) < 0)
		goto out;	/* an initial state the trace contradicts: reported, not a crash */
	for (int i = 0; i < nr_evs; i++)
		if (ps_replay_event(r, &evs[i], msg, sizeof(msg)) < 0) {
			if (o.check) {
				fprintf(stderr, "fuzz_replay: invariant broken at event %d: %s\n", i, msg);
				abort();
			}
			goto out;
		}
	if (data[1] & 0x80) {
		ps_kv_init(&kv);
		if (ps_replay_counters(r, &kv) < 0)
			abort();
		ps_kv_free(&kv);
	}
out:
	ps_replay_destroy(r);
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 6)
		return -1;
	setup();
	nr_evs = decode(data, size);
	for (int i = 0; i < nr_evs; i++)
		if (!fuzz_event_ok(&evs[i]))
			abort();
	run(data);
	return 0;
}
