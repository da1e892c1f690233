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
#include "cli/timeline.h"

static const char stat_usage[] =
	"usage: pagesim stat [OPTIONS] TRACE\n"
	"\n"
	"Counts the kernel's page-allocator counters straight from a trace, with no\n"
	"model: numa_* and pgalloc_*/pgfree as /proc/vmstat defines them, the per-node\n"
	"numastat counters (node<N>.*), the extfrag rows, events per type, and with the\n"
	"page-cache, LRU or reclaim events pgsteal_*, pgscan_*, pageoutrun and\n"
	"kswapd_low/high_wmark_hit_quickly.\n"
	"TRACE is ftrace text (tracefs trace or trace_pipe), trace-cmd report text, a\n"
	"trace.dat, a perf.data, perf script text or a pagesim file; any of them may be\n"
	"compressed with zstd, gzip or xz.\n"
	"\n"
	"options:\n"
	"  --sysroot DIR      machine layout from DIR/proc/zoneinfo, DIR/sys/devices/system/node/...\n"
	"                     ('/' is this machine); default: a before/ directory beside TRACE\n"
	"  --kernel RELEASE   interpret the trace as from this kernel (e.g. 4.3: old migratetype numbering)\n"
	"  --format FMT       vmstat (name value lines, default) or json (also with --check)\n"
	"  --check            compare with the kernel's own counters: after - before, from the\n"
	"                     sysroot (before) and --after DIR (default: the sysroot's sibling after/)\n"
	"                     or a pagesim file's snapshots (the reclaim rows when the trace\n"
	"                     has vmscan events); each counter gets a status (ok,\n"
	"                     invisible, lost, differs) and a verdict line ends the table (agrees,\n"
	"                     incomplete, differs: pagesim-stat(1) says what each means)\n"
	"  --after DIR        the sysroot snapshot taken when the trace ended\n"
	PS_VIEW_USAGE
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
	PS_VIEW_OPTIONS,
	PS_OPTION_VERSION,
	{ NULL, 0, NULL, 0 },
};

/*
 * --check: the trace's value of each counter against the kernel's own
 * after - before.  A row agrees within the tolerance: 16, or 1% of the
 * kernel's delta if that is more (what counting around the tracing toggles
 * moves).  Beyond it, a shortfall of the allocation counters is explained
 * when together they have the signature of order-0 allocations on the local
 * node that emit no mm_page_alloc (the bulk allocator, alloc_pages_bulk,
 * counts numa_hit, numa_local and pgalloc once per page): the numa_hit,
 * numa_local and summed pgalloc_* shortfalls agree, and per node numa_hit
 * and local_node agree and add up to numa_hit.  A shortfall of a trace that
 * lost events may be those events.  docs/man/pagesim-stat.1.scd says the same.
 */
#define CHECK_TOL_ABS 16
#define CHECK_TOL_PCT 1

enum { ROW_OK, ROW_INVISIBLE, ROW_LOST, ROW_DIFFERS };
static const char *const row_status[] = { "ok", "invisible", "lost", "differs" };

struct check_row {
	const char *name;
	long long trace, kernel, diff;
	int alloc;		/* numa_hit, numa_local, pgalloc_*, nodeN.numa_hit, nodeN.local_node */
	int status;
};

struct check {
	struct check_row *rows;
	int nr;
	long long invisible_pages;	/* the pgalloc_* shortfall, when it has the signature */
	long long lost, lost_unknown;	/* events, places of unknown count */
	int verdict;			/* ROW_OK, ROW_LOST or ROW_DIFFERS */
};

static long long tolerance(long long kernel)
{
	long long pct = (llabs(kernel) * CHECK_TOL_PCT + 99) / 100;

	return pct > CHECK_TOL_ABS ? pct : CHECK_TOL_ABS;
}

static int within(long long a, long long b, long long tol)
{
	return llabs(a - b) <= tol;
}

static const struct check_row *row_get(const struct check *c, const char *name)
{
	for (int i = 0; i < c->nr; i++)
		if (!strcmp(c->rows[i].name, name))
			return &c->rows[i];
	return NULL;
}

