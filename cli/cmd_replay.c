// SPDX-License-Identifier: GPL-2.0-or-later
/* cmd_replay.c - pagesim replay: a trace through the buddy model, in follow or simulate mode. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/config/machfile.h"
#include "sim/replay/replay.h"
#include "lib/kver.h"
#include "trace/sysroot.h"
#include "cli/cli.h"
#include "cli/configs.h"
#include "cli/input.h"
#include "cli/pass1.h"
#include "cli/policyopt.h"
#include "cli/timeline.h"

static const char replay_usage[] =
	"usage: pagesim replay [OPTIONS] TRACE\n"
	"\n"
	"Replays a trace through a model of the buddy allocator of every zone of the\n"
	"machine and prints stat's counters plus the model's own (replay_*, model_*).\n"
	"\n"
	"  --mode follow      apply the kernel's own placements; anything the model cannot\n"
	"                     do is a fidelity defect (replay_defects); default\n"
	"  --mode simulate    take only the requests and frees from the trace; the model\n"
	"                     chooses every block under --policy\n"
	"\n"
	"options:\n"
	"  --sysroot DIR      the layout of the machine the trace was recorded on (default: a\n"
	"                     before/ directory beside TRACE, or the snapshots in a pagesim file;\n"
	"                     needed, except by --mode simulate --machine)\n"
	"  --machine NAME|FILE|DIR  replay on another machine (simulate mode): a machine\n"
	"                     file, by path or by name ('pagesim help machines' lists them),\n"
	"                     or a sysroot directory\n"
	"  --cpu-map MAP      traced CPUs onto the other machine's nodes, e.g. 0-1:0,2-3:1\n"
	"                     (default: traced node N goes to node N modulo the nodes, each CPU\n"
	"                     to the CPU of the same rank there)\n"
	"  --policy NAME|FILE a policy file of 'key = value' lines by path, a kernel profile,\n"
	"                     any release (4.9, 6.1.0-57-amd64) mapped to its profile, or a\n"
	"                     policy file by name (wsf-100); 'pagesim help policies' lists the\n"
	"                     names; default: the trace's own kernel and the recorded\n"
	"                     /proc/sys/vm.  Profiles:\n"
	"                     %s\n"
	"  --set KEY=VALUE    a tunable, after --policy: kernel, vm.min_free_kbytes,\n"
	"                     vm.watermark_scale_factor, vm.watermark_boost_factor,\n"
	"                     vm.zone_reclaim_mode, vm.defrag_mode, pcp.batch, pcp.high, ...\n"
	"                     ('pagesim help keys' lists them); repeatable\n"
	"  --layout NAME|FILE struct zone layout for the cache-line model: 3.17 or 4.0\n"
	"                     (default), or a layout file (docs/lock-model.md); the lock\n"
	"                     model's costs are --set lock.acquire_ns=N, lock.page_ns=N\n"
	"  --kernel RELEASE   interpret the trace as from this kernel\n"
	"  --format FMT       vmstat (default) or json\n"
	"  --state-dir DIR    write the model's final buddyinfo, pagetypeinfo, unusable_index\n"
	"                     and extfrag_index (kernel formats), pageblocks (each pageblock's\n"
	"                     migratetype, where fallbacks stole or claimed) and info into DIR\n"
	"  --untraced-use     simulate: the memory the kernel used with no event (what its\n"
	"                     zones lack at the end of the trace against the trace's own\n"
	"                     frees and allocations) is taken by the model too, evenly\n"
	"                     over the trace (replay_untraced_use_pages)\n"
	"  --after DIR        the recorded end state for --untraced-use (default: the\n"
	"                     sysroot's sibling after/, or the trace's own snapshot)\n"
	"  --fold-invisible   follow: count the allocations the trace does not show (the\n"
	"                     bulk allocator's, found by the trace's per-CPU lists) in the\n"
	"                     numa_*/pgalloc_* rows; simulate mode replays them as requests\n"
	"                     and always counts them there (replay_invisible_* apart)\n"
	"  --ensemble N       simulate: N replays (2 to 1000), each perturbing what the trace\n"
	"                     cannot pin down from a seed of its own (kswapd's wake latency by\n"
	"                     up to 500 us, the per-CPU vmstat drift of the free counts the\n"
	"                     watermark checks read, the order of other CPUs' events at the\n"
	"                     same time); prints each counter's mean and sample stddev as\n"
	"                     'name mean stddev' (diff reads it as N repeats); deterministic\n"
	"  --perturb K        simulate: one replay, perturbed as --ensemble's member K (1 to 1000)\n"
	PS_VIEW_USAGE
	"  --stats            print model size (bytes per simulated page) on stderr\n"
	"  --check-invariants check every model invariant after each event (slow)\n"
	"  -v, --verbose      on stderr: the layout and profile used, the events of other\n"
	"                     kinds skipped, and each fidelity defect (the first 100)\n"
	"  -o, --output FILE  write to FILE (replaced only once complete)\n"
	"  --strict           stop at the first line or event that cannot be used\n"
	"  --allow-truncated  use the events before the cut of a truncated input\n"
	"  -q, --quiet        no warnings about skipped input\n"
	"  -h, --help         this text\n"
	"  --version          pagesim's version\n"
	"\n"
	"TRACE must be a file (it is read twice: once to infer the starting state;\n"
	"a pagesim file that carries pagesim convert's summary of that pass, once).\n"
	"exit status: 0 success, 1 failure, 2 bad usage\n";

