// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd_lockstat.c - pagesim lockstat: the zone-lock and cache-line model in
 * follow mode, driven straight from a trace (sim/mm/lock.h groups the events
 * into the sections the kernel ran under zone->lock).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/mm/lock.h"
#include "sim/replay/lock_sections.h"
#include "sim/mm/profile.h"
#include "cli/cli.h"
#include "cli/input.h"

static const char lockstat_usage[] =
	"usage: pagesim lockstat [OPTIONS] TRACE\n"
	"\n"
	"Runs the zone->lock and struct zone cache-line model over the zone-lock\n"
	"sections a trace shows (follow mode): pcp refills (runs of\n"
	"mm_page_alloc_zone_locked with percpu_refill=1), pcp drains (runs of\n"
	"mm_page_pcpu_drain), direct buddy allocations (percpu_refill=0) and direct\n"
	"frees (mm_page_free of an order the kernel does not put on pcp lists), each\n"
	"at the time of its first event on its CPU.  Prints the lock counters in total\n"
	"and per zone (name.node<N>.<Zone>): acquisitions, contended, wait and hold ns,\n"
	"cache-line transfers, each also split by cause; docs/lock-model.md has the model.\n"
	"\n"
	"options:\n"
	"  --layout L         struct zone layout: 3.17 (lock beside free_area[0]), 4.0 (default;\n"
	"                     lock after free_area[] and flags), or a layout FILE (key = value)\n"
	"  --set KEY=VALUE    lock.acquire_ns, lock.page_ns (per block moved), lock.carry (0|1),\n"
	"                     or a layout key (lock.offset, free_area.offset, ...); repeatable\n"
	"  --sysroot DIR      machine layout (default: a before/ directory beside TRACE)\n"
	"  --kernel RELEASE   interpret the trace as from this kernel (which orders use pcp lists)\n"
	"  --format FMT       vmstat (name value lines, default) or json\n"
	"  -o, --output FILE  write to FILE (replaced only once complete) instead of stdout\n"
	"  --allow-truncated  use the events before the cut of a truncated input\n"
	"  -q, --quiet        no warnings about skipped input\n"
	"  -v, --verbose      also the layout used and the events of other kinds skipped\n"
	"  -h, --help         this text\n"
	"  --version          pagesim's version\n"
	"\n"
	"pcp.batch, pcp.high and vm.percpu_pagelist_high_fraction cannot change what a trace\n"
	"did: sweeping them needs the model's own per-CPU lists (pagesim replay --mode simulate).\n"
	"\n"
	"exit status: 0 success, 1 failure (unreadable or truncated input, no events), 2 bad usage\n";

enum { OPT_LAYOUT = 256, OPT_SET, OPT_SYSROOT, OPT_KERNEL, OPT_FORMAT, OPT_TRUNC };

static const struct option lockstat_options[] = {
	{ "layout", required_argument, NULL, OPT_LAYOUT },
	{ "set", required_argument, NULL, OPT_SET },
	{ "sysroot", required_argument, NULL, OPT_SYSROOT },
	{ "kernel", required_argument, NULL, OPT_KERNEL },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "output", required_argument, NULL, 'o' },
	{ "allow-truncated", no_argument, NULL, OPT_TRUNC },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	PS_OPTION_VERSION,
	{ NULL, 0, NULL, 0 },
};

#define MAX_SETS 64

