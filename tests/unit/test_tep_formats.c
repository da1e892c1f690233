// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_tep_formats.c - trace/tep_formats.c's tep_parse_event(), which takes
 * the place of libtraceevent's in the process: the events pagesim reads
 * (lib/event.h) are parsed with an empty print format, except that the
 * print format of an event whose gfp_flags are decoded is kept and parsed
 * into a second handle on demand (ps_tep_print_handle()); of any other
 * event only the id and name are kept (ps_tep_other_name()), per tep
 * handle, until ps_tep_forget().  And its tep_parse_saved_cmdlines(), which
 * must register what libtraceevent's own would, whatever the lines hold.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "trace/tep_formats.h"
#include "check.h"

/* the fields every event's format opens with */
#define COMMON_FIELDS \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"

static const char sched_fmt[] =
	"name: sched_process_free\n"
	"ID: 370\n"
	"format:\n"
	COMMON_FIELDS
	"\n"
	"\tfield:__data_loc char[] comm;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"comm=%s pid=%d prio=%d\", __get_str(comm), REC->pid, REC->prio\n";

static const char kmem_fmt[] =
	"name: mm_page_free\n"
	"ID: 655\n"
	"format:\n"
	COMMON_FIELDS
	"\n"
	"\tfield:unsigned long pfn;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int order;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"pfn=0x%lx order=%d\", REC->pfn, REC->order\n";

/* mm_page_alloc with a print format of show_gfp_flags()'s shape, cut short */
static const char alloc_fmt[] =
	"name: mm_page_alloc\n"
	"ID: 656\n"
	"format:\n"
	COMMON_FIELDS
	"\n"
	"\tfield:unsigned long pfn;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int order;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long gfp_flags;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"pfn=0x%lx order=%d gfp_flags=%s\", REC->pfn, REC->order, "
	"(REC->gfp_flags) ? __print_flags(REC->gfp_flags, \"|\", "
	"{(unsigned long)(((( gfp_t)(0x400u|0x800u)) | (( gfp_t)0x40u) | (( gfp_t)0x80u))), \"GFP_KERNEL\"}, "
	"{(unsigned long)(( gfp_t)0x20u), \"__GFP_HIGH\"}) : \"none\"\n";

/* a format with no ID line: nothing kept, no error */
static const char bad_fmt[] = "name: broken\nformat:\n";

/* cmdlines sections: the kernel's form, and what sscanf("%d %m[^\n]") reads otherwise */
static const char *const cmdlines[] = {
	"1 systemd\n12 kworker/0:1\n\n\n300 a b c\n007 zeros\n4194304 pid_max\n",
	"1 systemd\n45\tTAB\n  46 lead\n47  two\n48x\n49 \r\n52 after\n",
	"1 systemd\n1234567890 ten digits\n53 after\n",
	"1 systemd\n99999999999 overflow\n54 not reached\n",
	"1 systemd\n-3 minus\n+55 plus\n56\n57 not reached\n",
	"58 no newline at the end",
	"\n\n59 leading newlines\n60 ",
	"",
};

static const int cmdline_pids[] = { 1, 12, 300, 7, 4194304, 45, 46, 47, 48, 49, 52, 1234567890, 53, 54, -3, 55, 56,
				    57, 58, 59, 60 };

/* Each buffer through the stand-in and through libtraceevent's own: the same return, the same comms. */
static void test_cmdlines(void)
{
	int (*real)(struct tep_handle *, const char *);

	*(void **)&real = dlsym(RTLD_NEXT, "tep_parse_saved_cmdlines");
	CHECK(real != NULL);
	if (!real)
		return;
	for (size_t i = 0; i < sizeof(cmdlines) / sizeof(cmdlines[0]); i++) {
		struct tep_handle *mine = tep_alloc(), *theirs = tep_alloc();

		CHECK_EQ(tep_parse_saved_cmdlines(mine, cmdlines[i]), real(theirs, cmdlines[i]));
		for (size_t j = 0; j < sizeof(cmdline_pids) / sizeof(cmdline_pids[0]); j++) {
			int pid = cmdline_pids[j];
			const char *a = tep_data_comm_from_pid(mine, pid), *b = tep_data_comm_from_pid(theirs, pid);

			if (strcmp(a, b))
				fprintf(stderr, "buffer %zu pid %d: '%s' against '%s'\n", i, pid, a, b);
			CHECK(!strcmp(a, b));
		}
		tep_free(mine);
		tep_free(theirs);
	}
	/* the kernel's form is registered by the stand-in itself */
	{
		struct tep_handle *t = tep_alloc();

		CHECK_EQ(tep_parse_saved_cmdlines(t, cmdlines[0]), 0);
		CHECK(!strcmp(tep_data_comm_from_pid(t, 12), "kworker/0:1"));
		CHECK(!strcmp(tep_data_comm_from_pid(t, 300), "a b c"));
		CHECK(!strcmp(tep_data_comm_from_pid(t, 7), "zeros"));
		tep_free(t);
	}
}

