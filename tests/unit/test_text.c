// SPDX-License-Identifier: GPL-2.0-or-later
/* test_text.c - the ftrace / trace-cmd report text reader, on embedded lines. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/kver.h"
#include "trace/reader.h"
#include "check.h"

static char path[64];

static struct ps_reader *open_text(const char *text, int kver, unsigned flags)
{
	struct ps_reader_opts o = { .flags = flags, .kver = kver };
	struct ps_error err;
	struct ps_reader *r;
	int fd;

	strcpy(path, "/tmp/pagesim-test-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		return NULL;
	close(fd);
	r = ps_reader_open(path, &o, &err);
	if (!r)
		fprintf(stderr, "open: %s\n", err.msg);
	unlink(path);
	return r;
}

static void test_kernel_trace_file(void)
{
	const char *t =
		"# tracer: nop\n"
		"#\n"
		"# entries-in-buffer/entries-written: 7/10   #P:2\n"
		"#\n"
		" kworker/u4:1-my task-26507   [001] d..1.  1025.335276: mm_page_alloc: page=00000000263db310 pfn=0x217ea7 order=2 migratetype=0 gfp_flags=GFP_KERNEL|__GFP_THISNODE\n"
		"          <idle>-0       [000] ..s1.  1025.400000123: mm_page_free: page=000000004053b15f pfn=0x217c02 order=0\n"
		"CPU:1 [LOST 42 EVENTS]\n"
		"   sh-371   [000] .....  1025.5: mm_page_alloc_zone_locked: page=0000000000000001 pfn=0x100 order=0 migratetype=1 percpu_refill=1\n"
		"   sh-371   [000] .....  1025.6: mm_page_alloc_extfrag: page=0000000000000001 pfn=0x103400 alloc_order=0 fallback_order=10 pageblock_order=9 alloc_migratetype=0 fallback_migratetype=1 fragmenting=10 change_ownership=1\n"
		"   sh-371   [000] .....  1025.7: sched_switch: prev_comm=sh prev_pid=371\n"
		"   sh-371   [000] .....  1025.8: do_page_fault <-exc_page_fault\n"
		"this is not a trace line\n"
		"   sh-371   [001] .....  1025.9: mm_page_alloc: page=(null) pfn=0 order=0 migratetype=1 gfp_flags=GFP_ATOMIC\n"
		"   sh-371   [001] .....  1026.0: mm_page_pcpu_drain: page=0000000000000001 pfn=0x200 order=0 migratetype=2\n"
		"   sh-371   [001] .....  1026.1: mm_page_free_batched: page=0000000000000001 pfn=0x201 order=0\n";
	struct ps_reader *r = open_text(t, PS_KVER(6, 18, 0), PS_RD_COMM);
	const struct ps_reader_stats *s;
	struct ps_event ev;
	struct ps_error err;

	CHECK(r != NULL);
	if (!r)
		return;
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.type, PS_EV_ALLOC);
	CHECK_EQ(ev.pfn, 0x217ea7);
	CHECK_EQ(ev.order, 2);
	CHECK_EQ(ev.cpu, 1);
	CHECK_EQ(ev.pid, 26507);
	CHECK(ev.comm && !strcmp(ev.comm, "kworker/u4:1-my task"));
	CHECK_EQ(ev.task, PS_TASK_OTHER);
	CHECK_EQ(ev.ts_ns, 1025335276000ull);
	CHECK(ev.gfp & PS_GFP_THISNODE);
	CHECK(ev.gfp & PS_GFP_FS);
	CHECK(!(ev.gfp & PS_GFP_UNKNOWN));
	CHECK_EQ(ev.migratetype, PS_MT_UNMOVABLE);

	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.type, PS_EV_FREE);
	CHECK_EQ(ev.ts_ns, 1025400000123ull);
	CHECK_EQ(ev.pid, 0);
	CHECK(!strcmp(ev.comm, "<idle>"));
	CHECK_EQ(ev.task, PS_TASK_OTHER);

	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.type, PS_EV_ZONE_LOCKED);
	CHECK_EQ(ev.percpu_refill, 1);
	CHECK(ev.flags & PS_EVF_PCPU_REFILL_KNOWN);
	CHECK_EQ(ev.migratetype, PS_MT_MOVABLE);

	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.type, PS_EV_EXTFRAG);
	CHECK_EQ(ev.fallback_order, 10);
	CHECK_EQ(ev.alloc_migratetype, PS_MT_UNMOVABLE);
	CHECK_EQ(ev.fallback_migratetype, PS_MT_MOVABLE);
	CHECK_EQ(ev.change_ownership, 1);
	CHECK_EQ(ps_reader_pageblock_order(r), 9);

	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);	/* the failed allocation */
	CHECK_EQ(ev.type, PS_EV_ALLOC);
	CHECK(ev.pfn == PS_PFN_NONE);

	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.type, PS_EV_PCPU_DRAIN);
	CHECK_EQ(ev.migratetype, PS_MT_RECLAIMABLE);
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.type, PS_EV_FREE_BATCHED);
	CHECK_EQ(ev.pfn, 0x201);
	CHECK_EQ(ps_reader_next(r, &ev, &err), 0);

	s = ps_reader_stats(r);
	CHECK_EQ(s->lost_markers, 1);
	CHECK_EQ(s->lost_events, 42);
	CHECK_EQ(s->lost_overwritten, 3);
	CHECK_EQ(s->skipped[PS_SKIP_OTHER_EVENT], 2);
	CHECK_EQ(s->skipped[PS_SKIP_MALFORMED], 1);
	CHECK(strstr(s->skip_first[PS_SKIP_MALFORMED], ":line 12:") != NULL);
	CHECK_EQ(s->events[PS_EV_ALLOC], 2);
	CHECK_EQ(s->alloc_failed, 1);
	CHECK_EQ(ps_reader_nr_cpus(r), 2);
	ps_reader_close(r);
}

