// SPDX-License-Identifier: GPL-2.0-or-later
/* cmd_stat.c - pagesim stat: the kernel's counters counted straight from a trace. */
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/mm/vmstat.h"
#include "lib/kver.h"
#include "trace/sysroot.h"
#include "cli/cli.h"
#include "cli/input.h"

static const char stat_usage[] =
	"usage: pagesim stat [OPTIONS] TRACE\n"
	"\n"
	"Counts the kernel's page-allocator counters straight from a trace, with no\n"
	"model: numa_* and pgalloc_*/pgfree as /proc/vmstat defines them, the per-node\n"
	"numastat counters (node<N>.*), the extfrag rows, and events per type.\n"
	"TRACE is ftrace text (tracefs trace or trace_pipe), trace-cmd report text, a\n"
	"trace.dat or a pagesim file; any of them may be zstd-compressed.\n"
	"\n"
	"options:\n"
	"  --sysroot DIR      machine layout from DIR/proc/zoneinfo, DIR/sys/devices/system/node/...\n"
	"                     ('/' is this machine); default: a before/ directory beside TRACE\n"
	"  --kernel RELEASE   interpret the trace as from this kernel (e.g. 4.3: old migratetype numbering)\n"
	"  --format FMT       vmstat (name value lines, default) or json\n"
	"  --check            compare with the kernel's own counters: after - before, from the\n"
	"                     sysroot (before) and --after DIR (default: the sysroot's sibling after/)\n"
	"  --after DIR        the sysroot snapshot taken when the trace ended\n"
	"  -o, --output FILE  write to FILE (replaced only once complete) instead of stdout\n"
	"  --strict           stop at the first line or event that cannot be used\n"
	"  --allow-truncated  use the events before the cut of a truncated input (exit status 0)\n"
	"  -q, --quiet        no warnings about skipped input\n"
	"  -v, --verbose      also the layout used and the events of other kinds skipped\n"
	"  -h, --help         this text\n"
	"  --version          pagesim's version\n"
	"\n"
	"exit status: 0 success, 1 failure (unreadable or truncated input, no events), 2 bad usage\n";

enum { OPT_SYSROOT = 256, OPT_KERNEL, OPT_FORMAT, OPT_CHECK, OPT_AFTER, OPT_STRICT, OPT_TRUNC };

static const struct option stat_options[] = {
	{ "sysroot", required_argument, NULL, OPT_SYSROOT },
	{ "kernel", required_argument, NULL, OPT_KERNEL },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "after", required_argument, NULL, OPT_AFTER },
	{ "output", required_argument, NULL, 'o' },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "allow-truncated", no_argument, NULL, OPT_TRUNC },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	PS_OPTION_VERSION,
	{ NULL, 0, NULL, 0 },
};

/* Trace value vs the kernel's after - before, for every counter both have. */
static int print_check(FILE *f, const struct ps_kv *trace, const struct ps_fsrc *before,
		       const struct ps_fsrc *after)
{
	struct ps_kv kb, ka;
	struct ps_error err = { { 0 } };
	int ret = -1;

	ps_kv_init(&kb);
	ps_kv_init(&ka);
	if (ps_sysroot_load_counters_src(before, &kb, &err) < 0 || ps_sysroot_load_counters_src(after, &ka, &err) < 0) {
		ps_error("--check: %s", err.msg);
		goto out;
	}
	fprintf(f, "# %-36s %14s %14s %14s %9s\n", "counter", "trace", "kernel", "trace-kernel", "diff%");
	for (int i = 0; i < trace->nr; i++) {
		const struct ps_kv_item *t = &trace->items[i];
		const struct ps_kv_item *b = ps_kv_get(&kb, t->name), *a = ps_kv_get(&ka, t->name);
		long long delta, diff;

		if (!a || !b)
			continue;
		delta = a->value - b->value;
		diff = t->value - delta;
		if (delta)
			fprintf(f, "%-38s %14lld %14lld %14lld %+8.1f%%\n", t->name, (long long)t->value, delta, diff,
				100.0 * diff / (double)llabs(delta));
		else
			fprintf(f, "%-38s %14lld %14lld %14lld %9s\n", t->name, (long long)t->value, delta, diff,
				diff ? "inf" : "0.0%");
	}
	ret = 0;
out:
	ps_kv_free(&kb);
	ps_kv_free(&ka);
	return ret;
}