int main(void)
{
	struct tep_handle *a = tep_alloc(), *b = tep_alloc();

	CHECK(a && b);
	unsetenv("PAGESIM_TDAT_ALL_FORMATS");
	CHECK_EQ(tep_parse_event(a, sched_fmt, strlen(sched_fmt), "sched"), 0);
	CHECK_EQ(tep_parse_event(a, kmem_fmt, strlen(kmem_fmt), "kmem"), 0);
	CHECK_EQ(tep_parse_event(a, bad_fmt, strlen(bad_fmt), "other"), 0);
	/* the sched event is not parsed, its name kept; the kmem one parsed */
	CHECK(tep_find_event(a, 370) == NULL);
	CHECK(ps_tep_other_name(a, 370) && !strcmp(ps_tep_other_name(a, 370), "sched_process_free"));
	CHECK(tep_find_event(a, 655) != NULL);
	CHECK(tep_find_event_by_name(a, "kmem", "mm_page_free") != NULL);
	CHECK(ps_tep_other_name(a, 655) == NULL);
	/* per handle */
	CHECK(ps_tep_other_name(b, 370) == NULL);
	/* the name is its line only, not what follows */
	CHECK_EQ(tep_parse_event(b, sched_fmt, 26, "sched"), 0);
	CHECK(ps_tep_other_name(b, 370) == NULL);
	CHECK_EQ(tep_parse_event(b, sched_fmt, 32, "sched"), 0);
	CHECK(ps_tep_other_name(b, 370) && !strcmp(ps_tep_other_name(b, 370), "sched_process_free"));

	/* mm_page_free's print format is not parsed: only its fields */
	CHECK(!strcmp(tep_find_event(a, 655)->print_fmt.format, ""));
	CHECK(ps_tep_print_handle(a, 655) == a);
	/* mm_page_alloc's is kept for a second handle, parsed the first time it is asked for */
	CHECK_EQ(tep_parse_event(a, alloc_fmt, strlen(alloc_fmt), "kmem"), 0);
	CHECK(tep_find_event(a, 656) && !strcmp(tep_find_event(a, 656)->print_fmt.format, ""));
	{
		struct tep_handle *p = ps_tep_print_handle(a, 656);
		unsigned char data[32] = { 0x90, 0x02 };	/* common_type 656 */
		struct tep_record rec = { .data = data, .size = sizeof(data) };
		struct trace_seq seq;

		CHECK(p && p != a && ps_tep_print_handle(a, 656) == p);
		CHECK(tep_find_event(p, 656) && tep_find_event(p, 655) == NULL);
		data[8] = 0x34;		/* pfn 0x1234 */
		data[9] = 0x12;
		data[16] = 2;		/* order 2 */
		data[24] = 0xc0;	/* 0xcc0: GFP_KERNEL */
		data[25] = 0x0c;
		trace_seq_init(&seq);
		tep_print_event(p, &seq, &rec, "%s", TEP_PRINT_INFO);
		trace_seq_terminate(&seq);
		CHECK(strstr(seq.buffer, "pfn=0x1234 order=2 gfp_flags=GFP_KERNEL") != NULL);
		trace_seq_destroy(&seq);
	}
	/* another handle has its own */
	CHECK(ps_tep_print_handle(b, 656) == b);
	/* forgotten with the handle */
	ps_tep_forget(a);
	CHECK(ps_tep_other_name(a, 370) == NULL);
	CHECK(ps_tep_print_handle(a, 656) == a);
	CHECK(ps_tep_other_name(b, 370) != NULL);
	ps_tep_forget(b);
	tep_free(a);
	tep_free(b);
	/* with PAGESIM_TDAT_ALL_FORMATS=1 (read once per process) see stat-tracedat-formats */
	test_cmdlines();
	CHECK_DONE();
}