/* trace-cmd report: no flags column, "cpus=" header, "page=" pointer printed bogus */
static void test_report_and_old_kernel(void)
{
	const char *t =
		"cpus=4\n"
		"            init-1     [003]     9.283914: mm_page_alloc:        page=0xffffea0000420000 pfn=4325376 order=1 migratetype=1 gfp_flags=GFP_KERNEL|__GFP_RECLAIMABLE\n"
		"            init-1     [003]     9.283915: mm_page_free:         page=0xffffea0000420040 order=0\n"
		"            init-1     [003]     9.283916: mm_page_alloc_zone_locked: page=0xffffea0000420040 pfn=4325377 order=0 migratetype=2\n"
		"            init-1     [003]     9.283917: mm_page_alloc_extfrag: page=0xffffea0000420040 pfn=4325377 alloc_order=0 fallback_order=3 alloc_migratetype=0 fallback_migratetype=2 change_ownership=0\n"
		"CPU:2 [EVENTS DROPPED]\n";
	struct ps_reader *r = open_text(t, PS_KVER(4, 3, 0), 0);
	struct ps_event ev;
	struct ps_error err;

	CHECK(r != NULL);
	if (!r)
		return;
	CHECK(strstr(ps_reader_format(r), "trace-cmd report") != NULL);
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.pfn, 4325376);	/* decimal pfn (<= 5.10) */
	CHECK_EQ(ev.migratetype, PS_MT_RECLAIMABLE);	/* 1 is RECLAIMABLE before 4.4 */
	CHECK(ev.gfp & PS_GFP_RECLAIMABLE);
	CHECK(ev.comm == NULL);
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.pfn, 0x420040 / 64);	/* derived from page= */
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.migratetype, PS_MT_MOVABLE);	/* 2 is MOVABLE before 4.4 */
	CHECK_EQ(ev.percpu_refill, 1);	/* derived: order == 0 */
	CHECK(!(ev.flags & PS_EVF_PCPU_REFILL_KNOWN));
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.fallback_migratetype, PS_MT_MOVABLE);
	CHECK_EQ(ps_reader_next(r, &ev, &err), 0);
	CHECK_EQ(ps_reader_stats(r)->lost_unknown, 1);
	CHECK_EQ(ps_reader_stats(r)->pfn_from_page, 1);
	CHECK_EQ(ps_reader_nr_cpus(r), 4);
	ps_reader_close(r);
}

