// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_tdat_formats.c - trace/tdat.c's tep_parse_event(), which takes the
 * place of libtraceevent's in the process: the formats of the systems
 * pagesim reads (lib/event.h, and "ftrace") are parsed, of any other event
 * only the id and name are kept (ps_tdat_other_name()), per tep handle.
 */
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "trace/reader-local.h"
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

/* a format with no ID line: nothing kept, no error */
static const char bad_fmt[] = "name: broken\nformat:\n";

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
	CHECK(ps_tdat_other_name(a, 370) && !strcmp(ps_tdat_other_name(a, 370), "sched_process_free"));
	CHECK(tep_find_event(a, 655) != NULL);
	CHECK(tep_find_event_by_name(a, "kmem", "mm_page_free") != NULL);
	CHECK(ps_tdat_other_name(a, 655) == NULL);
	/* per handle */
	CHECK(ps_tdat_other_name(b, 370) == NULL);
	/* the name is its line only, not what follows */
	CHECK_EQ(tep_parse_event(b, sched_fmt, 26, "sched"), 0);
	CHECK(ps_tdat_other_name(b, 370) == NULL);
	CHECK_EQ(tep_parse_event(b, sched_fmt, 32, "sched"), 0);
	CHECK(ps_tdat_other_name(b, 370) && !strcmp(ps_tdat_other_name(b, 370), "sched_process_free"));
	tep_free(a);
	tep_free(b);
	CHECK_DONE();
}
