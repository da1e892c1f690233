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
	test_task_of();
	test_perf_script();
	test_kernel_trace_file();
	test_report_and_old_kernel();
	test_strict_and_bad_fields();
	CHECK_DONE();
}