static void test_strict_and_bad_fields(void)
{
	const char *t = "   sh-371   [000] .....  1.0: mm_page_alloc: pfn=zz order=0 migratetype=0 gfp_flags=GFP_KERNEL\n"
			"   sh-371   [000] .....  1.1: mm_page_free: pfn=0x10\n"
			"   sh-371   [000] .....  1.2: mm_page_free: pfn=0x10 order=99\n"
			"   sh-371   [000] .....  0.5: mm_page_free: pfn=0x10 order=0\n";
	struct ps_reader *r = open_text(t, 0, 0);
	struct ps_event ev;
	struct ps_error err;

	CHECK(r != NULL);
	if (!r)
		return;
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.ts_ns, 500000000ull);
	CHECK_EQ(ps_reader_stats(r)->skipped[PS_SKIP_BAD_FIELD], 3);
	ps_reader_close(r);

	r = open_text(t, 0, PS_RD_STRICT);
	CHECK(r != NULL);
	if (!r)
		return;
	CHECK_EQ(ps_reader_next(r, &ev, &err), -1);
	CHECK(strstr(err.msg, ":line 1:") != NULL);
	ps_reader_close(r);
}

/* The task classes replay tells apart, read once from the name by the readers. */
static void test_task_of(void)
{
	static const struct {
		const char *comm;
		int task, node;
	} c[] = {
		{ "kswapd0", PS_TASK_KSWAPD, 0 },
		{ "kswapd13", PS_TASK_KSWAPD, 13 },
		{ "kswapd", PS_TASK_KSWAPD, -1 },
		{ "kswapd999", PS_TASK_KSWAPD, -1 },	/* no node that large */
		{ "kcompactd1", PS_TASK_KCOMPACTD, 1 },
		{ "kworker/0:1", PS_TASK_OTHER, -1 },
		{ "kswap", PS_TASK_OTHER, -1 },
		{ "bash", PS_TASK_OTHER, -1 },
		{ "", PS_TASK_OTHER, -1 },
		{ NULL, PS_TASK_OTHER, -1 },
	};
	const char *t = "  kswapd1-70  [001] .....  5.0: mm_page_free: page=0x1 pfn=0x100 order=0\n"
			"  kcompactd0-66  [000] .....  5.1: mm_page_free: page=0x1 pfn=0x101 order=0\n";
	struct ps_reader *r;
	struct ps_event ev;
	struct ps_error err;

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int8_t node = 42;

		CHECK_EQ(ps_task_of(c[i].comm, &node), c[i].task);
		CHECK_EQ(node, c[i].node);
	}
	r = open_text(t, PS_KVER(6, 1, 0), PS_RD_COMM);
	CHECK(r != NULL);
	if (!r)
		return;
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.task, PS_TASK_KSWAPD);
	CHECK_EQ(ev.task_node, 1);
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.task, PS_TASK_KCOMPACTD);
	CHECK_EQ(ev.task_node, 0);
	ps_reader_close(r);
}

/*
 * The page-cache, LRU and reclaim events in the kernel's own trace-file form
 * (flags column, hashed %p, as their print formats give them: 6.12, the
 * same as 6.1 but for isolate_mode), then older kernels' forms.
 */