/* The shortfalls of the allocation counters: order-0 local pages with no event? */
static int invisible_signature(struct check *c)
{
	const struct check_row *hit = row_get(c, "numa_hit"), *local = row_get(c, "numa_local");
	long long gap, pgalloc = 0, nodes = 0, tol;
	int have_nodes = 0;

	if (!hit || !local)
		return 0;
	gap = -hit->diff;
	tol = tolerance(hit->kernel);
	for (int i = 0; i < c->nr; i++) {
		const struct check_row *r = &c->rows[i];

		if (!r->alloc)
			continue;
		if (r->diff > tolerance(r->kernel))
			return 0;	/* the trace above the kernel: not something missing from it */
		if (!strncmp(r->name, "pgalloc_", 8))
			pgalloc -= r->diff;
		if (!strncmp(r->name, "node", 4) && strstr(r->name, ".numa_hit")) {
			char name[64];
			const struct check_row *l;

			snprintf(name, sizeof(name), "%.*s.local_node", (int)(strchr(r->name, '.') - r->name), r->name);
			l = row_get(c, name);
			if (!l || !within(r->diff, l->diff, tolerance(r->kernel)))
				return 0;
			nodes -= r->diff;
			have_nodes = 1;
		}
	}
	if (gap <= 0 || !within(-local->diff, gap, tol) || !within(pgalloc, gap, tol) ||
	    (have_nodes && !within(nodes, gap, tol)))
		return 0;
	c->invisible_pages = pgalloc;
	return 1;
}

static void classify(struct check *c, const struct ps_kv *trace)
{
	const struct ps_kv_item *l = ps_kv_get(trace, "events_lost"), *u = ps_kv_get(trace, "events_lost_unknown_count");
	int invisible = invisible_signature(c);

	c->lost = l ? l->value : 0;
	c->lost_unknown = u ? u->value : 0;
	c->verdict = ROW_OK;
	for (int i = 0; i < c->nr; i++) {
		struct check_row *r = &c->rows[i];

		if (llabs(r->diff) <= tolerance(r->kernel))
			r->status = ROW_OK;
		else if (r->diff < 0 && r->alloc && invisible)
			r->status = ROW_INVISIBLE;
		else if (r->diff < 0 && (c->lost || c->lost_unknown))
			r->status = ROW_LOST;
		else
			r->status = ROW_DIFFERS;
		if (r->status == ROW_DIFFERS || (r->status == ROW_LOST && c->verdict == ROW_OK))
			c->verdict = r->status;
	}
}

/* The rows counted from the vmscan events: who reclaimed how much, kswapd's runs, failed node reclaims. */
static int is_reclaim_counter(const char *name)
{
	return !strncmp(name, "pgsteal_", 8) || !strncmp(name, "pgscan_", 7) || !strcmp(name, "pageoutrun") ||
	       !strcmp(name, "kswapd_low_wmark_hit_quickly") || !strcmp(name, "kswapd_high_wmark_hit_quickly") ||
	       !strcmp(name, "zone_reclaim_failed");
}

/*
 * Whether the trace holds vmscan events: a trace recorded without them
 * (--events kmem,filemap,pagemap) has reclaim rows of 0, which say nothing
 * of the kernel's reclaim and are not compared.
 */
static int has_vmscan_events(const struct ps_kv *trace)
{
	for (int i = 0; i < trace->nr; i++)
		if (!strncmp(trace->items[i].name, "events_mm_vmscan_", 17) && trace->items[i].value)
			return 1;
	return 0;
}

static int is_alloc_counter(const char *name)
{
	const char *dot = strchr(name, '.');

	if (!strncmp(name, "node", 4) && dot)
		return !strcmp(dot, ".numa_hit") || !strcmp(dot, ".local_node");
	return !strcmp(name, "numa_hit") || !strcmp(name, "numa_local") || !strncmp(name, "pgalloc_", 8);
}

/* "a, b and c" of the rows of @status, into @buf */
static void row_list(const struct check *c, int status, int pct, char *buf, size_t len)
{
	int n = 0, total = 0;

	buf[0] = 0;
	for (int i = 0; i < c->nr; i++)
		total += c->rows[i].status == status;
	for (int i = 0; i < c->nr; i++) {
		const struct check_row *r = &c->rows[i];
		size_t l = strlen(buf);

		if (r->status != status)
			continue;
		n++;
		snprintf(buf + l, len - l, "%s%s", n == 1 ? "" : n == total ? " and " : ", ", r->name);
		l = strlen(buf);
		if (pct && r->kernel)
			snprintf(buf + l, len - l, " (%+.1f%%)", 100.0 * r->diff / (double)llabs(r->kernel));
		else if (pct)
			snprintf(buf + l, len - l, " (%+lld)", r->diff);
	}
}