enum { OPT_MODE = 256, OPT_SYSROOT, OPT_MACHINE, OPT_CPUMAP, OPT_LAYOUT, OPT_POLICY, OPT_SET, OPT_KERNEL, OPT_FORMAT, OPT_STATE, OPT_FOLD,
       OPT_STATS, OPT_CHECK, OPT_STRICT, OPT_TRUNC, OPT_AFTER, OPT_UNTRACED, OPT_ENSEMBLE, OPT_PERTURB };

static const struct option replay_options[] = {
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "sysroot", required_argument, NULL, OPT_SYSROOT },
	{ "machine", required_argument, NULL, OPT_MACHINE },
	{ "cpu-map", required_argument, NULL, OPT_CPUMAP },
	{ "layout", required_argument, NULL, OPT_LAYOUT },
	{ "policy", required_argument, NULL, OPT_POLICY },
	{ "set", required_argument, NULL, OPT_SET },
	{ "kernel", required_argument, NULL, OPT_KERNEL },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "state-dir", required_argument, NULL, OPT_STATE },
	{ "fold-invisible", no_argument, NULL, OPT_FOLD },
	{ "after", required_argument, NULL, OPT_AFTER },
	{ "untraced-use", no_argument, NULL, OPT_UNTRACED },
	{ "ensemble", required_argument, NULL, OPT_ENSEMBLE },
	{ "perturb", required_argument, NULL, OPT_PERTURB },
	{ "stats", no_argument, NULL, OPT_STATS },
	{ "check-invariants", no_argument, NULL, OPT_CHECK },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "allow-truncated", no_argument, NULL, OPT_TRUNC },
	{ "verbose", no_argument, NULL, 'v' },
	{ "output", required_argument, NULL, 'o' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	PS_VIEW_OPTIONS,
	PS_OPTION_VERSION,
	{ NULL, 0, NULL, 0 },
};

/* DIR/info: what the state is of ("name: value" lines; pagesim plot titles its maps with them). */
static int write_info(const char *dir, const char *const *meta, int nr_meta)
{
	struct ps_error err = { { 0 } };
	struct ps_out out;
	char path[4096];

	snprintf(path, sizeof(path), "%s/info", dir);
	if (ps_out_open(&out, path, &err) < 0) {
		ps_error("%s", err.msg);
		return -1;
	}
	fprintf(out.f, "# the run that left this state\npagesim: %s\n", PAGESIM_VERSION);
	for (int i = 0; i < nr_meta; i++)
		fprintf(out.f, "%s: %s\n", meta[2 * i], meta[2 * i + 1]);
	if (ps_out_commit(&out, &err) < 0) {
		ps_error("%s", err.msg);
		return -1;
	}
	return 0;
}

static int write_state(const char *dir, struct ps_replay *r)
{
	static const struct {
		const char *name;
		void (*fn)(const struct ps_replay *, FILE *);
	} files[] = {
		{ "buddyinfo", ps_replay_write_buddyinfo },
		{ "pagetypeinfo", ps_replay_write_pagetypeinfo },
		{ "unusable_index", ps_replay_write_unusable_index },
		{ "extfrag_index", ps_replay_write_extfrag_index },
		{ "pageblocks", ps_replay_write_pageblocks },
	};
	struct ps_error err = { { 0 } };

	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		ps_error("cannot create --state-dir '%s': %s", dir, strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[4096];
		struct ps_out out;

		snprintf(path, sizeof(path), "%s/%s", dir, files[i].name);
		if (ps_out_open(&out, path, &err) < 0) {
			ps_error("%s", err.msg);
			return -1;
		}
		files[i].fn(r, out.f);
		if (ps_out_commit(&out, &err) < 0) {
			ps_error("%s", err.msg);
			return -1;
		}
	}
	return 0;
}