int cmd_lockstat(int argc, char **argv)
{
	struct ps_input_opts io = { 0 };
	struct ps_input in;
	struct ps_lock_params lp;
	struct ps_lock *lk = NULL;
	struct ps_lock_follow *lf = NULL;
	struct ps_lock_follow_stats fs;
	struct ps_event ev;
	struct ps_error err = { { 0 } };
	struct ps_kv kv;
	const char *format = "vmstat", *output = NULL, *layout = NULL, *sets[MAX_SETS];
	const struct ps_profile *prof;
	int nr_sets = 0, quiet = 0, allow_trunc = 0, opt, r, ret = PS_EXIT_FAIL;

	optind = 1;
	while ((opt = ps_getopt("lockstat", argc, argv, "o:qvh", lockstat_options)) != -1) {
		switch (opt) {
		case OPT_LAYOUT: layout = optarg; break;
		case OPT_SET:
			if (nr_sets == MAX_SETS)
				return ps_usage_error("lockstat", "more than %d --set options", MAX_SETS);
			sets[nr_sets++] = optarg;
			break;
		case OPT_SYSROOT: io.sysroot = optarg; break;
		case OPT_KERNEL: io.kernel = optarg; break;
		case OPT_FORMAT: format = optarg; break;
		case 'o': output = optarg; break;
		case OPT_TRUNC: allow_trunc = 1; break;
		case 'q': quiet = 1; break;
		case 'v': io.verbose = 1; break;
		case 'h': fputs(lockstat_usage, stdout); return PS_EXIT_OK;
		case PS_OPT_VERSION: return ps_print_version();
		default: return PS_EXIT_USAGE;
		}
	}
	if (strcmp(format, "vmstat") && strcmp(format, "json"))
		return ps_usage_error("lockstat", "--format must be vmstat or json, not '%s'", format);
	if (optind != argc - 1)
		return ps_usage_error("lockstat", optind >= argc ? "missing TRACE" : "more than one TRACE given");

	ps_lock_params_init(&lp);
	if (layout && ps_zone_layout_builtin(&lp.layout, layout) < 0) {
		if (access(layout, R_OK) != 0)
			return ps_usage_error("lockstat", "--layout '%s' is neither 3.17, 4.0 nor a readable layout file",
					      layout);
		if (ps_zone_layout_load(&lp.layout, layout, &err) < 0)
			return ps_usage_error("lockstat", "--layout: %s", err.msg);
	}
	{
		char key[256];

		if (ps_sets_repeated(sets, nr_sets, key, sizeof(key)) >= 0)
			return ps_usage_error("lockstat", "--set: key '%s' given twice", key);
	}
	for (int i = 0; i < nr_sets; i++) {
		char key[128], *eq = strchr(sets[i], '=');
		const char *val;
		size_t kl;

		if (!eq)
			return ps_usage_error("lockstat", "--set '%s': expected KEY=VALUE", sets[i]);
		kl = (size_t)(eq - sets[i]);
		while (kl && sets[i][kl - 1] == ' ')
			kl--;
		if (kl >= sizeof(key))
			return ps_usage_error("lockstat", "--set '%s': key too long", sets[i]);
		memcpy(key, sets[i], kl);
		key[kl] = 0;
		val = eq + 1;
		while (*val == ' ')
			val++;
		if (!strcmp(key, "pcp.batch") || !strcmp(key, "pcp.high") ||
		    !strcmp(key, "vm.percpu_pagelist_high_fraction"))
			return ps_usage_error("lockstat",
					      "--set %s: follow mode replays what the trace did, whatever the pcp sizes; "
					      "sweep pcp sizes with the model's own lists (pagesim replay --mode simulate)",
					      key);
		r = ps_lock_params_set(&lp, key, val, "--set", &err);
		if (r < 0)
			return ps_usage_error("lockstat", "%s", err.msg);
		if (r > 0)
			return ps_usage_error("lockstat",
					      "--set: unknown key '%s' (lock.acquire_ns, lock.page_ns, lock.carry, "
					      "or a layout key such as lock.offset)", key);
	}
	if (ps_zone_layout_check(&lp.layout, &err) < 0)
		return ps_usage_error("lockstat", "layout %s: %s", lp.layout.name, err.msg);

	io.trace = argv[optind];
	io.quiet = quiet;
	ps_kv_init(&kv);
	if (ps_input_open(&in, &io) < 0)
		return PS_EXIT_FAIL;
	prof = ps_profile_for_kver(in.machine.kver ? in.machine.kver : ps_reader_kver(in.reader));
	if (in.machine.nr_zones <= 0 || in.machine.nr_cpus <= 0) {
		ps_error("%s: the machine layout (%s) has no zones or no CPUs; give --sysroot DIR of the traced machine",
			 io.trace, in.machine.source ? in.machine.source : "none");
		goto out;
	}
	lk = ps_lock_create(&lp, in.machine.nr_zones, in.machine.nr_cpus, &err);
	if (!lk) {
		ps_error("%s", err.msg);
		goto out;
	}
	lf = ps_lock_follow_create(lk, &in.machine, prof, in.pageblock_order);
	if (!lf) {
		ps_error("out of memory");
		goto out;
	}
	while ((r = ps_reader_next(in.reader, &ev, &err)) > 0)
		ps_lock_follow_event(lf, &ev);
	if (r < 0) {
		ps_error("%s", err.msg);
		goto out;
	}
	if (ps_input_report(&in, quiet, allow_trunc) < 0)
		goto out;
	ps_lock_follow_finish(lf);
	ps_lock_follow_stats(lf, &fs);
	if (fs.outside_zones && !quiet)
		ps_warn("skipped %llu events whose pfn lies in no zone of %s (is the sysroot from the traced machine?)",
			(unsigned long long)fs.outside_zones, in.machine.source);
	if (ps_lock_counters(lk, &in.machine, &kv) < 0)
		goto nomem;
	for (int c = 0; c < PS_LOCK_NR_CAUSES; c++) {
		char name[64];

		snprintf(name, sizeof(name), "trace_sections_%s", ps_lock_cause_names[c]);
		if (ps_kv_set(&kv, name, (int64_t)fs.sections[c]) < 0)
			goto nomem;
	}
	/* the trace's own time per block inside multi-block sections (tracing overhead included) */
	if (ps_kv_set(&kv, "trace_section_ns_per_block",
		      fs.trace_span_blocks ? (int64_t)(fs.trace_span_ns / fs.trace_span_blocks) : 0) < 0 ||
	    ps_kv_set(&kv, "events_outside_zones", (int64_t)fs.outside_zones) < 0)
		goto nomem;
	{
		char a[32], p[32];
		const char *meta[] = { "trace", io.trace, "layout", lp.layout.name, "profile", prof->name,
				       "acquire_ns", a, "page_ns", p };

		snprintf(a, sizeof(a), "%llu", (unsigned long long)lp.acquire_ns);
		snprintf(p, sizeof(p), "%llu", (unsigned long long)lp.page_ns);
		if (ps_write_counters(output, format[0] == 'j', &kv, meta, 5) < 0)
			goto out;
	}
	ret = PS_EXIT_OK;
	goto out;
nomem:
	ps_error("out of memory");
out:
	ps_lock_follow_destroy(lf);
	ps_lock_destroy(lk);
	ps_kv_free(&kv);
	ps_input_close(&in);
	return ret;
}