static void test_reclaim_events(void)
{
	const char *t =
		"# tracer: nop\n"
		"#\n"
		"             cat-488     [001] ..... 9.884708: mm_filemap_add_to_page_cache: dev 254:16 ino fe00010 pfn=0x101ad2 ofs=17371136 order=2\n"
		"         kswapd0-70      [000] d..1. 10.538562: mm_filemap_delete_from_page_cache: dev 0:3 ino 1e pfn=0x101ad2 ofs=0 order=0\n"
		"            init-1       [002] ..... 9.476697: mm_lru_insertion: folio=00000000a3e0b8f1 pfn=0x117f3a lru=0 flags=Ma b  \n"
		"            init-1       [002] ..... 9.476762: mm_lru_insertion: folio=000000006a1c04e2 pfn=0x117f62 lru=3 flags= f  dB\n"
		"            init-1       [002] ..... 9.476763: mm_lru_insertion: folio=000000006a1c04e2 pfn=0x117f63 lru=4 flags=Masbd\n"
		"         memwork-407     [001] ..... 5.204591: mm_lru_activate: folio=00000000c2d91ab0 pfn=0x10906a\n"
		"         kswapd0-70      [000] ..... 10.536641: mm_vmscan_kswapd_wake: nid=1 order=3\n"
		"         kswapd0-70      [000] ..... 12.641194: mm_vmscan_kswapd_sleep: nid=0\n"
		"             cat-488     [001] d..1. 10.535872: mm_vmscan_wakeup_kswapd: nid=0 order=0 gfp_flags=GFP_KERNEL|__GFP_COMP\n"
		"         memwork-604     [000] ..... 10.884441: mm_vmscan_direct_reclaim_begin: order=2 gfp_flags=GFP_HIGHUSER_MOVABLE\n"
		"         memwork-604     [000] ..... 10.885687: mm_vmscan_direct_reclaim_end: nr_reclaimed=128\n"
		"             cat-487     [000] ..... 10.453128: mm_vmscan_node_reclaim_begin: nid=0 order=0 gfp_flags=GFP_NOFS|__GFP_NOWARN\n"
		"             cat-487     [000] ..... 10.453364: mm_vmscan_node_reclaim_end: nr_reclaimed=7\n"
		"         kswapd0-70      [000] ..... 10.538088: mm_vmscan_lru_isolate: classzone=2 order=0 nr_requested=4096 nr_scanned=66 nr_skipped=1 nr_taken=64 lru=inactive_file\n"
		"         kswapd0-70      [000] ..... 10.539161: mm_vmscan_lru_shrink_inactive: nid=1 nr_scanned=66 nr_reclaimed=49 nr_dirty=0 nr_writeback=0 nr_congested=0 nr_immediate=0 nr_activate_anon=0 nr_activate_file=15 nr_ref_keep=0 nr_unmap_fail=0 priority=6 flags=RECLAIM_WB_FILE|RECLAIM_WB_ASYNC\n"
		"         memwork-549     [000] ..... 11.567509: mm_vmscan_lru_shrink_active: nid=0 nr_taken=32 nr_active=0 nr_deactivated=32 nr_referenced=0 priority=4 flags=RECLAIM_WB_ANON\n"
		"         kswapd0-70      [000] ..... 11.6: mm_vmscan_write_folio: page=00000000f2c1a3b4 pfn=0x10906b flags=RECLAIM_WB_ANON|RECLAIM_WB_ASYNC\n"
		"         kswapd0-70      [000] ..... 11.7: mm_vmscan_lru_shrink_inactive: nid=0 nr_scanned=1 nr_reclaimed=0 priority=12 flags=RECLAIM_WB_NONE\n";
	struct ps_reader *r = open_text(t, PS_KVER(6, 12, 0), 0);
	struct ps_event ev;
	struct ps_error err;

	CHECK(r != NULL);
	if (!r)
		return;
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.type, PS_EV_PC_ADD);
	CHECK_EQ(ev.pfn, 0x101ad2);
	CHECK_EQ(ev.x.pc.dev, 254u << 20 | 16);
	CHECK_EQ(ev.x.pc.ino, 0xfe00010);
	CHECK_EQ(ev.x.pc.index, 17371136 / 4096);
	CHECK_EQ(ev.order, 2);
	CHECK_EQ(ev.cpu, 1);
	CHECK_EQ(ev.pid, 488);
	CHECK_EQ(ev.migratetype, PS_MT_UNKNOWN);
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.type, PS_EV_PC_DEL);
	CHECK_EQ(ev.x.pc.dev, 3);
	CHECK_EQ(ev.x.pc.ino, 0x1e);
	CHECK_EQ(ev.x.pc.index, 0);
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.type, PS_EV_LRU_ADD);
	CHECK_EQ(ev.pfn, 0x117f3a);
	CHECK_EQ(ev.x.lru.lru, PS_LRU_INACTIVE_ANON);
	CHECK_EQ(ev.x.lru.flags, PS_PAGEMAP_MAPPED | PS_PAGEMAP_ANONYMOUS | PS_PAGEMAP_SWAPBACKED);
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.x.lru.lru, PS_LRU_ACTIVE_FILE);
	CHECK_EQ(ev.x.lru.flags, PS_PAGEMAP_FILE | PS_PAGEMAP_MAPPEDDISK | PS_PAGEMAP_BUFFERS);
	/* the line's trailing spaces gone: the flags not printed are spaces */
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.x.lru.lru, PS_LRU_UNEVICTABLE);
	CHECK_EQ(ev.x.lru.flags, PS_PAGEMAP_MAPPED | PS_PAGEMAP_ANONYMOUS | PS_PAGEMAP_SWAPCACHE |
				 PS_PAGEMAP_SWAPBACKED | PS_PAGEMAP_MAPPEDDISK);
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.type, PS_EV_LRU_ACTIVATE);
	CHECK_EQ(ev.pfn, 0x10906a);
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.type, PS_EV_KSWAPD_WAKE);
	CHECK_EQ(ev.pfn, PS_PFN_NONE);
	CHECK_EQ(ev.x.ks.nid, 1);
	CHECK_EQ(ev.x.ks.zid, -1);	/* in the record, not in the text */
	CHECK_EQ(ev.order, 3);
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.type, PS_EV_KSWAPD_SLEEP);
	CHECK_EQ(ev.x.ks.nid, 0);
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.type, PS_EV_WAKEUP_KSWAPD);
	CHECK(ev.gfp & PS_GFP_COMP);
	CHECK(ev.gfp & PS_GFP_FS);
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.type, PS_EV_DIRECT_BEGIN);
	CHECK_EQ(ev.order, 2);
	CHECK(ev.gfp & PS_GFP_MOVABLE);
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.type, PS_EV_DIRECT_END);
	CHECK_EQ(ev.x.rc.nr_reclaimed, 128);
	CHECK_EQ(ev.x.rc.nid, -1);
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.type, PS_EV_NODE_RECLAIM_BEGIN);
	CHECK_EQ(ev.x.ks.nid, 0);
	CHECK_EQ(ev.x.ks.zid, -1);
	CHECK(ev.gfp & PS_GFP_NOWARN);
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.type, PS_EV_NODE_RECLAIM_END);
	CHECK_EQ(ev.x.rc.nr_reclaimed, 7);
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.type, PS_EV_LRU_ISOLATE);
	CHECK_EQ(ev.x.rc.nr_scanned, 66);
	CHECK_EQ(ev.x.rc.nr_skipped, 1);
	CHECK_EQ(ev.x.rc.nr_taken, 64);
	CHECK_EQ(ev.x.rc.lru, PS_LRU_INACTIVE_FILE);
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.type, PS_EV_SHRINK_INACTIVE);
	CHECK_EQ(ev.x.rc.nid, 1);
	CHECK_EQ(ev.x.rc.nr_scanned, 66);
	CHECK_EQ(ev.x.rc.nr_reclaimed, 49);
	CHECK_EQ(ev.x.rc.priority, 6);
	CHECK_EQ(ev.x.rc.flags, PS_RECLAIM_WB_FILE | PS_RECLAIM_WB_ASYNC);
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.type, PS_EV_SHRINK_ACTIVE);
	CHECK_EQ(ev.x.rc.nr_taken, 32);
	CHECK_EQ(ev.x.rc.priority, 4);
	CHECK_EQ(ev.x.rc.flags, PS_RECLAIM_WB_ANON);
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.type, PS_EV_WRITE_FOLIO);
	CHECK_EQ(ev.pfn, 0x10906b);	/* pfn=, not the hashed page= */
	CHECK_EQ(ev.x.rc.flags, PS_RECLAIM_WB_ANON | PS_RECLAIM_WB_ASYNC);
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.x.rc.flags, 0);
	CHECK_EQ(ev.x.rc.priority, 12);
	CHECK_EQ(ps_reader_next(r, &ev, &err), 0);
	CHECK_EQ(ps_reader_stats(r)->events[PS_EV_LRU_ADD], 3);
	CHECK_EQ(ps_reader_stats(r)->events[PS_EV_SHRINK_INACTIVE], 2);
	CHECK_EQ(ps_reader_stats(r)->skipped[PS_SKIP_BAD_FIELD], 0);
	ps_reader_close(r);
}