/*
 * The recorded machine's end state for --untraced-use: --after DIR, else
 * the sysroot's sibling after/, else the trace's own "after" snapshot.
 * Returns 0 (*@out NULL if there is none), or -1 after printing why the
 * one found is unreadable.
 */
static int load_after(struct ps_input *in, const struct ps_input_opts *io, const char *dir, struct ps_machine **out)
{
	struct ps_machine *m = malloc(sizeof(*m));
	struct ps_error err = { { 0 } };
	char buf[4096], what[256];

	*out = NULL;
	if (!m) {
		ps_error("out of memory");
		return -1;
	}
	if (dir || (!in->embedded && in->sysroot[0] && ps_input_default_after(in->sysroot, buf, sizeof(buf)))) {
		ps_note_sysroot(dir ? dir : buf);
		if (ps_sysroot_load_machine(dir ? dir : buf, m, &err) < 0) {
			ps_error("--untraced-use: the end state: %s", err.msg);
			free(m);
			return -1;
		}
		if (!ps_machine_same(&in->machine, m, what, sizeof(what))) {
			ps_error("--untraced-use: the end state %s is not of the machine of %s: it has %s", dir ? dir : buf,
				 in->sysroot, what);
			free(m);
			return -1;
		}
	} else {
		struct ps_fsrc src;

		ps_fsrc_reader(&src, in->reader, "after", io->trace);
		if (!in->embedded || ps_sysroot_load_machine_src(&src, m, &err) < 0) {
			free(m);
			return 0;
		}
	}
	*out = m;
	return 0;
}

/*
 * One past the highest page the trace names, for an assumed layout that
 * only has to tell the trace's pfns apart (simulate on another machine).
 */
static int trace_pfn_end(const struct ps_input_opts *io, uint64_t *end)
{
	struct ps_input_opts o = *io;
	struct ps_input in;
	struct ps_error err;
	const struct ps_event *evs;
	int rc;

	o.quiet = 1;
	*end = 0;
	if (ps_input_open(&in, &o) < 0)
		return -1;
	while ((rc = ps_reader_next_batch(in.reader, &evs, &err)) > 0)
		for (int i = 0; i < rc; i++)
			if (evs[i].pfn != PS_PFN_NONE && evs[i].pfn + (1ull << evs[i].order) > *end)
				*end = evs[i].pfn + (1ull << evs[i].order);
	if (rc < 0)
		ps_error("%s", err.msg);
	ps_input_close(&in);
	return rc < 0 ? -1 : 0;
}

/*
 * What the replay counted but could not use, on stderr as stat reports it:
 * events outside every zone, allocations on CPUs no node lists, orders out
 * of range, zone-lock sections outside the lock model.  Read from the
 * counters the replay produced.
 */
static void report_unused(const struct ps_kv *kv, const struct ps_machine *m)
{
	static const struct {
		const char *name, *what, *why;
	} rows[] = {
		{ "pfn_outside_zones", "events whose pfn lies in no zone of", " (is the sysroot from the traced machine?)" },
		{ "cpu_without_node", "allocations on CPUs that no node lists in", " (is the sysroot from the traced machine?)" },
		{ "events_order_out_of_range", "events of an order above 10 on", "" },
		{ "zone_lock_ignored", "zone-lock sections on a zone or CPU the lock model lacks on", "" },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct ps_kv_item *it = ps_kv_get(kv, rows[i].name);

		if (it && it->value > 0)
			ps_warn("skipped %llu %s %s%s", (unsigned long long)it->value, rows[i].what,
				m->source ? m->source : "the machine", rows[i].why);
	}
}

/* A traced CPU two items of --cpu-map name (each item parsed alone), or -1. */
static int cpu_map_overlap(const char *text)
{
	static int16_t seen[PS_MAX_CPUS], one[PS_MAX_CPUS];
	char item[128];

	for (int c = 0; c < PS_MAX_CPUS; c++)
		seen[c] = -1;
	while (*text) {
		size_t n = strcspn(text, ",");

		snprintf(item, sizeof(item), "%.*s", (int)n, text);
		text += n + (text[n] == ',');
		for (int c = 0; c < PS_MAX_CPUS; c++)
			one[c] = -1;
		if (ps_replay_parse_cpu_map(item, one) < 0)
			continue;
		for (int c = 0; c < PS_MAX_CPUS; c++) {
			if (one[c] >= 0 && seen[c] >= 0)
				return c;
			if (one[c] >= 0)
				seen[c] = one[c];
		}
	}
	return -1;
}

/* What a replay shows besides its counters: a timeline, breakdowns, filters, the state directory. */
struct member_view {
	struct ps_view_opts *vo;
	struct ps_view_run *view;
	const char *const *meta;	/* command, trace, mode, policy, kernel, filter */
	int nr_meta;
	const char *state_dir;
};