static void verdict_text(const struct check *c, char *buf, size_t len)
{
	char rows[2048];

	if (c->verdict == ROW_DIFFERS) {
		row_list(c, ROW_DIFFERS, 1, rows, sizeof(rows));
		snprintf(buf, len, "differs: %s beyond what the trace can explain", rows);
	} else if (c->verdict == ROW_LOST) {
		row_list(c, ROW_LOST, 1, rows, sizeof(rows));
		if (c->lost_unknown)
			snprintf(buf, len, "incomplete: the trace lost %lld events and more in %lld places of unknown "
				 "count, which can account for %s", c->lost, c->lost_unknown, rows);
		else
			snprintf(buf, len, "incomplete: the trace lost %lld events, which can account for %s", c->lost,
				 rows);
	} else if (c->invisible_pages && (row_list(c, ROW_INVISIBLE, 0, rows, sizeof(rows)), rows[0])) {
		snprintf(buf, len, "agrees: %s %s below the kernel's by order-0 local allocations the trace cannot "
			 "show (%lld pages in all, as the bulk allocator makes them); the rest within %d or %d%%", rows,
			 strstr(rows, " and ") ? "are" : "is", c->invisible_pages, CHECK_TOL_ABS, CHECK_TOL_PCT);
	} else {
		snprintf(buf, len, "agrees: every counter within %d or %d%% of the kernel's", CHECK_TOL_ABS,
			 CHECK_TOL_PCT);
	}
}

static void print_check_table(FILE *f, const struct check *c)
{
	char v[4096];

	fprintf(f, "# %-36s %14s %14s %14s %9s  %s\n", "counter", "trace", "kernel", "trace-kernel", "diff%",
		"status");
	for (int i = 0; i < c->nr; i++) {
		const struct check_row *r = &c->rows[i];
		char pct[16];

		if (r->kernel)
			snprintf(pct, sizeof(pct), "%+.1f%%", 100.0 * r->diff / (double)llabs(r->kernel));
		else
			snprintf(pct, sizeof(pct), "%s", r->diff ? "inf" : "0.0%");
		fprintf(f, "%-38s %14lld %14lld %14lld %9s  %s\n", r->name, r->trace, r->kernel, r->diff, pct,
			row_status[r->status]);
	}
	verdict_text(c, v, sizeof(v));
	fprintf(f, "verdict: %s\n", v);
}

static void print_check_json(FILE *f, const struct check *c, const char *const *meta, int nr_meta)
{
	char v[4096];

	fputs("{\n", f);
	for (int i = 0; i < nr_meta; i++) {
		fputs("  ", f);
		ps_print_json_str(f, meta[2 * i]);
		fputs(": ", f);
		ps_print_json_str(f, meta[2 * i + 1] ? meta[2 * i + 1] : "");
		fputs(",\n", f);
	}
	fprintf(f, "  \"tolerance\": { \"abs\": %d, \"pct\": %d },\n", CHECK_TOL_ABS, CHECK_TOL_PCT);
	fputs("  \"counters\": [\n", f);
	for (int i = 0; i < c->nr; i++) {
		const struct check_row *r = &c->rows[i];

		fputs("    { \"name\": ", f);
		ps_print_json_str(f, r->name);
		fprintf(f, ", \"trace\": %lld, \"kernel\": %lld, \"diff\": %lld, \"diff_pct\": ", r->trace, r->kernel,
			r->diff);
		if (r->kernel)
			fprintf(f, "%.4f", 100.0 * r->diff / (double)llabs(r->kernel));
		else
			fputs("null", f);
		fprintf(f, ", \"status\": \"%s\" }%s\n", row_status[r->status], i + 1 < c->nr ? "," : "");
	}
	fputs("  ],\n", f);
	fprintf(f, "  \"invisible_pages\": %lld,\n  \"events_lost\": %lld,\n  \"events_lost_unknown_count\": %lld,\n",
		c->invisible_pages, c->lost, c->lost_unknown);
	fprintf(f, "  \"verdict\": \"%s\",\n  \"verdict_text\": ",
		c->verdict == ROW_DIFFERS ? "differs" : c->verdict == ROW_LOST ? "incomplete" : "agrees");
	verdict_text(c, v, sizeof(v));
	ps_print_json_str(f, v);
	fputs("\n}\n", f);
}