/*
 * Older kernels' forms: 6.1's isolate_mode; before 4.11 file= instead of
 * lru=; the pfn in decimal (4.x) and only a struct page address (no pfn=);
 * a page-cache event before large folios (no order); kswapd_wake and
 * wakeup_kswapd with zid; mm_vmscan_writepage; and what is a bad field.
 */
static void test_reclaim_events_old(void)
{
	const char *t =
		"cpus=2\n"
		"              dd-437   [000]     5.498326: mm_vmscan_lru_isolate: isolate_mode=2 classzone=2 order=0 nr_requested=32 nr_scanned=32 nr_skipped=0 nr_taken=30 lru=active_anon\n"
		"              dd-437   [000]     5.5: mm_vmscan_lru_isolate: isolate_mode=0 classzone_idx=2 order=1 nr_requested=32 nr_scanned=8 nr_skipped=0 nr_taken=8 file=1\n"
		"              dd-437   [000]     5.6: mm_filemap_add_to_page_cache: dev 8:1 ino 2a page=ffffea0000040000 pfn=4096 ofs=8192\n"
		"              dd-437   [000]     5.7: mm_lru_insertion: page=ffffea0000040040 lru=2 flags= f b  \n"
		"         kswapd0-59    [001]     5.8: mm_vmscan_kswapd_wake: nid=0 zid=2 order=0\n"
		"              dd-437   [000]     5.9: mm_vmscan_wakeup_kswapd: nid=1 zid=1 order=2\n"
		"         kswapd0-59    [001]     6.0: mm_vmscan_writepage: page=ffffea0000040080 pfn=4098 flags=RECLAIM_WB_FILE|RECLAIM_WB_SYNC\n"
		/* bad fields: an lru the kernel has no list for, a flag name it never prints, a count past 32 bits, a missing field */
		"              dd-437   [000]     6.1: mm_lru_insertion: page=ffffea0000040040 pfn=4097 lru=5 flags=M     \n"
		"              dd-437   [000]     6.2: mm_vmscan_lru_shrink_inactive: nid=0 nr_scanned=1 nr_reclaimed=1 priority=1 flags=RECLAIM_WB_DIRTY\n"
		"              dd-437   [000]     6.3: mm_vmscan_node_reclaim_end: nr_reclaimed=4294967296\n"
		"              dd-437   [000]     6.4: mm_vmscan_lru_shrink_active: nid=0 nr_active=0 priority=1 flags=RECLAIM_WB_ANON\n"
		"              dd-437   [000]     6.5: mm_lru_insertion: page=ffffea0000040040 pfn=4097 lru=1 flags=Mx    \n";
	struct ps_reader *r = open_text(t, PS_KVER(4, 9, 0), 0);
	struct ps_event ev;
	struct ps_error err;

	CHECK(r != NULL);
	if (!r)
		return;
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.type, PS_EV_LRU_ISOLATE);
	CHECK_EQ(ev.x.rc.lru, PS_LRU_ACTIVE_ANON);
	CHECK_EQ(ev.x.rc.nr_taken, 30);
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.x.rc.lru, PS_LRU_INACTIVE_FILE);	/* file=1: the file list, taken as inactive */
	CHECK_EQ(ev.order, 1);
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.type, PS_EV_PC_ADD);
	CHECK_EQ(ev.pfn, 4096);
	CHECK_EQ(ev.order, 0);
	CHECK_EQ(ev.x.pc.dev, 8u << 20 | 1);
	CHECK_EQ(ev.x.pc.index, 2);
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.type, PS_EV_LRU_ADD);
	CHECK_EQ(ev.pfn, 0x1001);	/* from the struct page address */
	CHECK_EQ(ev.x.lru.flags, PS_PAGEMAP_FILE | PS_PAGEMAP_SWAPBACKED);
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.type, PS_EV_KSWAPD_WAKE);
	CHECK_EQ(ev.x.ks.zid, 2);
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.type, PS_EV_WAKEUP_KSWAPD);
	CHECK_EQ(ev.x.ks.nid, 1);
	CHECK_EQ(ev.x.ks.zid, 1);
	CHECK_EQ(ev.order, 2);
	CHECK_EQ(ev.gfp, 0);
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.type, PS_EV_WRITE_FOLIO);
	CHECK_EQ(ev.pfn, 4098);
	CHECK_EQ(ev.x.rc.flags, PS_RECLAIM_WB_FILE | PS_RECLAIM_WB_SYNC);
	CHECK_EQ(ps_reader_next(r, &ev, &err), 0);
	CHECK_EQ(ps_reader_stats(r)->skipped[PS_SKIP_BAD_FIELD], 5);
	CHECK_EQ(ps_reader_stats(r)->pfn_from_page, 1);
	ps_reader_close(r);
}