/* Hands the replay the view's sampling tick, filter and breakdown before pass 2. */
static int setup_view(struct ps_replay *r, const struct member_view *mv, const struct ps_machine *traced)
{
	struct ps_view_opts *vo = mv->vo;
	struct ps_view_run *view = mv->view;
	struct ps_replay_view v = {
		.interval_ns = vo->timeline ? vo->interval_ns : 0,
		.row = ps_view_row,
		.select = vo->f.on ? ps_view_select : NULL,
		.counted = vo->nr_by ? ps_view_counted : NULL,
		.ctx = view,
		.fallback_marks = mv->state_dir != NULL,
	};
	char msg[512];

	if (!vo->timeline && !vo->nr_by && !vo->f.on && !mv->state_dir)
		return 0;
	if (vo->timeline) {
		if (ps_tl_out_open(&view->w, vo, mv->meta, mv->nr_meta) < 0)
			return -1;
		view->have_w = 1;
	}
	if (vo->nr_by && !(view->by = ps_by_create(vo, traced))) {
		ps_error("out of memory");
		return -1;
	}
	if (ps_replay_set_view(r, &v, msg, sizeof(msg)) < 0) {
		ps_error("%s", msg);
		return -1;
	}
	return 0;
}

/*
 * One replay of the trace: pass 1 over @in (open at its start; closed
 * here), the model's start, pass 2 and its counters into @kv, with what
 * @mv asks for beside them.  *@rp is the replay (the caller destroys it).
 * 0, or -1 after printing why.
 */
static int replay_member(const struct ps_replay_opts *ro, struct ps_input_opts *io, struct ps_input *in,
			 const struct ps_machine *m, int quiet, int trunc, int stats, const struct member_view *mv,
			 struct ps_kv *kv, struct ps_replay **rp)
{
	const struct ps_event *evs, *bad;
	struct ps_error err = { { 0 } };
	struct ps_replay *r;
	uint64_t expect = 0;
	char msg[512];
	int rc, one;

	*rp = r = ps_replay_create(m, ro, msg, sizeof(msg));
	if (!r) {
		ps_error("%s", msg);
		ps_input_close(in);
		return -1;
	}
	/* a pagesim file's pass-1 summary stands in for pass 1: the file is read once */
	one = ps_pass1_from_summary(in, r, (io->reader_flags & PS_RD_COMM) != 0, &expect);
	if (one && ro->verbose && !quiet)
		fprintf(stderr, "pagesim: pass 1 from %s's summary: the trace is read once\n", io->trace);
	if (!one) {
		while ((rc = ps_reader_next_batch(in->reader, &evs, &err)) > 0)
			ps_replay_prepass(r, evs, rc);
		if (rc < 0) {
			ps_error("%s", err.msg);
			ps_input_close(in);
			return -1;
		}
	}
	if ((!one || (ps_reader_stats(in->reader)->truncated && !trunc)) && ps_input_report(in, quiet, trunc) < 0) {
		ps_input_close(in);
		return -1;
	}
	if (ps_replay_start(r, msg, sizeof(msg)) < 0) {
		ps_error("initial state inconsistent: %s", msg);
		ps_input_close(in);
		return -1;
	}
	if (!one)
		ps_input_close(in);
	if (setup_view(r, mv, &in->machine) < 0)
		return -1;