int cmd_stat(int argc, char **argv)
{
	struct ps_input_opts io = { 0 };
	struct ps_input in;
	struct ps_counters *c;
	struct ps_kv kv;
	const struct ps_event *evs;
	struct ps_error err = { { 0 } };
	struct ps_out out;
	const char *format = "vmstat", *after = NULL, *output = NULL;
	char after_buf[4096];
	int check = 0, quiet = 0, allow_trunc = 0, opt, r, ret = PS_EXIT_FAIL;

	optind = 1;
	while ((opt = ps_getopt("stat", argc, argv, "o:qvh", stat_options)) != -1) {
		switch (opt) {
		case OPT_SYSROOT: io.sysroot = optarg; break;
		case OPT_KERNEL: io.kernel = optarg; break;
		case OPT_FORMAT: format = optarg; break;
		case OPT_CHECK: check = 1; break;
		case OPT_AFTER: after = optarg; check = 1; break;
		case 'o': output = optarg; break;
		case OPT_STRICT: io.reader_flags |= PS_RD_STRICT; break;
		case OPT_TRUNC: allow_trunc = 1; break;
		case 'q': quiet = 1; break;
		case 'v': io.verbose = 1; break;
		case 'h': fputs(stat_usage, stdout); return PS_EXIT_OK;
		case PS_OPT_VERSION: return ps_print_version();
		default: return PS_EXIT_USAGE;
		}
	}
	if (strcmp(format, "vmstat") && strcmp(format, "json"))
		return ps_usage_error("stat", "--format must be vmstat or json, not '%s'", format);
	if (optind != argc - 1)
		return ps_usage_error("stat", optind >= argc ? "missing TRACE" : "more than one TRACE given");
	if (check && format[0] == 'j')
		return ps_usage_error("stat", "--check prints a table; it does not combine with --format json");
	io.trace = argv[optind];
	io.quiet = quiet;
	if (ps_input_open(&in, &io) < 0)
		return PS_EXIT_FAIL;
	if (check && !after && !in.embedded) {
		if (!in.sysroot[0] || !ps_input_default_after(in.sysroot, after_buf, sizeof(after_buf))) {
			ps_input_close(&in);
			return ps_usage_error("stat", "--check needs --after DIR (no after/ beside the sysroot '%s')",
					      in.sysroot[0] ? in.sysroot : "(none)");
		}
		after = after_buf;
	}
	if (check && !in.embedded)
		ps_note_sysroot(after);
	c = malloc(sizeof(*c));
	ps_kv_init(&kv);
	if (!c) {
		ps_error("out of memory");
		goto out;
	}
	{
		int pb = ps_reader_pageblock_order(in.reader);

		ps_counters_init(c, &in.machine, in.sysroot[0] || pb < 0 ? in.pageblock_order : pb);
		c->numa_rule = ps_numa_stat_rule_for_kver(ps_reader_kver(in.reader));
	}
	while ((r = ps_reader_next_batch(in.reader, &evs, &err)) > 0)
		ps_counters_batch(c, evs, r);
	if (r < 0) {
		ps_error("%s", err.msg);
		goto out;
	}
	if (ps_input_report(&in, quiet, allow_trunc) < 0)
		goto out;
	if (c->pfn_outside_zones)
		ps_warn("skipped %llu events whose pfn lies in no zone of %s; first: %s pfn %#llx (is the sysroot from the traced machine?)",
			(unsigned long long)c->pfn_outside_zones, in.machine.source,
			ps_event_names[c->first_outside_type], (unsigned long long)c->first_outside_pfn);
	if (c->cpu_without_node)
		ps_warn("skipped %llu allocations on CPUs that no node lists (is the sysroot from the traced machine?)",
			(unsigned long long)c->cpu_without_node);
	if (ps_counters_to_kv(c, &kv) < 0) {
		ps_error("out of memory");
		goto out;
	}
	{
		const struct ps_reader_stats *s = ps_reader_stats(in.reader);

		ps_kv_set(&kv, "events_lost", (int64_t)(s->lost_events + s->lost_overwritten));
		ps_kv_set(&kv, "events_lost_unknown_count", (int64_t)s->lost_unknown);
		ps_kv_set(&kv, "events_skipped", (int64_t)(s->skipped[0] + s->skipped[1] + s->skipped[2]));
	}
	if (check) {
		struct ps_fsrc sb, sa;

		if (ps_out_open(&out, output, &err) < 0) {
			ps_error("%s", err.msg);
			goto out;
		}
		if (in.embedded) {
			ps_fsrc_reader(&sb, in.reader, "before", io.trace);
			ps_fsrc_reader(&sa, in.reader, "after", io.trace);
		} else {
			ps_fsrc_dir(&sb, in.sysroot);
			ps_fsrc_dir(&sa, after);
		}
		if (print_check(out.f, &kv, &sb, &sa) < 0) {
			ps_out_abort(&out);
			goto out;
		}
		if (ps_out_commit(&out, &err) < 0) {
			ps_error("%s", err.msg);
			goto out;
		}
	} else {
		char kbuf[32];
		const char *meta[] = { "trace", io.trace, "format", ps_reader_format(in.reader),
				       "kernel", kbuf, "layout", in.machine.source };

		ps_kver_format(ps_reader_kver(in.reader), kbuf, sizeof(kbuf));
		if (ps_write_counters(output, format[0] == 'j', &kv, meta, 4) < 0)
			goto out;
	}
	ret = PS_EXIT_OK;
out:
	ps_kv_free(&kv);
	free(c);
	ps_input_close(&in);
	return ret;
}