/* perf script's default lines for tracepoints, with and without callchains */
static void test_perf_script(void)
{
	const char *t =
		"         kswapd0    75 [001]   976.343179:             kmem:mm_page_free: page=0x144e87 pfn=0x144e87 order=1\n"
		"\tffffffff8161f78b __free_pages_ok+0x26b ([kernel.kallsyms])\n"
		"\t           f838f __GI___libc_write+0x4f (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
		"\n"
		"              dd 15852/15853 [000]  1190.313862:             kmem:mm_page_alloc: page=0x1930b8 pfn=0x1930b8 order=0 migratetype=0 gfp_flags=GFP_KERNEL_ACCOUNT|__GFP_ZERO|__GFP_COMP\n"
		"     perf-exec 2 8085 [001] 1190.5: sched:sched_switch: prev_comm=perf prev_pid=8085\n"
		" lto1-ltrans-12  8060 [000]   1191.000001: kmem:mm_page_alloc_zone_locked: page=0x1 pfn=0x100 order=0 migratetype=1 percpu_refill=1\n"
		"\tthis is not a callchain line\n";
	struct ps_reader *r = open_text(t, PS_KVER(6, 18, 0), PS_RD_COMM);
	const struct ps_reader_stats *s;
	struct ps_event ev;
	struct ps_error err;

	CHECK(r != NULL);
	if (!r)
		return;
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.type, PS_EV_FREE);
	CHECK_EQ(ev.pfn, 0x144e87);
	CHECK_EQ(ev.order, 1);
	CHECK_EQ(ev.cpu, 1);
	CHECK_EQ(ev.pid, 75);
	CHECK(ev.comm && !strcmp(ev.comm, "kswapd0"));
	CHECK_EQ(ev.task, PS_TASK_KSWAPD);
	CHECK_EQ(ev.ts_ns, 976343179000ull);
	CHECK(!strcmp(ps_reader_format(r), "perf script text"));

	/* a comm of hex digits ("dd") is no callchain line; pid/tid: the tid */
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.type, PS_EV_ALLOC);
	CHECK_EQ(ev.pid, 15853);
	CHECK(ev.comm && !strcmp(ev.comm, "dd"));
	CHECK(ev.gfp & PS_GFP_ZERO);

	/* a comm with a dash and digits, and the system:event name */
	CHECK_EQ(ps_reader_next(r, &ev, &err), 1);
	CHECK_EQ(ev.type, PS_EV_ZONE_LOCKED);
	CHECK_EQ(ev.pid, 8060);
	CHECK(ev.comm && !strcmp(ev.comm, "lto1-ltrans-12"));
	CHECK_EQ(ev.migratetype, PS_MT_MOVABLE);
	CHECK_EQ(ev.percpu_refill, 1);
	CHECK_EQ(ps_reader_next(r, &ev, &err), 0);
	s = ps_reader_stats(r);
	CHECK_EQ(s->skipped[PS_SKIP_OTHER_EVENT], 1);	/* sched:sched_switch */
	CHECK_EQ(s->skipped[PS_SKIP_MALFORMED], 1);	/* the last line only */
	ps_reader_close(r);
}

int main(void)
{
	test_perf_script();
	test_reclaim_events();
	test_reclaim_events_old();
	test_task_of();
	test_kernel_trace_file();
	test_report_and_old_kernel();
	test_strict_and_bad_fields();
	CHECK_DONE();
}