	/* pass 2: the replay */
	io->quiet = 1;
	io->reader_flags |= PS_RD_COMM;	/* follow's ZONE_RECLAIM_ACTIVE needs each event's task too */
	if (!one && ps_input_open(in, io) < 0)
		return -1;
	while ((rc = ps_reader_next_batch(in->reader, &evs, &err)) > 0)
		if (ps_replay_batch(r, evs, rc, &bad, msg, sizeof(msg)) < 0) {
			ps_error("model invariant broken after %s pfn %#llx at %llu ns: %s", ps_event_names[bad->type],
				 (unsigned long long)bad->pfn, (unsigned long long)bad->ts_ns, msg);
			return -1;
		}
	if (rc < 0) {
		ps_error("%s", err.msg);
		return -1;
	}
	if (ps_replay_batch_end(r, &bad, msg, sizeof(msg)) < 0) {
		ps_error("model invariant broken after %s pfn %#llx at %llu ns: %s", ps_event_names[bad->type],
			 (unsigned long long)bad->pfn, (unsigned long long)bad->ts_ns, msg);
		return -1;
	}
	if (one) {
		const struct ps_reader_stats *s = ps_reader_stats(in->reader);
		uint64_t got = 0;

		for (int t = 0; t < PS_EV_NR; t++)
			got += s->events[t];
		if (got != expect) {
			ps_error("%s: its pass-1 summary is of %llu events but it holds %llu: the file was altered",
				 io->trace, (unsigned long long)expect, (unsigned long long)got);
			return -1;
		}
		if (ps_input_report(in, quiet, trunc) < 0)
			return -1;
	}
	ps_replay_view_finish(r);
	if (mv->view->have_w) {
		mv->view->have_w = 0;
		if (ps_tl_out_close(&mv->view->w, ps_replay_timeline(r), &err) < 0) {
			ps_error("%s", err.msg);
			return -1;
		}
	}
	if (ps_replay_counters(r, kv) < 0 || ps_replay_view_counters(r, kv) < 0) {
		ps_error("out of memory");
		return -1;
	}
	{
		const struct ps_reader_stats *s = ps_reader_stats(in->reader);
		uint64_t total = 0, defects = ps_replay_defects(r);

		for (int t = 0; t < PS_EV_NR; t++)
			total += s->events[t];
		ps_kv_set(kv, "events_lost", (int64_t)(s->lost_events + s->lost_overwritten));
		if (!quiet)
			report_unused(kv, ro->traced ? ro->traced : m);
		if (!quiet && defects)
			ps_warn("%llu fidelity defects in %llu events (%.3f%%)%s", (unsigned long long)defects,
				(unsigned long long)total, total ? 100.0 * defects / total : 0.0,
				ro->verbose ? "" : "; -v lists them");
	}
	if (stats)
		fprintf(stderr, "pagesim: model state: %.2f bytes per simulated page\n", ps_replay_bytes_per_page(r));
	if (mv->state_dir && (write_state(mv->state_dir, r) < 0 || write_info(mv->state_dir, mv->meta, mv->nr_meta) < 0))
		return -1;
	return 0;
}