/* Trace value vs the kernel's after - before, for every counter both have. */
static int print_check(FILE *f, int json, const struct ps_kv *trace, const struct ps_fsrc *before,
		       const struct ps_fsrc *after, const char *const *meta, int nr_meta)
{
	struct ps_kv kb, ka;
	struct ps_error err = { { 0 } };
	struct check c = { 0 };
	int ret = -1, vmscan = has_vmscan_events(trace);

	ps_kv_init(&kb);
	ps_kv_init(&ka);
	if (ps_sysroot_load_counters_src(before, &kb, &err) < 0 || ps_sysroot_load_counters_src(after, &ka, &err) < 0 ||
	    ps_kv_check_rises(&kb, &ka, before->name, after->name, &err) < 0) {
		ps_error("--check: %s", err.msg);
		goto out;
	}
	c.rows = calloc(trace->nr ? trace->nr : 1, sizeof(*c.rows));
	if (!c.rows) {
		ps_error("out of memory");
		goto out;
	}
	for (int i = 0; i < trace->nr; i++) {
		const struct ps_kv_item *t = &trace->items[i];
		const struct ps_kv_item *b = ps_kv_get(&kb, t->name), *a = ps_kv_get(&ka, t->name);
		struct check_row *r = &c.rows[c.nr];

		if (!a || !b || (!vmscan && is_reclaim_counter(t->name)))
			continue;
		r->name = t->name;
		r->trace = t->value;
		r->kernel = a->value - b->value;
		r->diff = r->trace - r->kernel;
		r->alloc = is_alloc_counter(t->name);
		c.nr++;
	}
	if (!c.nr) {
		ps_error("--check: no counter of the trace is in both snapshots' proc/vmstat (%s, %s)", before->name,
			 after->name);
		goto out;
	}
	classify(&c, trace);
	if (json)
		print_check_json(f, &c, meta, nr_meta);
	else
		print_check_table(f, &c);
	ret = 0;
out:
	free(c.rows);
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
	char after_buf[4096], filter[512];
	struct ps_view_opts vo = { 0 };
	struct ps_view_run view = { .o = &vo };
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
		case PS_OPT_INTERVAL ... PS_OPT_VIEW_LAST:
			if ((r = ps_view_opt(&vo, "stat", opt, optarg)))
				return r;
			break;
		default: return PS_EXIT_USAGE;
		}
	}
	if (strcmp(format, "vmstat") && strcmp(format, "json"))
		return ps_usage_error("stat", "--format must be vmstat or json, not '%s'", format);
	if (optind != argc - 1)
		return ps_usage_error("stat", optind >= argc ? "missing TRACE" : "more than one TRACE given");
	if ((r = ps_view_check(&vo, "stat")))
		return r;
	if (check && (vo.nr_by || vo.f.on))
		return ps_usage_error("stat", "--check compares the totals with the kernel's: not with --by or a filter");
	io.trace = argv[optind];
	io.quiet = quiet;
	if (ps_view_needs_comm(&vo))
		io.reader_flags |= PS_RD_COMM;
	if (ps_filter_load_markers(&vo.f, io.trace) < 0)
		return PS_EXIT_FAIL;
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
	ps_filter_describe(&vo.f, filter, sizeof(filter));
	if (vo.timeline) {
		char kbuf[32];
		const char *meta[] = { "command", "stat", "trace", io.trace, "format", ps_reader_format(in.reader),
				       "kernel", kbuf, "policy", "-", "filter", filter };

		ps_kver_format(ps_reader_kver(in.reader), kbuf, sizeof(kbuf));
		if (ps_tl_out_open(&view.w, &vo, meta, 6) < 0)
			goto out;
		view.have_w = 1;
	}
	if (vo.nr_by && !(view.by = ps_by_create(&vo, &in.machine))) {
		ps_error("out of memory");
		goto out;
	}
	if (view.have_w || view.by || vo.f.on) {
		r = ps_view_count(&view, in.reader, c, &err);
	} else {
		while ((r = ps_reader_next_batch(in.reader, &evs, &err)) > 0)
			ps_counters_batch(c, evs, r);
	}
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
		char kbuf[32];
		const char *meta[] = { "trace", io.trace, "format", ps_reader_format(in.reader),
				       "kernel", kbuf, "layout", in.machine.source };

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
		ps_kver_format(ps_reader_kver(in.reader), kbuf, sizeof(kbuf));
		if (ps_sysroot_same_machine(&in.machine, &sb, &sa, &err) < 0) {
			ps_error("--check: %s", err.msg);
			ps_out_abort(&out);
			goto out;
		}
		if (print_check(out.f, format[0] == 'j', &kv, &sb, &sa, meta, 4) < 0) {
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
				       "kernel", kbuf, "layout", in.machine.source, "filter", filter };

		ps_kver_format(ps_reader_kver(in.reader), kbuf, sizeof(kbuf));
		if (view.by ? ps_by_write(view.by, output, format[0] == 'j', meta, vo.f.on ? 5 : 4) < 0 :
			      ps_write_counters(output, format[0] == 'j', &kv, meta, vo.f.on ? 5 : 4) < 0)
			goto out;
	}
	ret = PS_EXIT_OK;
out:
	if (view.have_w)
		ps_tl_out_abort(&view.w);
	ps_by_destroy(view.by);
	ps_view_free(&vo);
	ps_kv_free(&kv);
	free(c);
	ps_input_close(&in);
	return ret;
}