int cmd_replay(int argc, char **argv)
{
	struct ps_replay_opts ro = { .mode = PS_REPLAY_FOLLOW };
	struct ps_input_opts io = { 0 };
	struct ps_input in;
	struct ps_replay *r = NULL;
	struct ps_error err = { { 0 } };
	struct ps_kv kv;
	const char *format = "vmstat", *output = NULL, *policy = NULL, *state_dir = NULL;
	const char *sets[64], *machine = NULL, *cpu_map = NULL, *layout = NULL;
	struct ps_machine *other = NULL, *after = NULL;
	const char *after_dir = NULL;
	char machine_path[4096], where[3 * 4200];
	int nr_sets = 0, untraced = 0, ensemble = 0, perturb = 0;
	unsigned int pass1_flags;
	struct ps_kv *kvs = NULL;
	char filter[512], policy_text[1024], kbuf[32];
	struct ps_view_opts vo = { 0 };
	struct ps_view_run view = { .o = &vo };
	const char *vmeta[12];
	struct member_view mv = { &vo, &view, vmeta, 6, NULL };
	int quiet = 0, trunc = 0, stats = 0, opt, rc, ret = PS_EXIT_FAIL;

	optind = 1;
	while ((opt = ps_getopt("replay", argc, argv, "o:qvh", replay_options)) != -1) {
		switch (opt) {
		case OPT_MODE:
			if (!strcmp(optarg, "follow"))
				ro.mode = PS_REPLAY_FOLLOW;
			else if (!strcmp(optarg, "simulate"))
				ro.mode = PS_REPLAY_SIMULATE;
			else
				return ps_usage_error("replay", "--mode must be follow or simulate, not '%s'", optarg);
			break;
		case OPT_SYSROOT: io.sysroot = optarg; break;
		case OPT_MACHINE: machine = optarg; break;
		case OPT_CPUMAP: cpu_map = optarg; break;
		case OPT_LAYOUT: layout = optarg; break;
		case OPT_POLICY: policy = optarg; break;
		case OPT_SET:
			if (nr_sets == 64)
				return ps_usage_error("replay", "more than 64 --set options");
			sets[nr_sets++] = optarg;
			break;
		case OPT_KERNEL: io.kernel = optarg; break;
		case OPT_FORMAT: format = optarg; break;
		case OPT_STATE: state_dir = optarg; break;
		case OPT_FOLD: ro.fold_invisible = 1; break;
		case OPT_AFTER: after_dir = optarg; untraced = 1; break;
		case OPT_UNTRACED: untraced = 1; break;
		case OPT_ENSEMBLE:
		case OPT_PERTURB: {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (end == optarg || *end || v < (opt == OPT_ENSEMBLE ? 2 : 1) || v > 1000)
				return ps_usage_error("replay", opt == OPT_ENSEMBLE ?
						      "--ensemble wants a number of replays from 2 to 1000, not '%s'" :
						      "--perturb wants an ensemble member from 1 to 1000, not '%s'", optarg);
			if (opt == OPT_ENSEMBLE)
				ensemble = (int)v;
			else
				perturb = (int)v;
			break;
		}
		case OPT_STATS: stats = 1; break;
		case OPT_CHECK: ro.check = 1; break;
		case OPT_STRICT: io.reader_flags |= PS_RD_STRICT; break;
		case OPT_TRUNC: trunc = 1; break;
		case 'v': ro.verbose = io.verbose = 1; break;
		case 'o': output = optarg; break;
		case 'q': quiet = 1; break;
		case 'h': printf(replay_usage, ps_profile_names()); return PS_EXIT_OK;
		case PS_OPT_VERSION: return ps_print_version();
		case PS_OPT_INTERVAL ... PS_OPT_VIEW_LAST:
			if ((rc = ps_view_opt(&vo, "replay", opt, optarg)))
				return rc;
			break;
		default: return PS_EXIT_USAGE;
		}
	}
	if (strcmp(format, "vmstat") && strcmp(format, "json"))
		return ps_usage_error("replay", "--format must be vmstat or json, not '%s'", format);
	if (optind != argc - 1)
		return ps_usage_error("replay", optind >= argc ? "missing TRACE" : "more than one TRACE given");
	if (!strcmp(argv[optind], "-"))
		return ps_usage_error("replay", "TRACE must be a file: it is read twice");
	{
		struct stat tst;

		/* a fifo or <(zstdcat ...) would be read once, then hang on the second open */
		if (stat(argv[optind], &tst) == 0 && !S_ISREG(tst.st_mode)) {
			ps_error("%s: not a regular file (%s): replay reads TRACE twice; write it to a file first",
				 argv[optind], S_ISDIR(tst.st_mode) ? "a directory" : S_ISFIFO(tst.st_mode) ? "a pipe" : "a device or socket");
			return PS_EXIT_FAIL;
		}
	}
	for (int c = 0; c < PS_MAX_CPUS; c++)
		ro.cpu_node_map[c] = -1;
	if (cpu_map && ps_replay_parse_cpu_map(cpu_map, ro.cpu_node_map) < 0)
		return ps_usage_error("replay", "--cpu-map wants TRACED_CPUS:NODE pairs such as 0-1:0,2-3:1, not '%s'", cpu_map);
	if (cpu_map) {
		int c = cpu_map_overlap(cpu_map);

		if (c >= 0)
			return ps_usage_error("replay", "--cpu-map '%s' maps traced CPU %d twice: give each CPU one node", cpu_map, c);
	}
	{
		char key[256];

		if (ps_sets_repeated(sets, nr_sets, key, sizeof(key)) >= 0)
			return ps_usage_error("replay", "--set: key '%s' given twice", key);
	}
	if (cpu_map && !machine)
		return ps_usage_error("replay", "--cpu-map maps CPUs onto the machine of --machine");
	if (machine && ro.mode != PS_REPLAY_SIMULATE)
		return ps_usage_error("replay", "--machine replays on another machine, which needs --mode simulate");
	rc = ps_policyopt_args(&ro, "replay", policy, layout, sets, nr_sets);
	if (rc)
		return rc;
	if ((rc = ps_view_check(&vo, "replay")))
		return rc;
	ps_policyopt_follow_note(&ro, "replay", quiet);
	io.trace = argv[optind];
	io.quiet = quiet;
	if (ps_filter_load_markers(&vo.f, io.trace) < 0)
		return PS_EXIT_FAIL;
	ps_kv_init(&kv);

	/* pass 1: the state at the start of the trace */
	if (ro.mode == PS_REPLAY_SIMULATE)
		io.reader_flags |= PS_RD_COMM;	/* pass 1 reads tasks: kswapd's reclaim, kcompactd's frees */
	pass1_flags = io.reader_flags;
	if (ps_input_open(&in, &io) < 0)
		return PS_EXIT_FAIL;
	if (ps_policyopt_recorded(&ro, &in, &err) < 0) {
		ps_error("%s", err.msg);
		ps_input_close(&in);
		return PS_EXIT_FAIL;
	}
	if (ro.verbose && !quiet)
		fprintf(stderr, "pagesim: replay --mode %s under the %s profile (%s)\n",
			ro.mode == PS_REPLAY_FOLLOW ? "follow" : "simulate", ro.profile->name, ro.profile->summary);
	if (machine) {
		struct stat st;

		other = malloc(sizeof(*other));
		if (!other) {
			ps_error("out of memory");
			ps_input_close(&in);
			return PS_EXIT_FAIL;
		}
		if (stat(machine, &st) == 0 && S_ISDIR(st.st_mode)) {
			ps_note_sysroot(machine);
			if (ps_sysroot_load_machine(machine, other, &err) < 0)
				goto bad_machine;
			if (!quiet)
				ps_print_machine_warnings(other);
		} else {
			if (stat(machine, &st) < 0) {
				if (ps_config_lookup("machines", ".machine", machine, machine_path, sizeof(machine_path)) < 0) {
					ps_config_where("machines", where, sizeof(where));
					free(other);
					ps_input_close(&in);
					return ps_usage_error("replay", "--machine '%s' is neither a file or directory nor a "
							      "machine in %s: 'pagesim help machines' lists them",
							      machine, where);
				}
				machine = machine_path;
			}
			ps_note_input(machine);
			if (ps_machine_load(machine, other, &err) < 0)
				goto bad_machine;
			if (!quiet)
				ps_print_machine_warnings(other);
		}
		if (other->page_shift != in.machine.page_shift) {
			ps_error("%s: page size %d differs from the trace's %d: a trace replays only on a machine of the same page size",
				 machine, 1 << other->page_shift, 1 << in.machine.page_shift);
			free(other);
			ps_input_close(&in);
			return PS_EXIT_FAIL;
		}
		for (int c = 0; c < PS_MAX_CPUS; c++) {
			int n = ro.cpu_node_map[c];

			if (n >= 0 && !ps_machine_node_cpus(other, n)) {
				/* the default rule would put the CPU somewhere it was not asked to go */
				ps_error("--cpu-map: %s has %s node %d to put traced CPU %d on", machine,
					 n >= other->nr_nodes ? "no" : "no CPU on", n, c);
				free(other);
				ps_input_close(&in);
				return PS_EXIT_USAGE;
			}
		}
		if (in.machine.assumed) {
			uint64_t end;

			if (trace_pfn_end(&io, &end) < 0) {
				free(other);
				ps_input_close(&in);
				return PS_EXIT_FAIL;
			}
			ps_machine_assume_end(&in.machine, end);
			ps_warn("the recorded machine's layout is assumed: its nodes and CPUs map onto %s by the default rule", machine);
		}
		ro.traced = &in.machine;
	} else if (in.machine.assumed) {
		/* the model's zones, their managed pages and watermarks are the recorded machine's */
		ps_error("%s: replay needs the layout of the machine the trace was recorded on: give --sysroot DIR "
			 "(its before/ snapshot; a pagesim file converted with one carries it), or --mode simulate --machine FILE "
			 "to replay on another machine",
			 io.trace);
		ps_input_close(&in);
		return PS_EXIT_FAIL;
	}
	if (untraced && (ro.mode != PS_REPLAY_SIMULATE || other)) {
		ps_input_close(&in);
		return ps_usage_error("replay", "--untraced-use is for simulate mode on the recorded machine (no --machine)");
	}
	if (untraced) {
		if (load_after(&in, &io, after_dir, &after) < 0) {
			ps_input_close(&in);
			return PS_EXIT_FAIL;
		}
		if (!after) {
			ps_input_close(&in);
			ps_error("--untraced-use: no end state found (give --after DIR)");
			return PS_EXIT_FAIL;
		}
		ro.after = after;
	}
	if (ro.policy.min_free_kbytes != PS_UNSET && ro.policy.min_free_kbytes != ro.recorded.min_free_kbytes) {
		/* every zone's min watermark is its share of min_free_kbytes: above the pages, nothing passes */
		const struct ps_machine *mm = other ? other : &in.machine;
		uint64_t lowmem = 0, min_pages = (uint64_t)ro.policy.min_free_kbytes >> (mm->page_shift - 10);

		for (int i = 0; i < mm->nr_zones; i++)
			if (mm->zones[i].type != PS_ZONE_HIGHMEM && mm->zones[i].type != PS_ZONE_MOVABLE)
				lowmem += mm->zones[i].managed;
		if (lowmem && min_pages >= lowmem) {
			ps_error("vm.min_free_kbytes = %ld is %llu pages, not below the %llu pages the zones of %s manage: every zone's min watermark would lie above its pages",
				 ro.policy.min_free_kbytes, (unsigned long long)min_pages, (unsigned long long)lowmem,
				 mm->source ? mm->source : "the machine");
			ps_input_close(&in);
			free(other);
			free(after);
			return PS_EXIT_USAGE;
		}
	}
	if (perturb && (ensemble || ro.mode != PS_REPLAY_SIMULATE)) {
		ps_input_close(&in);
		free(other);
		free(after);
		return ps_usage_error("replay", ensemble ? "--perturb is one member of what --ensemble runs: give one of them"
							 : "--perturb perturbs the model's own decisions: it needs --mode simulate");
	}
	if (ensemble && (ro.mode != PS_REPLAY_SIMULATE || state_dir)) {
		ps_input_close(&in);
		free(other);
		free(after);
		return ps_usage_error("replay", ro.mode != PS_REPLAY_SIMULATE ?
					 "--ensemble perturbs the model's own decisions: it needs --mode simulate" :
					 "--ensemble prints means: --state-dir would be one member's state");
	}
	if ((ensemble || perturb) && (vo.timeline || vo.nr_by || vo.f.on)) {
		ps_input_close(&in);
		free(other);
		free(after);
		return ps_usage_error("replay", ensemble ? "--ensemble prints means: --timeline, --by and the filters show one replay" :
							 "--perturb reorders events the timeline, --by and the filters count in the trace's order: give one or the other");
	}
	{
		/* --policy and the --set options as given; "recorded" for neither */
		int n = snprintf(policy_text, sizeof(policy_text), "%s", policy ? policy : nr_sets ? "" : "recorded");

		for (int i = 0; i < nr_sets && n < (int)sizeof(policy_text); i++)
			n += snprintf(policy_text + n, sizeof(policy_text) - n, "%s%s", n ? " " : "", sets[i]);
		if (n < (int)sizeof(policy_text))
			snprintf(policy_text + n, sizeof(policy_text) - n, " (profile %s)", ro.profile->name);
		ps_filter_describe(&vo.f, filter, sizeof(filter));
		ps_kver_format(in.machine.kver, kbuf, sizeof(kbuf));
		vmeta[0] = "command", vmeta[1] = "replay", vmeta[2] = "trace", vmeta[3] = io.trace;
		vmeta[4] = "mode", vmeta[5] = ro.mode == PS_REPLAY_FOLLOW ? "follow" : "simulate";
		vmeta[6] = "policy", vmeta[7] = policy_text, vmeta[8] = "kernel", vmeta[9] = kbuf;
		vmeta[10] = "filter", vmeta[11] = filter;
		mv.state_dir = state_dir;
	}
	if (ensemble && !(kvs = calloc((size_t)ensemble, sizeof(*kvs)))) {
		ps_error("out of memory");
		goto out;
	}
	for (int member = 0; member < (ensemble ? ensemble : 1); member++) {
		struct ps_kv *mkv = ensemble ? &kvs[member] : &kv;

		if (ensemble)
			ps_kv_init(mkv);
		if (member > 0) {
			/* each member reads the trace as the plain replay does */
			ps_input_close(&in);	/* the previous member's pass 2 */
			io.quiet = 1;
			io.reader_flags = pass1_flags;
			if (ps_input_open(&in, &io) < 0)
				goto out_noinput;
		}
		ro.ensemble_member = ensemble ? (unsigned int)member + 1 : (unsigned int)perturb;
		if (replay_member(&ro, &io, &in, other ? other : &in.machine, member ? 1 : quiet, trunc, stats,
				  &mv, mkv, &r) < 0)
			goto out;
		ps_replay_destroy(r);
		r = NULL;
	}
	{
		char rbuf[32], nbuf[16];
		const char *meta[] = { "trace", io.trace, "mode", ro.mode == PS_REPLAY_FOLLOW ? "follow" : "simulate",
				       "policy", ro.profile->name, "kernel", rbuf, "filter", filter, "ensemble", nbuf };

		ps_kver_format(ps_reader_kver(in.reader), rbuf, sizeof(rbuf));
		snprintf(nbuf, sizeof(nbuf), "%d", ensemble);
		if (ensemble) {
			meta[8] = "ensemble", meta[9] = nbuf;
			if (ps_write_ensemble(output, format[0] == 'j', kvs, ensemble, meta, 5) < 0)
				goto out;
		} else if (view.by ? ps_by_write(view.by, output, format[0] == 'j', meta, vo.f.on ? 5 : 4) < 0 :
				     ps_write_counters(output, format[0] == 'j', &kv, meta, vo.f.on ? 5 : 4) < 0) {
			goto out;
		}
	}
	ret = PS_EXIT_OK;
out:
	ps_input_close(&in);
out_noinput:
	if (view.have_w)
		ps_tl_out_abort(&view.w);
	ps_by_destroy(view.by);
	ps_view_free(&vo);
	ps_replay_destroy(r);
	ps_kv_free(&kv);
	for (int i = 0; kvs && i < ensemble; i++)
		ps_kv_free(&kvs[i]);
	free(kvs);
	free(other);
	free(after);
	return ret;
bad_machine:
	ps_error("%s", err.msg);
	free(other);
	ps_input_close(&in);
	return PS_EXIT_FAIL;
}
